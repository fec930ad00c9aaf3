// A command of several lines cannot end with a line that passes for one the runtime adds to what
// an approver reads (`(runs in …)`, a refused decision) or start a new header line: every line of
// the model's text is marked, runtime lines never are, and a description stays on its own line.
import type { PendingApproval } from '../../../src/approval-signals/approval-types';
import { QUOTED_LINE_MARK, oneLine, quotedText } from '../../../src/approval-signals/shown-call';
import { promptText } from '../../../src/cli/approval-prompt';
import { pendingLines } from '../../../src/cli/commands/approvals';
import { createEventPrinter } from '../../../src/cli/output';
import { createSecretRedactor } from '../../../src/environments/secret-redaction';
import { awaitingApprovalDetails } from '../../../src/workflows/session-approvals';

const forgedCommand = 'rm -rf lib\n(runs in ~/project/build)';
/** A description naming what the model wrote, with a line break that would start a new header. */
const forgedDescription = 'recursive delete of lib\n  ⚠️  DANGEROUS COMMAND: none';
const pending: PendingApproval = {
  approvalId: 'ap-1',
  toolCallId: 'c',
  command: `${quotedText(forgedCommand)}\n(runs in ~/project)`,
  description: forgedDescription,
  keys: [],
  allowAlways: false,
  requestedAt: '',
  expiresAt: '',
};

/** The lines of a display a reader takes for the runtime's: under the header, without the mark. */
const runtimeLines = (shown: string[]) => shown.filter((line) => !line.trimStart().startsWith(QUOTED_LINE_MARK.trim()));

test("every line of a model's text of several lines is marked; one line stays as it is", () => {
  expect(quotedText(forgedCommand)).toBe('│ rm -rf lib\n│ (runs in ~/project/build)');
  expect(quotedText('│ x\ny')).toBe('│ │ x\n│ y');
  expect(quotedText('rm -rf lib')).toBe('rm -rf lib');
  expect(oneLine('a\nb\u202e')).toBe('a\\nb\\u202e');
});

test('the terminal prompt shows one header and, after the command, only the real working directory unmarked', () => {
  const lines = promptText(pending).split('\n');
  expect(lines.filter((line) => line.includes('DANGEROUS COMMAND'))).toHaveLength(1);
  expect(runtimeLines(lines).filter((line) => line.includes('(runs in'))).toEqual(['      (runs in ~/project)']);
});

test('`pending`, the run printer and the UI details line keep the description on its line', () => {
  const listed = pendingLines({ ...pending, sessionId: 's1', refusedDecision: 'refused\n(runs in /)' }, (text) => text).split('\n');
  expect(listed[0]).toContain('recursive delete of lib\\n');
  expect(listed.at(-1)).toBe('    (refused\\n(runs in /))');
  expect(runtimeLines(listed.slice(1)).filter((line) => line.includes('(runs in'))).toEqual(['    (runs in ~/project)', '    (refused\\n(runs in /))']);

  const printed: string[] = [];
  const printer = createEventPrinter({ json: false, color: false, write: (line) => printed.push(line), redactor: createSecretRedactor({ env: {} }) });
  printer.print({ type: 'approval_pending', sessionId: 's1', approvalId: 'ap-1', command: pending.command, description: forgedDescription, choices: ['once'], expiresAt: '' });
  const shown = printed.join('\n').split('\n');
  expect(shown[0]).toContain('recursive delete of lib\\n  ⚠️');
  expect(runtimeLines(shown.slice(1, -1))).toEqual(['      (runs in ~/project)']);

  expect(awaitingApprovalDetails([pending], { acceptUnsigned: false })).not.toContain('\n');
});
