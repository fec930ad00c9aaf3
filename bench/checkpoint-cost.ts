// Benchmark: what a workspace checkpoint costs the turn that takes it. A workspace of FILES files
// (source-sized, in nested folders) is snapshotted: the first time (every file hashed), again
// unchanged (the shadow index's stat cache: a stat per file, no hashing), after one file changed,
// and a rollback of a deleted folder. Prints the median of RUNS runs; it does not pass or fail.
// HISTORY=1: the workspace is a git repository (its files committed and packed), whose history
// the checkpoints keep too; 'one commit made' then is a commit of the changed file.
//   npx tsx bench/checkpoint-cost.ts              (2000 files, 5 runs)
//   FILES=20000 RUNS=3 npx tsx bench/checkpoint-cost.ts
//   HISTORY=1 npx tsx bench/checkpoint-cost.ts
//   RESIDENT_MB=450 npx tsx bench/checkpoint-cost.ts   (this process first holds 450 MB, as a
//   worker serving many sessions does: git starts from the small helper, so it costs the same)
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { listCheckpoints } from '../src/checkpoints/checkpoint-list';
import { rollbackWorkspace } from '../src/checkpoints/rollback';
import { shadowRepositoryFor } from '../src/checkpoints/shadow-repository';
import type { CheckpointLimits } from '../src/checkpoints/snapshot';
import { takeCheckpoint } from '../src/checkpoints/take-checkpoint';

const FILES = Number(process.env.FILES ?? 2000);
const RUNS = Number(process.env.RUNS ?? 5);
const HISTORY = process.env.HISTORY === '1';
const RESIDENT_MB = Number(process.env.RESIDENT_MB ?? 0);
/** Memory held (and touched, so resident) for the whole run. */
const held = Array.from({ length: RESIDENT_MB }, () => Buffer.alloc(1024 * 1024, 1));
const LIMITS: CheckpointLimits = { maxFiles: 50_000, maxFileBytes: 10 * 1024 * 1024, timeoutMs: 120_000, keep: 50, maxGitBytes: 256 * 1024 * 1024 };
const ORIGIN = { sessionId: 'bench', turn: 1, toolCallId: 'call', tool: 'terminal', reason: 'tool_call' as const };

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  const figures: Record<string, number[]> = { first: [], unchanged: [], 'one file changed': [], 'rollback of 10% deleted': [] };
  for (let run = 0; run < RUNS; run++) {
    const root = mkdtempSync(path.join(os.tmpdir(), 'checkpoint-bench-'));
    const home = path.join(root, 'home');
    const workspace = path.join(root, 'workspace');
    for (let index = 0; index < FILES; index++) {
      const folder = path.join(workspace, `pkg${index % 20}`, `mod${index % 7}`);
      mkdirSync(folder, { recursive: true });
      writeFileSync(path.join(folder, `file${index}.ts`), `export const value${index} = ${index};\n`.repeat(40));
    }
    const userGit = (...args: string[]) =>
      execFileSync('git', args, { cwd: workspace, stdio: 'pipe', env: { PATH: process.env.PATH, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@b', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@b' } });
    if (HISTORY) {
      userGit('init', '-q');
      userGit('add', '.');
      userGit('commit', '-q', '-m', 'files');
      userGit('gc', '-q');
    }
    const repository = shadowRepositoryFor(home, workspace);
    figures.first!.push(await timed(() => takeCheckpoint(repository, ORIGIN, LIMITS)));
    figures.unchanged!.push(await timed(() => takeCheckpoint(repository, ORIGIN, LIMITS)));
    writeFileSync(path.join(workspace, 'pkg0', 'mod0', 'file0.ts'), 'changed\n');
    if (HISTORY) userGit('commit', '-q', '-am', 'one more');
    figures['one file changed']!.push(await timed(() => takeCheckpoint(repository, ORIGIN, LIMITS)));
    const latest = (await listCheckpoints(repository, 10_000)).at(-1)!;
    rmSync(path.join(workspace, 'pkg1'), { recursive: true });
    figures['rollback of 10% deleted']!.push(await timed(() => rollbackWorkspace(repository, latest, { sessionId: 'bench', limits: LIMITS })));
    rmSync(root, { recursive: true, force: true });
  }
  const resident = `${(process.memoryUsage().rss / 1024 / 1024).toFixed(0)} MB resident (${held.length} MB held)`;
  console.log(`Checkpoint of a workspace of ${FILES} files, median of ${RUNS} runs, by a process of ${resident}:`);
  for (const [label, values] of Object.entries(figures)) console.log(`  ${label.padEnd(26)} ${median(values).toFixed(1)} ms`);
}

void main();
