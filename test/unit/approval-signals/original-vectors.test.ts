// The original Hermes detector's test vectors, run against this detector. Vectors decided
// differently on purpose are checked against the behaviour chosen here instead.
import { classifyCommand, loadCommandClassifier } from '../../../src/approval-signals/classify-command';
import { DELIBERATELY_DIFFERENT } from './vectors/deliberately-different';
import { ORIGINAL_APPROVAL_VECTORS } from './vectors/original-approval-vectors';
import { ORIGINAL_HARDLINE_VECTORS } from './vectors/original-hardline-vectors';
import { contextFor, vectorMismatch, type OriginalVector } from './vectors/vector-types';

beforeAll(() => loadCommandClassifier());

function withDecisions(vectors: OriginalVector[]): OriginalVector[] {
  return vectors.map((vector) => {
    const different = DELIBERATELY_DIFFERENT.find((entry) => entry.command === vector.command && entry.original === vector.expect);
    return different ? { ...vector, expect: different.ours, note: `deliberately different: ${different.reason}` } : vector;
  });
}

function describeVector(vector: OriginalVector): string {
  return `${vector.group}: ${JSON.stringify(vector.command)} is ${vector.expect}`;
}

describe.each([
  ['approval vectors (§12.1)', withDecisions(ORIGINAL_APPROVAL_VECTORS)],
  ['hardline and sudo vectors (§12.2)', withDecisions(ORIGINAL_HARDLINE_VECTORS)],
])('original %s', (_title, vectors) => {
  it.each(vectors.map((vector) => [describeVector(vector), vector] as const))('%s', (_name, vector) => {
    const verdict = classifyCommand(vector.command, contextFor(vector));
    const mismatch = vectorMismatch(vector, verdict);
    if (mismatch) {
      const rules = verdict.rules.map((rule) => `${rule.id} ${rule.tier} "${rule.description}"`).join('; ') || 'no rules';
      throw new Error(`${mismatch} (rules: ${rules})`);
    }
  });
});

describe('deliberately different vectors', () => {
  it('each names a vector that exists in the original suite', () => {
    const all = [...ORIGINAL_APPROVAL_VECTORS, ...ORIGINAL_HARDLINE_VECTORS];
    for (const entry of DELIBERATELY_DIFFERENT) {
      expect(all.some((vector) => vector.command === entry.command && vector.expect === entry.original)).toBe(true);
    }
  });
});
