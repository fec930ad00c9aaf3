// Random and garbage input never throws, never fails internally, and never takes long.
import { classifyCommand, loadCommandClassifier } from '../../../src/approval-signals/classify-command';
import { random, randomCommand } from './random-commands';
import { VECTOR_CONTEXT } from './vectors/vector-types';

beforeAll(() => loadCommandClassifier());

/** A garbage-collection pause is not slowness: a slow input is slow every time. */
function fastestOfThree(run: () => unknown): number {
  let fastest = Infinity;
  for (let attempt = 0; attempt < 3 && fastest > 50; attempt++) {
    const started = performance.now();
    run();
    fastest = Math.min(fastest, performance.now() - started);
  }
  return fastest;
}

describe('classifying random input', () => {
  it('never throws, never fails internally and stays fast for 3000 random commands', () => {
    const next = random(20240611);
    for (let index = 0; index < 3000; index++) {
      const command = randomCommand(next);
      const verdict = classifyCommand(command, VECTOR_CONTEXT);
      if (verdict.parseError?.startsWith('internal error')) throw new Error(`internal error for ${JSON.stringify(command)}: ${verdict.parseError}`);
      const elapsed = fastestOfThree(() => classifyCommand(command, VECTOR_CONTEXT));
      if (elapsed > 50) throw new Error(`took ${elapsed.toFixed(1)} ms: ${JSON.stringify(command)}`);
      expect(['hardline', 'dangerous', 'low_risk', 'safe', 'unknown']).toContain(verdict.tier);
      if (verdict.parseError) expect(verdict.tier).not.toBe('safe');
    }
  });

  it('treats pathological input (deep nesting, huge text, long brace lists) as unknown or worse, never safe', () => {
    const samples = ['('.repeat(5000) + 'ls' + ')'.repeat(5000), '$('.repeat(2000), 'echo {a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}{o,p}', 'x'.repeat(200_000), 'bash -c "'.repeat(50)];
    for (const command of samples) {
      const started = performance.now();
      const verdict = classifyCommand(command, VECTOR_CONTEXT);
      expect(performance.now() - started).toBeLessThan(2000);
      if (verdict.parseError) expect(verdict.tier).not.toBe('safe');
    }
  });
});
