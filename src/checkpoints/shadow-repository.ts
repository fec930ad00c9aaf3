// Where a workspace's checkpoints live: a bare shadow repository under the hermes home, named by a
// hash of the workspace's real path (outside the workspace, and hidden from the sandbox with the
// rest of the home). Created on first use with a config of our own and attributes that turn every
// conversion off, so a checkpoint holds each file's bytes exactly as they were.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runShadowGit, type ShadowRepository } from './shadow-git';

/**
 * Folders never kept: a repository's own store, dependencies and build or cache output, which
 * tools recreate (`build/` and `dist/` included, as in the original: a model cannot hide work
 * there for long, since work moved there is not in the next checkpoint but stays in the last).
 */
export const EXCLUDED_FOLDERS = [
  '.git', 'node_modules', '.venv', 'venv', '__pycache__', '.mypy_cache', '.pytest_cache', '.ruff_cache', '.tox',
  '.cache', '.next', '.nuxt', '.turbo', '.gradle', 'target', 'dist', 'build', 'coverage', '.terraform',
];

const SHADOW_CONFIG = [
  '[core]',
  '\trepositoryformatversion = 0',
  '\tbare = false',
  '\tfilemode = true',
  '\tsymlinks = true',
  '\tlogallrefupdates = false',
  '\thooksPath = /dev/null',
  '\tfsmonitor = false',
  '\tuntrackedCache = false',
  '\tautocrlf = false',
  '[gc]',
  '\tauto = 0',
  '',
].join('\n');

/** Later lines win over every `.gitattributes` of the work tree: no filter, no eol or encoding change. */
const SHADOW_ATTRIBUTES = '* -text -filter -ident -working-tree-encoding -diff -merge\n';

/** The shadow repository of `workspace` (resolved to its real path). */
export function shadowRepositoryFor(home: string, workspace: string): ShadowRepository {
  const workTree = realpathSync(workspace);
  const key = createHash('sha256').update(workTree).digest('hex').slice(0, 24);
  return { gitDirectory: path.join(checkpointsRoot(home), key), workTree };
}

export function checkpointsRoot(home: string): string {
  return path.join(home, 'checkpoints');
}

/** Every shadow repository under the home, with the workspace each keeps (named by its hash, so a record changed by hand is not believed). */
export function knownShadowRepositories(home: string): ShadowRepository[] {
  const root = checkpointsRoot(home);
  if (!existsSync(root)) return [];
  return readdirSync(root).flatMap((name) => {
    const gitDirectory = path.join(root, name);
    try {
      const recorded = shadowRepositoryFor(home, readFileSync(path.join(gitDirectory, 'hermes-workspace'), 'utf8').trim());
      return recorded.gitDirectory === gitDirectory ? [recorded] : [];
    } catch {
      return [];
    }
  });
}

/**
 * Creates the shadow repository if it does not exist yet (private to the worker's user), and
 * writes its config and attributes again each time: what git obeys there is always ours.
 */
export async function ensureShadowRepository(repository: ShadowRepository, timeoutMs: number): Promise<void> {
  const ready = existsSync(path.join(repository.gitDirectory, 'hermes-workspace'));
  if (!ready) {
    mkdirSync(repository.gitDirectory, { recursive: true, mode: 0o700 });
    await runShadowGit(repository, ['init', '--quiet', '--template='], { timeoutMs });
  }
  writeFileSync(path.join(repository.gitDirectory, 'config'), SHADOW_CONFIG, { mode: 0o600 });
  mkdirSync(path.join(repository.gitDirectory, 'info'), { recursive: true });
  writeFileSync(path.join(repository.gitDirectory, 'info', 'attributes'), SHADOW_ATTRIBUTES);
  writeFileSync(path.join(repository.gitDirectory, 'info', 'exclude'), EXCLUDED_FOLDERS.map((name) => `${name}/`).join('\n') + '\n');
  // Written last: its presence says the repository is ready.
  if (!ready) writeFileSync(path.join(repository.gitDirectory, 'hermes-workspace'), `${repository.workTree}\n`);
}
