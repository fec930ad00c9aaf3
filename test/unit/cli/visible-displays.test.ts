// What an approver is shown cannot be forged with control characters: a carriage return and an
// erase-line escape, a backspace or a bidi override would make the terminal (or the Temporal UI)
// draw a harmless command over the real one. Every display shows them as visible escapes.
import type { PendingApproval } from '../../../src/approval-signals/approval-types';
import { pendingApprovalsMemo } from '../../../src/approval-signals/pending-approvals-memo';
import { visibleApproval, visibleText } from '../../../src/approval-signals/visible-text';
import { summarizeToolCall } from '../../../src/activities/tool-call-summary';
import { promptText } from '../../../src/cli/approval-prompt';
import { pendingLines } from '../../../src/cli/commands/approvals';
import { createEventPrinter } from '../../../src/cli/output';
import { createSecretRedactor } from '../../../src/environments/secret-redaction';
import { awaitingApprovalDetails } from '../../../src/workflows/session-approvals';

const forged = 'rm -rf src .git old-output # \r\x1b[2K      rm -rf old-output';
const reversed = 'rm -rf src # \u202edlo-tuptuo\u202c';
const pending: PendingApproval = { approvalId: 'ap-1', toolCallId: 'c', command: forged, description: 'recursive delete\b\b\b', keys: [], allowAlways: false, requestedAt: '', expiresAt: '' };

/** No character a terminal or browser would act on rather than draw (the line feed aside). */
// eslint-disable-next-line no-control-regex -- looking for control characters is the point
const HIDDEN = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/;

test('controls, invisible and bidi characters become visible escapes; line breaks and ordinary text stay', () => {
  expect(visibleText(forged)).toBe('rm -rf src .git old-output # \\r\\x1b[2K      rm -rf old-output');
  expect(visibleText(reversed)).toBe('rm -rf src # \\u202edlo-tuptuo\\u202c');
  expect(visibleText('a\u200bb\ufeffc\u2066d\u2069\x7f\x85\b\t')).toBe('a\\u200bb\\ufeffc\\u2066d\\u2069\\x7f\\x85\\b\\t');
  expect(visibleText('make test\necho "café ✓"')).toBe('make test\necho "café ✓"');
  expect(visibleText(visibleText(forged))).toBe(visibleText(forged));
});

test('the terminal prompt shows the whole command, the erase escape included', () => {
  const text = promptText(pending);
  expect(text).not.toMatch(HIDDEN);
  expect(text).toContain('rm -rf src .git old-output # \\r\\x1b[2K');
  expect(text).toContain('recursive delete\\b\\b\\b');
});

test('`pending` and the run printer show the same', () => {
  const lines = pendingLines({ ...pending, sessionId: 's1', refusedDecision: 'refused\u202e' }, (text) => text);
  expect(lines).not.toMatch(HIDDEN);
  expect(lines).toContain('\\r\\x1b[2K');
  const printed: string[] = [];
  const printer = createEventPrinter({ json: false, color: false, write: (line) => printed.push(line), redactor: createSecretRedactor({ env: {} }) });
  printer.print({ type: 'approval_pending', sessionId: 's1', approvalId: 'ap-1', command: reversed, description: 'recursive delete', choices: ['once'], expiresAt: '' });
  expect(printed.join('\n')).not.toMatch(HIDDEN);
  expect(printed.join('\n')).toContain('\\u202edlo-tuptuo');
});

test('the JSON events keep the command exactly, escaped by JSON', () => {
  const printed: string[] = [];
  const printer = createEventPrinter({ json: true, color: false, write: (line) => printed.push(line), redactor: createSecretRedactor({ env: {} }) });
  printer.print({ type: 'approval_pending', sessionId: 's1', approvalId: 'ap-1', command: forged, description: 'recursive delete', choices: ['once'], expiresAt: '' });
  expect((JSON.parse(printed[0] ?? '{}') as { command: string }).command).toBe(forged);
});

test('the Temporal UI memo and details line, the webhook payload and activity summaries are visible-safe', () => {
  const memo = JSON.stringify(pendingApprovalsMemo([{ ...pending, command: reversed, refusedDecision: '\u202e' }]));
  expect(JSON.parse(memo)).toEqual([expect.objectContaining({ command: 'rm -rf src # \\u202edlo-tuptuo\\u202c', refusedDecision: '\\u202e' })]);
  expect(awaitingApprovalDetails([{ ...pending, command: reversed }], { acceptUnsigned: false })).not.toMatch(HIDDEN);
  expect(visibleApproval(pending)).toMatchObject({ command: visibleText(forged), keys: [], approvalId: 'ap-1' });
  expect(summarizeToolCall('terminal', JSON.stringify({ command: reversed }))).not.toMatch(HIDDEN);
});
