import { createHash } from 'node:crypto';
import { ASSESSMENT_SIZE_REFUSER, MAX_RECORDED_TEXT_CHARS, recordedAssessment, recordedText } from '../../../src/activities/recorded-assessment';
import { decideCommand } from '../../../src/approval-signals/policy';

describe('recordedText', () => {
  test('keeps text up to the limit as it is', () => {
    const text = 'x'.repeat(MAX_RECORDED_TEXT_CHARS);
    expect(recordedText(text)).toBe(text);
  });

  test('stands in for longer text by its size and digest: equal only for equal texts', () => {
    const long = `echo ${'a'.repeat(10_000)}`;
    const other = `echo ${'a'.repeat(9_999)}b`;
    expect(recordedText(long)).toBe(`${long.slice(0, MAX_RECORDED_TEXT_CHARS)}…#sha256:${createHash('sha256').update(long).digest('hex')}`);
    expect(recordedText(long)).toBe(recordedText(`${long}`));
    expect(recordedText(other)).not.toBe(recordedText(long));
  });

  test('no text short enough to keep equals a stand-in, so a model cannot write one to share its approval', () => {
    const stand = recordedText('x'.repeat(MAX_RECORDED_TEXT_CHARS + 1));
    expect(stand.length).toBeGreaterThan(MAX_RECORDED_TEXT_CHARS);
    expect(recordedText(stand)).not.toBe(stand);
  });
});

describe('recordedAssessment', () => {
  test('replaces a long command and long paths, and keeps the rest', () => {
    const longPath = `/tmp/${'p'.repeat(5000)}`;
    const recorded = recordedAssessment({
      isolated: false,
      tool: 'terminal',
      command: `cat ${'q'.repeat(8000)}`,
      display: 'cat qqq…',
      paths: [{ access: 'read', path: longPath, resolved: longPath, contained: false }],
    });
    expect(recorded.command).toMatch(/^cat q{4092}…#sha256:[0-9a-f]{64}$/);
    expect(recorded.paths?.[0]).toMatchObject({ access: 'read', path: expect.stringMatching(/^\/tmp\/p{4091}…#sha256:/), resolved: expect.stringMatching(/^\/tmp\/p{4091}…#sha256:/) });
    expect(recorded).toMatchObject({ tool: 'terminal', display: 'cat qqq…', isolated: false });
  });

  test('an assessment still too large refuses its call, which then neither runs nor asks', () => {
    // A patch over thousands of files: every path is short, together they are megabytes.
    const paths = Array.from({ length: 5000 }, (_, index) => ({ access: 'write' as const, path: `src/${index}/${'f'.repeat(200)}`, resolved: `/w/src/${index}/${'f'.repeat(200)}`, contained: false }));
    const recorded = recordedAssessment({ isolated: false, tool: 'patch', display: 'patch …', paths });
    expect(recorded.paths).toBeUndefined();
    expect(recorded.hookBlock).toEqual({ message: expect.stringMatching(/^Not run: what this call touches is too much to judge in one call \(its assessment is \d+ KB, at most 256 KB are kept\)\. Split it into smaller calls\.$/), source: ASSESSMENT_SIZE_REFUSER });
    expect(JSON.stringify(recorded).length).toBeLessThan(2000);
  });

  test('a long command asked about keys its approval by the stand-in, so approving it covers only that text', () => {
    const decide = (command: string) =>
      decideCommand({
        assessment: recordedAssessment({ isolated: false, command, verdict: { tier: 'unknown', compound: false, rules: [], commands: [] } as never }),
        mode: 'manual',
        surface: 'async',
        unattendedPolicy: 'deny',
        allowlist: new Set(),
        sessionApprovals: new Set(),
      });
    const first = decide(`echo ${'a'.repeat(10_000)}`);
    const second = decide(`echo ${'a'.repeat(9_999)}b`);
    expect(first).toMatchObject({ action: 'ask', keys: [expect.stringMatching(/^U00:echo a{4091}…#sha256:[0-9a-f]{64}$/)] });
    expect(second).toMatchObject({ action: 'ask' });
    expect(second).not.toEqual(first);
  });
});
