// The content pattern runs in a thread of its own with a time budget: a costly pattern on long
// lines spends the search's budget, not the worker's main thread (which every session shares).
import { LineMatcher, MatchBudgetSpent, MAX_PATTERN_CHARS } from '../../../src/tools/line-matcher';
import { longestStallDuring } from '../../helpers/event-loop-stall';

/** RE2's work is the line's length times the pattern's size: 8,000 states here. */
const COSTLY = `${'[a-y]{1000}'.repeat(8)}[b-z]`;

it('answers which lines match, and why a pattern RE2 cannot compile is searched as text', async () => {
  const matcher = new LineMatcher('help(er|ing)\\(', 10_000);
  try {
    expect(await matcher.note()).toBeUndefined();
    expect(await matcher.matching(['a helper(1)', 'nothing', 'helping(2)'])).toEqual([0, 2]);
  } finally {
    matcher.close();
  }
  const literal = new LineMatcher('(?<=x)y', 10_000);
  try {
    expect(await literal.note()).toMatch(/\S/);
    expect(await literal.matching(['xy', '(?<=x)y'])).toEqual([1]);
  } finally {
    literal.close();
  }
});

it("matches a costly pattern on a long line without stalling the caller's thread", async () => {
  const matcher = new LineMatcher(COSTLY, 60_000);
  try {
    const { value, longestStallMs } = await longestStallDuring(() => matcher.matching(['a'.repeat(20_000)]));
    expect(value).toEqual([]);
    expect(longestStallMs).toBeLessThan(500);
  } finally {
    matcher.close();
  }
});

it('stops when the budget is spent, and refuses a pattern too long to compile cheaply', async () => {
  const matcher = new LineMatcher(COSTLY, 300);
  const started = Date.now();
  try {
    await expect(matcher.matching(['a'.repeat(200_000)])).rejects.toBeInstanceOf(MatchBudgetSpent);
    expect(Date.now() - started).toBeLessThan(3000);
  } finally {
    matcher.close();
  }
  expect(() => new LineMatcher('a'.repeat(MAX_PATTERN_CHARS + 1), 1000)).toThrow(/longer than/);
});
