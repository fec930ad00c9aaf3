// Runs the Dockerfile's own install and build steps outside Docker (no image registry is reachable
// here), on a clean copy of what each stage COPYs: every `RUN npm …` line in its stage's WORKDIR,
// the files `COPY --from` carries between stages, then the runtime stage's CLI and native modules.
// Proves that `npm ci` accepts the committed lockfile the way the image build runs it.
// Usage: npx tsx scripts/check-dockerfile-install.ts [--keep]   (.ci/run runs it after its npm ci)
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const repoRoot = path.resolve(__dirname, '..');
/** The whole check is bounded: a hung npm fails it instead of stalling CI. */
const COMMAND_TIMEOUT_MS = 8 * 60_000;

interface Stage {
  name: string;
  base: string;
  instructions: string[];
}

/** Stages with line continuations joined and comments dropped (the subset of syntax the Dockerfile uses). */
export function parseDockerfile(text: string): Stage[] {
  const stages: Stage[] = [];
  const lines = text
    .replace(/\\\r?\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  for (const line of lines) {
    const from = /^FROM\s+(?:--\S+\s+)*(\S+)(?:\s+AS\s+(\S+))?/i.exec(line);
    if (from) stages.push({ base: from[1]!, name: from[2] ?? `stage-${stages.length}`, instructions: [] });
    else stages.at(-1)?.instructions.push(line);
  }
  return stages;
}

/** A RUN line's shell command without BuildKit's `--mount=…` / `--network=…` options. */
export function runCommand(instruction: string): string {
  return instruction.replace(/^RUN\s+/i, '').replace(/^(?:--\S+\s+)+/, '');
}

/** Whether every `&&` part of the command is an npm invocation (those are what this check runs). */
export function isNpmCommand(command: string): boolean {
  return command.split('&&').every((part) => /^npm\s/.test(part.trim()));
}

function say(message: string): void {
  console.log(`check-dockerfile-install: ${message}`);
}

function run(command: string, cwd: string, env: NodeJS.ProcessEnv): void {
  const started = Date.now();
  say(`$ ${command}   (in ${cwd})`);
  const result = spawnSync('bash', ['-c', command], { cwd, env, stdio: 'inherit', timeout: COMMAND_TIMEOUT_MS });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (result.status !== 0) throw new Error(`\`${command}\` failed (status ${result.status ?? result.signal}) after ${seconds}s`);
  say(`ok in ${seconds}s`);
}

function main(): void {
  const keep = process.argv.includes('--keep');
  const stages = parseDockerfile(readFileSync(path.join(repoRoot, 'Dockerfile'), 'utf8'));
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'hermes-dockerfile-check-'));
  // The image's cache mount keeps npm's cache between builds; here CI's own install filled it.
  // JOBS: node-gyp compiles the native modules on every core (as a builder with idle cores would).
  const env: NodeJS.ProcessEnv = { ...process.env, npm_config_prefer_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false', JOBS: String(os.cpus().length) };
  /** Each stage's filesystem root, so `COPY --from=<stage>` can read what the stage produced. */
  const roots = new Map<string, string>();
  /** Where the last stage's last COPY went: the image's /app. */
  let lastCopyDirectory = '/';
  try {
    for (const stage of stages) {
      const root = path.join(scratch, stage.name);
      const parentRoot = roots.get(stage.base);
      if (parentRoot) cpSync(parentRoot, root, { recursive: true, verbatimSymlinks: true });
      else mkdirSync(root, { recursive: true });
      roots.set(stage.name, root);
      let workdir = parentRoot ? workdirOf(stages, stage.base) : '/';
      say(`stage ${stage.name} (FROM ${stage.base})`);
      for (const instruction of stage.instructions) {
        const [keyword = ''] = instruction.split(/\s+/, 1);
        const argumentsText = instruction.slice(keyword.length).trim();
        switch (keyword.toUpperCase()) {
          case 'WORKDIR':
            workdir = path.posix.resolve(workdir, argumentsText);
            mkdirSync(path.join(root, workdir), { recursive: true });
            break;
          case 'COPY':
            copy(argumentsText, { root, workdir, roots });
            lastCopyDirectory = path.join(root, workdir);
            break;
          case 'RUN': {
            const command = runCommand(instruction);
            if (isNpmCommand(command)) run(command, path.join(root, workdir), env);
            else say(`skipped (not npm): ${command.slice(0, 90)}`);
            break;
          }
          default:
            break;
        }
      }
    }
    // The runtime stage holds the production node_modules and dist: its CLI must start and its
    // native modules must load, as `docker compose exec worker hermes-temporal …` would.
    const app = lastCopyDirectory;
    const home = path.join(scratch, 'hermes-home');
    run('node dist/src/cli/main.js tools', app, { ...env, NODE_ENV: 'production', HERMES_TEMPORAL_HOME: home });
    run(`node -e "new (require('better-sqlite3'))(':memory:').close(); require('node-pty'); console.log('native modules load')"`, app, env);
    say('the Dockerfile installs and builds on the committed lockfile');
  } finally {
    if (keep) say(`kept ${scratch}`);
    else rmSync(scratch, { recursive: true, force: true });
  }
}

/** The WORKDIR a stage ends with (following its base stages). */
function workdirOf(stages: Stage[], name: string): string {
  const stage = stages.find((candidate) => candidate.name === name);
  if (!stage) return '/';
  let workdir = workdirOf(stages, stage.base);
  for (const instruction of stage.instructions) {
    const match = /^WORKDIR\s+(\S+)/i.exec(instruction);
    if (match) workdir = path.posix.resolve(workdir, match[1]!);
  }
  return workdir;
}

/** COPY [--from=stage] src… dest: from the repository (the build context) or an earlier stage's root. */
function copy(argumentsText: string, where: { root: string; workdir: string; roots: Map<string, string> }): void {
  const words = argumentsText.split(/\s+/);
  let from: string | undefined;
  while (words[0]?.startsWith('--')) {
    const option = words.shift()!;
    const match = /^--from=(\S+)$/.exec(option);
    if (match) from = match[1];
  }
  const destination = words.pop();
  if (!destination || words.length === 0) throw new Error(`COPY ${argumentsText}: no source or destination`);
  const sourceRoot = from ? where.roots.get(from) : repoRoot;
  if (!sourceRoot) throw new Error(`COPY --from=${from}: no earlier stage of that name`);
  const target = path.join(where.root, path.posix.resolve(where.workdir, destination));
  for (const source of words) {
    const sourcePath = path.join(sourceRoot, source);
    const targetPath = destination.endsWith('/') ? path.join(target, path.basename(source)) : target;
    cpSync(sourcePath, targetPath, { recursive: true, verbatimSymlinks: true });
  }
}

if (require.main === module) {
  try {
    main();
  } catch (error) {
    console.error(`check-dockerfile-install: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
