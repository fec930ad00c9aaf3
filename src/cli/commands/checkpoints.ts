// `hermes-temporal checkpoints <session>` and `hermes-temporal rollback <session> [checkpoint]`:
// the snapshots the worker took of a session's workspace before the turns that changed it, and
// putting the workspace (or one path) back as one of them holds it.
import type { Command } from 'commander';
import { existsSync, realpathSync } from 'node:fs';
import { visibleText } from '../../approval-signals/visible-text';
import { listCheckpoints, type CheckpointRecord } from '../../checkpoints/checkpoint-list';
import { rollbackWorkspace } from '../../checkpoints/rollback';
import { gitDirectoryName } from '../../checkpoints/workspace-histories';
import { displayName } from '../../checkpoints/snapshot';
import type { ShadowRepository } from '../../checkpoints/shadow-git';
import { knownShadowRepositories, shadowRepositoryFor } from '../../checkpoints/shadow-repository';
import { loadConfig, type LoadedConfig } from '../../config/load';
import { createSessionStore, describeSessionStore } from '../../store/create-session-store';
import { OPEN_SESSION_STATUSES } from '../../store/session-store';
import { plural } from '../plural';

const LIST_TIMEOUT_MS = 10_000;

export function registerCheckpointCommands(program: Command): void {
  program
    .command('checkpoints')
    .description("List the checkpoints of a session's workspace (taken before turns that changed it)")
    .argument('<sessionId>')
    .option('--json', 'print JSON')
    .action(async (sessionId: string, flags: { json?: boolean }) => {
      const config = loadConfig();
      const found = await checkpointsOf(config, sessionId);
      if (!found) return;
      if (flags.json) return console.log(JSON.stringify({ workspace: found.repository.workTree, store: found.repository.gitDirectory, checkpoints: found.checkpoints }, null, 2));
      if (!found.checkpoints.length) return console.log(`No checkpoints of ${found.repository.workTree} for session ${sessionId} yet.`);
      console.log(`Workspace ${found.repository.workTree}`);
      console.log(`${'CHECKPOINT'.padEnd(10)}  ${'TAKEN'.padEnd(24)}  ${'BEFORE'.padEnd(28)}  CHANGED SINCE THE ONE BEFORE`);
      for (const checkpoint of found.checkpoints) console.log(checkpointLine(checkpoint));
      console.log(`\nRestore one with: hermes-temporal rollback ${sessionId} <checkpoint> [--path <file-or-folder>]`);
    });

  program
    .command('rollback')
    .description("Put a session's workspace (or one path) back as a checkpoint holds it; the current state is checkpointed first")
    .argument('<sessionId>')
    .argument('[checkpoint]', "the checkpoint's number (default: the session's latest taken before a tool call)")
    .option('--path <path>', 'restore only this file or folder (relative to the workspace); `.git`: only the git history')
    .option('--force', 'roll back although the session may still be changing the workspace')
    .action(async (sessionId: string, wanted: string | undefined, flags: { path?: string; force?: boolean }) => {
      const config = loadConfig();
      const found = await checkpointsOf(config, sessionId);
      if (!found) return;
      // A session still at work would write over what comes back, or be misled by it.
      if (found.status && OPEN_SESSION_STATUSES.has(found.status) && !flags.force) {
        console.error(`Session ${sessionId} is ${found.status}: cancel it first, or roll back anyway with --force.`);
        process.exitCode = 1;
        return;
      }
      const target = wanted === undefined ? found.checkpoints.filter((checkpoint) => checkpoint.reason === 'tool_call').at(-1) : found.all.find((checkpoint) => String(checkpoint.id) === wanted);
      if (!target) {
        console.error(wanted === undefined ? `No checkpoint of session ${sessionId} to roll back to.` : `No checkpoint ${wanted} of ${found.repository.workTree} (see: hermes-temporal checkpoints ${sessionId})`);
        process.exitCode = 1;
        return;
      }
      const result = await rollbackWorkspace(found.repository, target, {
        ...(flags.path === undefined ? {} : { scope: flags.path }),
        sessionId,
        limits: limitsOf(config),
      });
      const where = flags.path === undefined ? found.repository.workTree : `${flags.path} in ${found.repository.workTree}`;
      console.log(`Rolled ${where} back to checkpoint ${target.id} (${target.time}).`);
      for (const file of result.restored) console.log(`  restored ${visibleText(file)}`);
      for (const file of result.removed) console.log(`  removed  ${visibleText(file)}`);
      for (const file of result.kept) console.log(`  kept     ${visibleText(file)} (in no checkpoint now: overwriting it could not be undone)`);
      for (const file of result.skipped) console.log(`  skipped  ${visibleText(file)} (a folder on its way is a link or a file now, or a folder holds its name: stop the session's processes and roll back again)`);
      for (const { repository, pack, refs, skipped, files, removed } of result.histories) {
        const dotGit = displayName(gitDirectoryName(repository));
        const of = repository === '' ? '' : ` (${visibleText(displayName(repository))})`;
        if (pack) console.log(`  restored git history: ${visibleText(dotGit)}/objects/pack/${pack.name} (${(pack.bytes / 1024).toFixed(1)} KB, every object the refs below reach)`);
        for (const ref of refs) console.log(`  restored git ref ${visibleText(ref)}${of}`);
        for (const file of files ?? []) console.log(`  restored ${visibleText(dotGit)}/${visibleText(displayName(file))}`);
        for (const file of removed ?? []) console.log(`  removed  ${visibleText(dotGit)}/${visibleText(displayName(file))} (a hook the checkpoint did not have)`);
        for (const file of skipped) console.log(`  skipped  ${visibleText(displayName(file))} (a folder on its way is a link or a file now, or a folder holds its name)`);
      }
      if (!result.restored.length && !result.removed.length && !result.histories.some((history) => history.refs.length || history.files?.length || history.removed?.length)) console.log('  nothing to change');
      console.log(`Undo with: hermes-temporal rollback ${sessionId} ${result.undo.id}`);
    });
}

interface FoundCheckpoints {
  repository: ShadowRepository;
  /** The session's own. */
  checkpoints: CheckpointRecord[];
  /** Every checkpoint of the workspace (other sessions' and rollbacks' too). */
  all: CheckpointRecord[];
  /** The session's status as the store has it. */
  status?: string;
}

/** The workspace holding the session's checkpoints: its cwd's, else any that has one of them. */
async function checkpointsOf(config: LoadedConfig, sessionId: string): Promise<FoundCheckpoints | undefined> {
  const store = createSessionStore(config);
  let cwd: string | undefined;
  let status: string | undefined;
  try {
    const session = await store.getSession(sessionId);
    cwd = session?.cwd;
    status = session?.status;
  } finally {
    await store.close();
  }
  if (cwd === undefined) {
    console.error(`No session '${sessionId}' in ${describeSessionStore(config)}`);
    process.exitCode = 1;
    return undefined;
  }
  const own = existsSync(cwd) ? shadowRepositoryFor(config.home, cwd) : undefined;
  const candidates = [...(own ? [own] : []), ...knownShadowRepositories(config.home).filter((repository) => repository.gitDirectory !== own?.gitDirectory)];
  for (const repository of candidates) {
    const all = await listCheckpoints(repository, LIST_TIMEOUT_MS);
    const checkpoints = all.filter((checkpoint) => checkpoint.sessionId === sessionId);
    if (checkpoints.length) return { repository, checkpoints, all, status };
  }
  return { repository: own ?? { gitDirectory: '', workTree: safeRealPath(cwd) }, checkpoints: [], all: [], status };
}

function limitsOf(config: LoadedConfig) {
  return { keep: config.checkpoints.keep, maxFiles: config.checkpoints.max_files, maxFileBytes: Math.round(config.checkpoints.max_file_mb * 1024 * 1024), maxGitBytes: Math.round(config.checkpoints.max_git_mb * 1024 * 1024), timeoutMs: config.checkpoints.timeout_seconds * 1000 };
}

function checkpointLine(checkpoint: CheckpointRecord): string {
  // The turn is its assistant message, numbered as `hermes-temporal show` numbers it.
  const before = checkpoint.reason === 'rollback' ? 'a rollback' : `${checkpoint.tool ?? '?'} at message ${checkpoint.turn ?? '?'}`;
  const { added, modified, deleted, files } = checkpoint.changed;
  const total = added + modified + deleted;
  const named = files.map((file) => visibleText(file)).join(', ');
  const more = total > files.length ? `, … ${total - files.length} more` : '';
  const counts = `+${added} ~${modified} -${deleted}`;
  const leftOut = checkpoint.leftOut ? ` (${plural(checkpoint.leftOut, 'large file')} left out)` : '';
  // A repository whose history it did not keep (too large, or behind a .git file naming one outside): said, not implied.
  const notKept = [checkpoint.git, ...Object.values(checkpoint.nestedGit ?? {})].filter((record) => record?.leftOut).length;
  const history = notKept ? ` (the git history of ${plural(notKept, 'repository', 'repositories')} not kept: see --json)` : '';
  return `${String(checkpoint.id).padEnd(10)}  ${checkpoint.time.padEnd(24)}  ${visibleText(before).slice(0, 28).padEnd(28)}  ${counts}  ${named}${more}${leftOut}${history}`;
}

function safeRealPath(folder: string): string {
  try {
    return realpathSync(folder);
  } catch {
    return folder;
  }
}
