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

it('keeps a thread for the next search, with its own pattern, but never one stopped mid-match', async () => {
  const first = new LineMatcher('(?<=x)y', 10_000);
  expect(await first.note()).toMatch(/\S/);
  first.close();
  const second = new LineMatcher('b+c', 10_000);
  try {
    expect(second.threadId).toBe(first.threadId);
    expect(await second.note()).toBeUndefined();
    expect(await second.matching(['abbc', '(?<=x)y', 'ac'])).toEqual([0]);
  } finally {
    second.close();
  }
  const spent = new LineMatcher(COSTLY, 300);
  expect(spent.threadId).toBe(first.threadId);
  await expect(spent.matching(['a'.repeat(2_000_000)])).rejects.toBeInstanceOf(MatchBudgetSpent);
  spent.close();
  // Stopped, not left matching the rest of those lines: the process stays idle while it waits.
  await new Promise((resolve) => setTimeout(resolve, 100));
  const cpuBefore = process.cpuUsage();
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(process.cpuUsage(cpuBefore).user / 1000).toBeLessThan(150);
  const after = new LineMatcher('z', 10_000);
  try {
    expect(after.threadId).not.toBe(spent.threadId);
    expect(await after.matching(['a', 'z'])).toEqual([1]);
  } finally {
    after.close();
  }
});

it('stops the thread of a cancelled search and starts the next one afresh', async () => {
  const controller = new AbortController();
  const cancelled = new LineMatcher(COSTLY, 60_000, controller.signal);
  const pending = cancelled.matching(['a'.repeat(200_000)]);
  setTimeout(() => controller.abort(new Error('stop')), 100);
  await expect(pending).rejects.toThrow('stop');
  cancelled.close();
  const next = new LineMatcher('q', 10_000);
  try {
    expect(next.threadId).not.toBe(cancelled.threadId);
    expect(await next.matching(['q'])).toEqual([0]);
  } finally {
    next.close();
  }
});
