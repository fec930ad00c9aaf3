// A long call's display is cut to what a prompt can hold, and the part the gate asks about may lie
// past the cut, behind pages of harmless text that seem to explain the prompt. Each such part is
// named on a line of the runtime's own after the cut, so a person never approves what they did not see.
import type { MatchedRule } from './verdict';

/** The rules a person is asked about (hardline ones are refused whatever the answer). */
const ASKED: ReadonlySet<MatchedRule['tier']> = new Set(['dangerous', 'unknown']);

/**
 * One line for each rule asked about whose command does not appear in `shown` (the display as cut),
 * most severe first, the command made readable by `readable` (redacted, visible-safe).
 */
export function unshownParts(shown: string, rules: readonly MatchedRule[], readable: (text: string) => string): string[] {
  const lines: string[] = [];
  for (const rule of rules) {
    if (!ASKED.has(rule.tier)) continue;
    const command = readable(rule.command);
    if (command.trim() === '' || shown.includes(command)) continue;
    const line = `(asked about, past what is shown: ${command})`;
    if (!lines.includes(line)) lines.push(line);
  }
  return lines;
}
