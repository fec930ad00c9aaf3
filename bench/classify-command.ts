// Benchmark: the dangerous-command detector on every ported vector. Prints the parser load time
// and per-classification latency (median, p95, max); it does not pass or fail.
//   npx tsx bench/classify-command.ts             (20 rounds)
//   ROUNDS=100 npx tsx bench/classify-command.ts
import { classifyCommand, loadCommandClassifier } from '../src/approval-signals/classify-command';
import { ORIGINAL_APPROVAL_VECTORS } from '../test/unit/approval-signals/vectors/original-approval-vectors';
import { ORIGINAL_HARDLINE_VECTORS } from '../test/unit/approval-signals/vectors/original-hardline-vectors';
import { contextFor } from '../test/unit/approval-signals/vectors/vector-types';

const ROUNDS = Number(process.env.ROUNDS ?? 20);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

async function main(): Promise<void> {
  const loadStarted = performance.now();
  await loadCommandClassifier();
  const loadMs = performance.now() - loadStarted;

  const vectors = [...ORIGINAL_APPROVAL_VECTORS, ...ORIGINAL_HARDLINE_VECTORS];
  // Warm-up: V8 and the WebAssembly tier-up compile the hot paths during the first passes.
  for (let round = 0; round < 5; round++) for (const vector of vectors) classifyCommand(vector.command, contextFor(vector));
  const samples: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (const vector of vectors) {
      const context = contextFor(vector);
      const started = performance.now();
      classifyCommand(vector.command, context);
      samples.push(performance.now() - started);
    }
  }
  samples.sort((left, right) => left - right);
  const format = (ms: number) => `${(ms * 1000).toFixed(0)} µs`;
  console.log(`parser load:      ${loadMs.toFixed(1)} ms`);
  console.log(`classifications:  ${samples.length} (${vectors.length} vectors x ${ROUNDS} rounds)`);
  console.log(`median:           ${format(percentile(samples, 50))}`);
  console.log(`p95:              ${format(percentile(samples, 95))}`);
  console.log(`p99:              ${format(percentile(samples, 99))}`);
  console.log(`max:              ${format(samples[samples.length - 1] ?? 0)}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
