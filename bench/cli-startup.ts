// Benchmark: how long the built `hermes-temporal` takes to answer, next to its floor (a bare
// `node -e ''` on the same machine, same run). `approve` is timed to the moment its command
// code starts (HERMES_STARTUP_TRACE), before it connects anywhere. Prints medians; no pass/fail.
//   npx tsx bench/cli-startup.ts        (RUNS=15 by default; needs `npm run build`)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const RUNS = Number(process.env.RUNS ?? 15);
const CLI = path.resolve(__dirname, '..', 'dist', 'src', 'cli', 'main.js');

interface Case {
  label: string;
  args: string[];
  goalMs: number;
  /** Time to the startup-trace line instead of to the exit. */
  toCommandStart?: boolean;
}

const CASES: Case[] = [
  { label: '--help', args: [CLI, '--help'], goalMs: 150 },
  { label: 'check-command "ls -la"', args: [CLI, 'check-command', 'ls -la'], goalMs: 300 },
  { label: 'approve (to command start)', args: [CLI, 'approve', 'bench-session'], goalMs: 500, toCommandStart: true },
];

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/** Wall-clock ms of one run, or ms from spawn to the command start it reports. */
function timeOnce(args: string[], env: NodeJS.ProcessEnv, toCommandStart = false): number {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { env, encoding: 'utf8' });
  const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
  if (!toCommandStart) return wallMs;
  const reported = /command started at ([\d.]+) ms/.exec(result.stderr)?.[1];
  if (!reported) throw new Error(`no startup trace from ${args.join(' ')}:\n${result.stderr}`);
  // performance.now() counts from the process's own start; add the spawn cost the floor also pays.
  return Number(reported) + spawnCostMs;
}

let spawnCostMs = 0;

function main(): void {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first`);
  const home = mkdtempSync(path.join(os.tmpdir(), 'hermes-bench-cli-'));
  // No TEMPORAL_ADDRESS: approve stops right after starting, without waiting on a network.
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, HERMES_TEMPORAL_HOME: home, HERMES_STARTUP_TRACE: '1' };
  try {
    const floorRuns = Array.from({ length: RUNS }, () => timeOnce(['-e', ''], env));
    const floor = median(floorRuns);
    // What performance.now() does not see: fork/exec before node's clock starts (measured once).
    const traced = Array.from({ length: RUNS }, () => {
      const started = process.hrtime.bigint();
      const result = spawnSync(process.execPath, ['-e', "process.stderr.write(String(require('perf_hooks').performance.now()))"], { env, encoding: 'utf8' });
      return Number(process.hrtime.bigint() - started) / 1e6 - Number(result.stderr);
    });
    spawnCostMs = Math.max(0, median(traced));
    console.log(`CLI start-up, median of ${RUNS} runs on ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown CPU'}), node ${process.version}`);
    console.log(`  floor: node -e ''                      ${floor.toFixed(0).padStart(5)} ms`);
    for (const benchCase of CASES) {
      timeOnce(benchCase.args, env, benchCase.toCommandStart); // warm the file cache
      const ms = median(Array.from({ length: RUNS }, () => timeOnce(benchCase.args, env, benchCase.toCommandStart)));
      const verdict = ms <= benchCase.goalMs ? 'within' : 'over';
      console.log(
        `  ${benchCase.label.padEnd(37)}${ms.toFixed(0).padStart(5)} ms  ${(ms / floor).toFixed(1)}x floor  (goal ${benchCase.goalMs} ms: ${verdict})`,
      );
    }
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

main();
