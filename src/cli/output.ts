// How the CLI shows a session: human lines with tool emoji as tools run, or newline-delimited
// JSON events (`--json`) for programs. Either way, secrets in commands and previews are hidden.
import { createSecretRedactor, type SecretRedactor } from '../environments/secret-redaction';
import { visibleStrings, visibleText } from '../approval-signals/visible-text';
import { oneLine } from '../approval-signals/shown-call';
import type { ToolEvent } from '../workflows/session-types';
import type { FollowEvent } from './follow-session';
import { plural } from './plural';

export interface SessionStartedEvent {
  type: 'session_started';
  sessionId: string;
  workflowId: string;
  uiUrl?: string;
}

export interface ApprovalPendingEvent {
  type: 'approval_pending';
  sessionId: string;
  approvalId: string;
  command: string;
  description: string;
  choices: string[];
  expiresAt: string;
}

export type CliEvent = SessionStartedEvent | ApprovalPendingEvent | FollowEvent;

export interface EventPrinter {
  print(event: CliEvent): void;
  /** A human note (suppressed in JSON mode, where stdout carries only events). */
  note(message: string): void;
}

const RESET = '\x1b[0m';
const style = (code: string, text: string, color: boolean) => (color ? `\x1b[${code}m${text}${RESET}` : text);

export function createEventPrinter(options: {
  json: boolean;
  write?: (line: string) => void;
  emojiFor?: (tool: string) => string;
  color?: boolean;
  /** Hides secrets in every event (commands, summaries, previews); well-known formats only when not given. */
  redactor?: Pick<SecretRedactor, 'redactValue' | 'redactForApproval'>;
}): EventPrinter {
  const write = options.write ?? ((line: string) => process.stdout.write(`${line}\n`));
  const redactor = options.redactor ?? createSecretRedactor();
  // A command waiting for approval is shown as it will run (see SecretRedactor.redactForApproval).
  const redactEvent = (event: CliEvent): CliEvent =>
    event.type === 'approval_pending' ? { ...redactor.redactValue(event), command: redactor.redactForApproval(event.command) } : redactor.redactValue(event);
  if (options.json) {
    return {
      print: (event) => write(JSON.stringify(toJsonEvent(redactEvent(event)))),
      note: (message) => process.stderr.write(`${message}\n`),
    };
  }
  const color = options.color ?? Boolean(process.stdout.isTTY);
  const emoji = options.emojiFor ?? (() => '⚡');
  return {
    note: (message) => write(message),
    print(raw) {
      // Shown, never interpreted: every field may hold a model's (or a sub-agent's) text.
      const event = visibleStrings(redactEvent(raw));
      switch (event.type) {
        case 'session_started':
          write(`${style('1', '▶ Session', color)} ${event.sessionId} (workflow ${event.workflowId})`);
          if (event.uiUrl) write(`  Web UI: ${event.uiUrl}`);
          break;
        case 'approval_pending':
          write(`  ${style('33;1', '⏸ approval needed', color)} ${event.approvalId}: ${oneLine(event.description)}`);
          write(`      ${visibleText(event.command).split('\n').join('\n      ')}`);
          write(
            `      answer with: hermes-temporal approve ${event.sessionId} ${event.approvalId} [--session|--always]` +
              `  or  hermes-temporal deny ${event.sessionId} ${event.approvalId} (until ${event.expiresAt})`,
          );
          break;
        case 'tool_started':
          write(`${indentOf(event)}${emoji(event.name)} ${event.summary}`);
          break;
        case 'tool_finished': {
          const mark = event.ok ? style('32', '✓', color) : style('31', '✗', color);
          const seconds = ((event.durationMs ?? 0) / 1000).toFixed(1);
          write(`${indentOf(event)}${mark} ${event.name} ${style('2', `${seconds}s`, color)} → ${event.preview ?? ''}`);
          break;
        }
        case 'child_started':
          write(`${indentOf(event)}${emoji('delegate_task')} sub-agent ${event.callId} started: ${event.summary}`);
          break;
        case 'child_finished': {
          const mark = event.ok ? style('32', '✓', color) : style('31', '✗', color);
          const seconds = ((event.durationMs ?? 0) / 1000).toFixed(1);
          write(`${indentOf(event)}${mark} sub-agent ${event.callId} ${style('2', `${seconds}s`, color)} → ${event.preview ?? ''}`);
          break;
        }
        case 'final': {
          const ok = event.status === 'completed';
          const counts = event.turns !== undefined ? ` after ${plural(event.turns, 'turn')} and ${plural(event.toolCalls ?? 0, 'tool call')}` : '';
          write(style(ok ? '32;1' : '31;1', `${ok ? '✔' : '✘'} ${event.status}${counts}`, color));
          if (event.reason) write(`  ${event.reason}`);
          if (event.answer) write(`\n${event.answer}`);
          break;
        }
      }
    },
  };
}

/** Sub-agents' lines sit under their parent's, two spaces deeper per level. */
function indentOf(event: ToolEvent): string {
  const depth = 'depth' in event && typeof event.depth === 'number' ? event.depth : 0;
  return '  '.repeat(1 + depth * 2);
}

/** The wire shape of `--json` events: a sub-agent's carry `session_id` and `depth`; child events name the child. */
function toJsonEvent(event: CliEvent): Record<string, unknown> {
  if (event.type === 'child_started' || event.type === 'child_finished') {
    const { index: _index, callId, name: _name, sessionId, depth, ...rest } = event as ToolEvent & { sessionId?: string; depth?: number };
    return { ...rest, child_session_id: callId, ...(sessionId ? { session_id: sessionId, depth } : {}) };
  }
  if (event.type === 'tool_started' || event.type === 'tool_finished') {
    const { index: _index, sessionId, depth, ...rest } = event as ToolEvent & { sessionId?: string; depth?: number };
    return { ...rest, ...(sessionId ? { session_id: sessionId, depth } : {}) };
  }
  return { ...event };
}
