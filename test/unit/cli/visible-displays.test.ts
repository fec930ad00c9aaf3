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
import { printMcpServers } from '../../../src/cli/commands/mcp-servers-listing';
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
  // A word of Latin letters with a look-alike from another script reads as another word: `build` for the renamed `src`.
  expect(visibleText('rm -rf bu\u0456ld s\uff52c')).toBe('rm -rf bu\\u0456ld s\\uff52c');
  expect(visibleText('echo "файл naïve Ωmega"')).toBe('echo "файл naïve \\u03a9mega"');
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

// A model (or a sub-agent, or an MCP server) writes the text `run` prints as it goes. Raw, an OSC 52
// escape would set the operator's clipboard, OSC 0 retitle the window, and a cursor-up/erase-line pair
// draw over the approval prompt already on screen.
const hostile = 'done \x1b]52;c;cm0gLXJmIH4=\x07 \x1b[1A\x1b[2K\r';

test('everything the run printer writes from a session is visible-safe, tabs in answers kept', () => {
  const printed: string[] = [];
  const printer = createEventPrinter({ json: false, color: false, write: (line) => printed.push(line), redactor: createSecretRedactor({ env: {} }) });
  const tool = { index: 0, turn: 1, callId: 'c1', name: 'delegate_task' };
  printer.print({ ...tool, type: 'tool_started', summary: hostile });
  printer.print({ ...tool, type: 'tool_finished', summary: '', ok: true, preview: hostile });
  printer.print({ ...tool, type: 'child_started', summary: hostile, sessionId: 's1-sa0', depth: 1 });
  printer.print({ ...tool, type: 'child_finished', summary: '', ok: false, preview: hostile, sessionId: 's1-sa0', depth: 1 });
  printer.print({ type: 'final', status: 'failed', answer: `func main() {\n\treturn ${hostile}\n}`, reason: hostile });
  const output = printed.join('\n');
  expect(output.replace(/\t/g, '')).not.toMatch(HIDDEN);
  expect(output).toContain('\\x1b]52;c;cm0gLXJmIH4=\\x07 \\x1b[1A\\x1b[2K\\r');
  expect(output).toContain('\n\treturn done');
});

test('`tools --mcp` shows a server’s tool names, descriptions and errors visible-safe', () => {
  const lines: string[] = [];
  const log = jest.spyOn(console, 'log').mockImplementation((line: string) => void lines.push(line));
  try {
    printMcpServers([
      { server: 'notes', enabled: true, transport: 'stdio', where: 'npx notes', tools: [{ name: `mcp__notes__x${hostile}`, requiresApproval: false, description: hostile }] },
      { server: 'down', enabled: true, transport: 'sse', where: 'http://127.0.0.1:1', error: hostile },
    ]);
  } finally {
    log.mockRestore();
  }
  expect(lines.join('\n')).not.toMatch(HIDDEN);
  expect(lines.join('\n')).toContain('\\x1b]52;c;');
});

test('the details line shows the first line of a command and says how many lines follow it', () => {
  const details = awaitingApprovalDetails([{ ...pending, command: 'rm -rf old-cache\nrm -rf src\ntrue' }], { acceptUnsigned: false });
  expect(details).toContain('`rm -rf old-cache … (+2 more lines)`');
  expect(awaitingApprovalDetails([{ ...pending, command: 'rm -rf old-cache' }], { acceptUnsigned: false })).toContain('`rm -rf old-cache`');
});
