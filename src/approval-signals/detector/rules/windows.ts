// Windows shells invoked from here: `cmd /c del /s /q ...`, `cmd /k rmdir /s ...`, PowerShell
// `Remove-Item -Recurse` (and its aliases) and `-EncodedCommand` payloads.
import type { ExecutedCommand } from '../analysis-types';
import type { RuleHit, RuleId } from '../rule-catalog';
import { args, canonicalWords } from './rule-helpers';
import type { Rule } from './rule-types';

const CMD_DELETES = new Set(['del', 'erase', 'rd', 'rmdir']);
const POWERSHELL_DELETES = new Set(['remove-item', 'ri', 'rm', 'del', 'erase', 'rd', 'rmdir']);

export const windowsRules: Rule = (input) => {
  const hits: RuleHit[] = [];
  for (const command of input.analysis.commands) {
    const hit = (id: RuleId) => hits.push({ id, canonical: canonicalWords(command), command: command.text });
    if (command.program === 'cmd') {
      if (cmdDeletes(command)) hit('D04');
    } else if (command.program === 'powershell' || command.program === 'pwsh') {
      const tokens = powershellTokens(command);
      if (tokens.encoded) hit('D06');
      if (tokens.recursiveDelete) hit('D05');
    }
  }
  return hits;
};

/** `cmd /c|/k del|erase ... /s|/q|/f` or `rd|rmdir ... /s`. */
function cmdDeletes(command: ExecutedCommand): boolean {
  const words = args(command).map((word) => word.raw.replace(/^(['"])(.*)\1$/s, '$2'));
  const start = words.findIndex((word) => /^\/[ck]$/i.test(word));
  if (start === -1) return false;
  const tokens = words.slice(start + 1).flatMap((word) => word.split(/\s+|&&?|\|\|?/)).filter(Boolean);
  return tokens.some((token, index) => {
    const verb = token.toLowerCase();
    if (!CMD_DELETES.has(verb)) return false;
    const switches = tokens.slice(index + 1).map((switchToken) => switchToken.toLowerCase());
    return verb === 'rd' || verb === 'rmdir' ? switches.includes('/s') : switches.some((value) => ['/s', '/q', '/f'].includes(value));
  });
}

/** Statements of a PowerShell command line: deletes with `-Recurse`, and encoded commands. */
function powershellTokens(command: ExecutedCommand): { encoded: boolean; recursiveDelete: boolean } {
  const words = args(command).map((word) => word.value);
  const encoded = words.some((word) => /^[-/](?:e|ec|en|enc|enco|encod|encode|encoded|encodedc|encodedco|encodedcom|encodedcomm|encodedcomma|encodedcomman|encodedcommand)$/i.test(word));
  const statements = words.join(' ').split(/;|\|\||&&|\n/);
  const recursiveDelete = statements.some((statement) => {
    const tokens = statement.split(/\s+/).filter(Boolean);
    const verb = tokens.findIndex((token) => POWERSHELL_DELETES.has(token.toLowerCase()));
    return verb !== -1 && tokens.slice(verb + 1).some((token) => /^-r(?:e(?:c(?:u(?:r(?:s(?:e)?)?)?)?)?)?$/i.test(token));
  });
  return { encoded, recursiveDelete };
}
