// Asks the person at the terminal about each pending approval of a session, one at a time, and
// sends the answer, signed, as the `decideApproval` update. Enter (or anything unexpected) denies.
import { createInterface, type Interface } from 'node:readline/promises';
import type { ApprovalChoice, ApprovalDecision, PendingApproval } from '../approval-signals/approval-types';
import { decideApprovalUpdate } from '../approval-signals/definitions';
import { visibleText } from '../approval-signals/visible-text';
import { oneLine } from '../approval-signals/shown-call';
import { redactFormats } from '../environments/secret-redaction';
import type { SessionHandle } from '../temporal/sessions';

/** Without this machine's variables, well-known formats, where they hide no more than a plain token. */
const formatsShownSafely = (text: string): string => redactFormats(text, { plainTokensOnly: true });

const ANSWERS: Record<string, ApprovalChoice> = { o: 'once', once: 'once', s: 'session', session: 'session', a: 'always', always: 'always' };

/** The choice typed at the prompt; `always` only where offered; everything else denies. */
export function parseAnswer(answer: string, pending: Pick<PendingApproval, 'allowAlways' | 'smartDenied'>): ApprovalChoice {
  const typed = answer.trim().toLowerCase();
  // Own names only: `constructor` typed at the prompt is no answer, so it denies.
  const choice = Object.hasOwn(ANSWERS, typed) ? ANSWERS[typed]! : 'deny';
  if (pending.smartDenied) return choice === 'once' ? 'once' : 'deny';
  if (choice === 'always' && !pending.allowAlways) return 'session';
  return choice;
}

/**
 * The prompt for one approval; `redact` hides this machine's secrets in the command (the worker
 * hid its own), as SecretRedactor.redactForApproval does, so no format hides what runs.
 */
export function promptText(pending: PendingApproval, redact: (text: string) => string = formatsShownSafely): string {
  const options = pending.smartDenied
    ? ['[o]nce  |  [d]eny', 'Choice [o/D]: ']
    : pending.allowAlways
      ? ['[o]nce  |  [s]ession  |  [a]lways  |  [d]eny', 'Choice [o/s/a/D]: ']
      : ['[o]nce  |  [s]ession  |  [d]eny', 'Choice [o/s/D]: '];
  // Shown as it is, not as the terminal would draw it: no control character can overwrite a line.
  const command = visibleText(redact(pending.command)).split('\n').map((line) => `      ${line}`).join('\n');
  return `\n  ⚠️  DANGEROUS COMMAND: ${oneLine(pending.description)}\n${command}\n\n      ${options[0]}\n      ${options[1]}`;
}

export class ApprovalPrompter {
  private readonly seen = new Set<string>();
  private readonly queue: PendingApproval[] = [];
  private current?: { approvalId: string; abort: AbortController };
  private running = false;
  private readline?: Interface;

  constructor(
    private readonly handle: SessionHandle,
    /** Turns the typed answer into a decision signed by the approver key. */
    private readonly signAnswer: (pending: PendingApproval, choice: ApprovalChoice) => ApprovalDecision,
    private readonly write: (text: string) => void = (text) => process.stdout.write(text),
    private readonly redact: (text: string) => string = formatsShownSafely,
  ) {}

  /** Call with the session's pending approvals whenever they are known. */
  offer(pending: PendingApproval[]): void {
    const ids = new Set(pending.map((approval) => approval.approvalId));
    if (this.current && !ids.has(this.current.approvalId)) this.current.abort.abort();
    for (const approval of pending) {
      if (this.seen.has(approval.approvalId)) continue;
      this.seen.add(approval.approvalId);
      this.queue.push(approval);
    }
    if (!this.running) void this.drain();
  }

  close(): void {
    this.current?.abort.abort();
    this.readline?.close();
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      for (let approval = this.queue.shift(); approval; approval = this.queue.shift()) await this.ask(approval);
    } finally {
      this.running = false;
    }
  }

  private async ask(approval: PendingApproval): Promise<void> {
    if (!this.readline) {
      this.readline = createInterface({ input: process.stdin, output: process.stdout, terminal: true });
      // In raw mode Ctrl+C reaches readline, not the process: pass it on to whoever handles SIGINT.
      this.readline.on('SIGINT', () => process.kill(process.pid, 'SIGINT'));
    }
    const abort = new AbortController();
    this.current = { approvalId: approval.approvalId, abort };
    let answer: string;
    try {
      answer = await this.readline.question(promptText(approval, this.redact), { signal: abort.signal });
    } catch {
      this.write('      (decided elsewhere)\n');
      return;
    } finally {
      this.current = undefined;
    }
    const choice = parseAnswer(answer, approval);
    try {
      const result = await this.handle.executeUpdate(decideApprovalUpdate, { args: [this.signAnswer(approval, choice)] });
      const labels: Record<ApprovalChoice, string> = {
        once: '✓ Allowed once',
        session: '✓ Allowed for this session',
        always: '✓ Added to permanent allowlist',
        deny: '✗ Denied',
      };
      this.write(`      ${labels[result.applied]}\n`);
    } catch (error) {
      this.write(`      Could not record the decision: ${(error as Error).message}\n`);
    }
  }
}
