import { parseCodeToolCallRequest, parseDescendantApprovals, parseSubagentReport } from '../../../src/workflows/signal-payloads';

const report = { sessionId: 's-sa0', taskIndex: 0, taskCount: 1, goal: 'g', status: 'completed', preview: 'p', answerChars: 1, turns: 2, toolCalls: 3, tokens: { input: 4, output: 5 }, durationSeconds: 6, model: 'm' };

describe('signal payloads from other workflows (or anyone who reaches the server)', () => {
  test('a real report, approval note and code call read as they were sent', () => {
    expect(parseSubagentReport(report)).toEqual(report);
    expect(parseSubagentReport({ ...report, error: 'boom' })).toEqual({ ...report, error: 'boom' });
    expect(parseDescendantApprovals({ sessionId: 's-sa0', workflowId: 'w', count: 2, first: 'a1' })).toEqual({ sessionId: 's-sa0', workflowId: 'w', count: 2, first: 'a1' });
    expect(parseCodeToolCallRequest({ parentCallId: 'c', index: 3, name: 'read_file', summary: 's' })).toEqual({ parentCallId: 'c', index: 3, name: 'read_file', summary: 's' });
  });

  test('what is not an object of the right shape reads as nothing', () => {
    for (const value of [null, undefined, 'text', 7, [], {}]) {
      expect(parseSubagentReport(value)).toBeUndefined();
      expect(parseDescendantApprovals(value)).toBeUndefined();
      expect(parseCodeToolCallRequest(value)).toBeUndefined();
    }
    expect(parseSubagentReport({ ...report, status: 'approved' })).toBeUndefined();
    expect(parseSubagentReport({ ...report, sessionId: 'x'.repeat(5000) })).toBeUndefined();
    expect(parseDescendantApprovals({ sessionId: 7, workflowId: 'w', count: 1 })).toBeUndefined();
    expect(parseCodeToolCallRequest({ parentCallId: 'c', index: 1.5, name: 'read_file', summary: 's' })).toBeUndefined();
  });

  test('texts are cut to a bound, and numbers that are not counts read as 0', () => {
    const huge = 'x'.repeat(1_000_000);
    const parsed = parseSubagentReport({ ...report, goal: huge, preview: huge, error: huge, model: huge, turns: -1, tokens: { input: 'many' }, durationSeconds: Infinity });
    expect(JSON.stringify(parsed).length).toBeLessThan(6000);
    expect(parsed).toMatchObject({ turns: 0, tokens: { input: 0, output: 0 }, durationSeconds: 0 });
    expect(parseCodeToolCallRequest({ parentCallId: 'c', index: 0, name: 'read_file', summary: huge })?.summary).toHaveLength(300);
    expect(parseDescendantApprovals({ sessionId: 's', workflowId: 'w', count: 1, first: huge })?.first).toHaveLength(400);
  });
});
