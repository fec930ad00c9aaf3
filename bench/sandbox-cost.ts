// Benchmark: what the local sandbox adds to each command. Spawns `bash -c true` bare and through
// the sandbox's launcher (bwrap with every mount, the seccomp filter and the limits), interleaved,
// and prints median and p95 of both and of the difference; then the same through
// LocalEnvironment.exec (cwd file, pidless), sandbox off vs on. It does not pass or fail.
//   npx tsx bench/sandbox-cost.ts            (300 runs each)
//   RUNS=1000 npx tsx bench/sandbox-cost.ts
import { spawn } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LocalEnvironment } from '../src/environments/local-environment';
import { DEFAULT_SANDBOX_SETTINGS, LocalSandbox } from '../src/environments/local-sandbox';

const RUNS = Math.max(200, Number(process.env.RUNS ?? 300));

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

function describe(label: string, samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  return `${label.padEnd(34)} median ${percentile(sorted, 50).toFixed(2).padStart(6)} ms   p95 ${percentile(sorted, 95).toFixed(2).padStart(6)} ms`;
}

function timeSpawn(file: string, args: string[]): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: 'ignore', env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve(performance.now() - started) : reject(new Error(`exit ${code}`))));
  });
}

async function main(): Promise<void> {
  const workspace = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'hermes-sandbox-bench-')));
  const sandbox = new LocalSandbox(DEFAULT_SANDBOX_SETTINGS);
  console.log(sandbox.state().summary);
  const options = { workspace, cwd: workspace, sessionKey: 'bench' };
  const bare: number[] = [];
  const sandboxed: number[] = [];
  for (let warm = 0; warm < 10; warm++) {
    await timeSpawn('bash', ['-c', 'true']);
    const { file, args } = sandbox.command('true', options);
    await timeSpawn(file, args);
  }
  for (let run = 0; run < RUNS; run++) {
    bare.push(await timeSpawn('bash', ['-c', 'true']));
    // Built each time, as exec does (the hidden-path lookups are part of the cost).
    const { file, args } = sandbox.command('true', options);
    sandboxed.push(await timeSpawn(file, args));
  }
  console.log(`${RUNS} runs each`);
  console.log(describe('spawn bash -c true (bare)', bare));
  console.log(describe('spawn bash -c true (sandboxed)', sandboxed));
  console.log(describe('difference, run by run', sandboxed.map((value, index) => value - (bare[index] ?? 0))));

  const off = new LocalEnvironment({ backend: 'local', cwd: workspace }, { sandbox: new LocalSandbox({ ...DEFAULT_SANDBOX_SETTINGS, mode: 'off' }) });
  const on = new LocalEnvironment({ backend: 'local', cwd: workspace }, { sandbox });
  const execOff: number[] = [];
  const execOn: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    let started = performance.now();
    await off.exec({ command: 'true', timeoutMs: 10_000 });
    execOff.push(performance.now() - started);
    started = performance.now();
    await on.exec({ command: 'true', timeoutMs: 10_000 });
    execOn.push(performance.now() - started);
  }
  console.log(describe('LocalEnvironment.exec (sandbox off)', execOff));
  console.log(describe('LocalEnvironment.exec (sandbox on)', execOn));
  console.log(describe('difference, run by run', execOn.map((value, index) => value - (execOff[index] ?? 0))));
  sandbox.releaseSession('bench');
  rmSync(workspace, { recursive: true, force: true });
}

void main();
