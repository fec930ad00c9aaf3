// The git that keeps a workspace's checkpoints runs outside the sandbox, over files a model
// wrote. So it reads no config but the shadow repository's own (never the workspace's .git, the
// user's ~/.gitconfig or /etc/gitconfig, nor GIT_* variables of this process), runs no hook,
// filter or fsmonitor, comes from the trusted PATH, and is killed when it runs too long.
import { spawn } from 'node:child_process';
import { Readable } from 'node:stream';
import { trustedProgram, trustedSearchPath } from '../environments/trusted-programs';
import { smallSpawner, type ProgramRun, type RunningProgram } from '../environments/small-spawner';

export interface ShadowRepository {
  /** The shadow GIT_DIR, under the hermes home. */
  gitDirectory: string;
  /** The workspace (real path): git's work tree. */
  workTree: string;
  /** The store of SHA-256 repositories' history (object-format.ts); absent: SHA-1. */
  objectFormat?: 'sha256';
}

export interface GitRun {
  /** Bytes given to git on stdin, if any (a stream: piped, for a pack too large to hold). */
  input?: string | Buffer | Readable;
  timeoutMs: number;
  /** Exit codes that are answers, not failures (`diff --quiet`). */
  allowedCodes?: readonly number[];
  /** Called with each chunk of stdout; returning false stops git (kills it) and the run resolves with what came. */
  onOutput?: (chunk: Buffer) => boolean;
}

/** Settings on every command line too: a shadow config edited by hand cannot turn them back on. */
const SAFE_SETTINGS = [
  'core.hooksPath=/dev/null',
  'core.fsmonitor=false',
  'core.untrackedCache=false',
  'core.attributesFile=/dev/null',
  'core.excludesFile=/dev/null',
  'core.autocrlf=false',
  'core.symlinks=true',
  'core.quotePath=false',
  'core.sparseCheckout=false',
  // Every file streamed into one pack per update, with one fsync (bulk check-in), instead of a
  // loose object file each: a first snapshot of 2,000 files took 1-2 s, now about 0.2 s.
  'core.bigFileThreshold=1',
  'core.fsyncMethod=batch',
  'gc.auto=0',
  'maintenance.auto=false',
  'submodule.recurse=false',
  'protocol.allow=never',
];

/** The whole environment git sees: nothing inherited but a trusted PATH. */
export function shadowGitEnvironment(repository: ShadowRepository): NodeJS.ProcessEnv {
  return {
    PATH: trustedSearchPath({ outside: [repository.workTree] }),
    // No user config, no credential helper, no editor: git has nothing to find in this "home".
    HOME: repository.gitDirectory,
    LC_ALL: 'C',
    GIT_DIR: repository.gitDirectory,
    GIT_WORK_TREE: repository.workTree,
    GIT_INDEX_FILE: `${repository.gitDirectory}/index`,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_ATTR_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
    GIT_NO_REPLACE_OBJECTS: '1',
    // Paths are file names, never patterns (a file called `*` names itself only).
    GIT_LITERAL_PATHSPECS: '1',
    GIT_AUTHOR_NAME: 'hermes-temporal',
    GIT_AUTHOR_EMAIL: 'checkpoints@hermes-temporal.invalid',
    GIT_COMMITTER_NAME: 'hermes-temporal',
    GIT_COMMITTER_EMAIL: 'checkpoints@hermes-temporal.invalid',
  };
}

export class ShadowGitError extends Error {
  override readonly name = 'ShadowGitError';
}

/** Runs `git args` on the shadow repository; resolves with stdout, throws on a failure or timeout. */
export function runShadowGit(repository: ShadowRepository, args: readonly string[], run: GitRun): Promise<Buffer> {
  const git = trustedProgram('git', { outside: [repository.workTree] });
  const settings = SAFE_SETTINGS.flatMap((setting) => ['-c', setting]);
  return new Promise((resolve, reject) => {
    const output: Buffer[] = [];
    let errors = '';
    let stopped = false;
    let timedOut = false;
    const program: ProgramRun = {
      cwd: repository.workTree,
      env: shadowGitEnvironment(repository),
      input: run.input instanceof Readable ? '' : (run.input ?? ''),
      onStdout: (chunk) => {
        if (stopped) return;
        output.push(chunk);
        if (run.onOutput && !run.onOutput(chunk)) {
          stopped = true;
          running.kill();
        }
      },
      // The first few lines say what went wrong; the rest would only grow the worker.
      onStderr: (chunk) => {
        if (errors.length < 4000) errors += chunk.toString('utf8');
      },
    };
    // Nine runs a snapshot: each started here would fork the whole worker (small-spawner.ts).
    const viaHelper = !(run.input instanceof Readable) && smallSpawner.worthwhile();
    const running = (viaHelper ? smallSpawner.run(git, [...settings, ...args], program) : undefined) ?? spawnHere(git, [...settings, ...args], program, run.input);
    const timer = setTimeout(() => {
      timedOut = true;
      running.kill();
    }, run.timeoutMs);
    running.closed.then(
      (code) => {
        clearTimeout(timer);
        if (timedOut) return reject(new ShadowGitError(`git ${args[0]} took longer than ${Math.round(run.timeoutMs / 1000)}s and was stopped`));
        if (stopped || code === 0 || (code !== null && run.allowedCodes?.includes(code))) return resolve(Buffer.concat(output));
        reject(new ShadowGitError(`git ${args[0]} failed (exit ${code}): ${errors.trim().split('\n').slice(0, 3).join(' ')}`));
      },
      (error: Error) => {
        clearTimeout(timer);
        reject(new ShadowGitError(`git ${args[0]}: ${error.message}`));
      },
    );
  });
}

/** git spawned by the worker itself: when the helper cannot be used, or for input given as a stream. */
function spawnHere(git: string, args: string[], program: ProgramRun, input: GitRun['input']): RunningProgram {
  const child = spawn(git, args, { cwd: program.cwd, env: program.env, stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdout.on('data', program.onStdout);
  child.stderr.on('data', program.onStderr);
  child.stdin.on('error', () => {
    // git may exit before reading all its input (a failure reported by its exit code).
  });
  const closed = new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  if (input instanceof Readable) {
    // A stream that fails (its file vanished) leaves git an incomplete input: a failure too.
    input.on('error', () => child.kill('SIGKILL'));
    input.pipe(child.stdin);
  } else child.stdin.end(program.input);
  return { closed, kill: () => child.kill('SIGKILL') };
}
