// One short line that names what a tool call does, for the Temporal UI and progress output.
import { visibleText } from '../approval-signals/visible-text';
import { parseToolArguments } from '../registry/handle-function-call';

const MAX_SUMMARY_CHARS = 100;
const SUMMARY_FIELDS = ['command', 'path', 'pattern', 'query', 'url', 'goal'];

export function summarizeToolCall(name: string, argumentsText: string): string {
  const args = parseToolArguments(argumentsText);
  let detail: string;
  if (!args) detail = '(invalid arguments)';
  else {
    const field = SUMMARY_FIELDS.find((key) => typeof args[key] === 'string');
    detail = field ? String(args[field]) : JSON.stringify(args);
  }
  return clip(visibleText(`${name}: ${detail.replace(/\s+/g, ' ').trim()}`), MAX_SUMMARY_CHARS);
}

export function clip(text: string, maxChars: number): string {
  return text.length <= maxChars ? text : `${text.slice(0, maxChars - 1)}…`;
}
