// Detector latency per command over both corpora (must-flag and everyday): median and p99 of
// classifyCommand, after a warm-up. Run: npx tsx bench/detector-latency.ts [rounds]
import { performance } from 'node:perf_hooks';
import { classifyCommand, loadCommandClassifier } from '../src/approval-signals/classify-command';
import { CORPUS_CONTEXT } from '../test/unit/approval-signals/corpus/corpus-context';
import { everydayCommands } from '../test/unit/approval-signals/corpus/everyday-corpus';
import { mustFlagCommands } from '../test/unit/approval-signals/corpus/must-flag-corpus';

function percentile(sorted: readonly number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? Number.NaN;
}

async function main(): Promise<void> {
  const rounds = Math.max(1, Number(process.argv[2] ?? 5));
  await loadCommandClassifier();
  const sets = { 'must-flag': mustFlagCommands().map((entry) => entry.command), everyday: everydayCommands().map((entry) => entry.command) };
  const all = [...sets['must-flag'], ...sets.everyday];
  for (const command of all) classifyCommand(command, CORPUS_CONTEXT);
  for (const [name, commands] of [...Object.entries(sets), ['both', all] as const]) {
    const samples: number[] = [];
    for (let round = 0; round < rounds; round++) {
      for (const command of commands) {
        const start = performance.now();
        classifyCommand(command, CORPUS_CONTEXT);
        samples.push(performance.now() - start);
      }
    }
    samples.sort((left, right) => left - right);
    const line = `${name.padEnd(10)} ${String(commands.length).padStart(4)} commands x ${rounds}: median ${percentile(samples, 0.5).toFixed(3)} ms, p99 ${percentile(samples, 0.99).toFixed(3)} ms, max ${samples.at(-1)!.toFixed(3)} ms`;
    console.log(line);
  }
}

void main();
