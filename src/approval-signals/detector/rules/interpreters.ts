// Interpreter code given inline (`python -c`, `node -e`, `perl -e`, `ruby -e`, `php -r`, `julia -e`,
// `Rscript -e`, every runtime in program-names.ts) or fed through a heredoc: always asks, as the original does, and says which destructive calls it saw.
// `perl -ne`/`-pe` line filters are text processing and only flagged when the scan finds calls.
import type { ExecutedCommand } from '../analysis-types';
import { isShell } from '../program-names';
import type { RuleHit } from '../rule-catalog';
import { describeScriptInvocation } from '../script-invocations';
import { feedText } from '../stdin-feeds';
import { args, canonicalCommand, canonicalWords } from './rule-helpers';
import type { Rule } from './rule-types';

const DESTRUCTIVE_CALLS =
  /\b(?:shutil\.rmtree|os\.(?:remove|unlink|rmdir|removedirs|system|popen|exec\w*|spawn\w*|kill)|subprocess|pty\.spawn|fs\.(?:rm|rmdir|unlink)(?:Sync)?|rmSync|rmdirSync|unlinkSync|child_process|execSync|execFileSync|spawnSync|spawn|FileUtils\.rm\w*|File\.delete|Dir\.rmdir|unlink|rmtree|shell_exec|passthru|proc_open|popen|system|exec|File\.rm\w*|file\.remove|os:cmd|System\.cmd|file:del_dir_r|delete-directory(?:\/files)?|deleteDir)\b\s*[.(]?|`[^`]+`|%x[({[]|qx[({[/]/g;

/** The destructive calls in `code`, for the rule description (at most three). */
export function destructiveCalls(code: string): string[] {
  const found = [...code.matchAll(DESTRUCTIVE_CALLS)].map((match) => match[0].replace(/\s*[.(]$/, '').replace(/^`.*`$/s, 'backquote command'));
  return [...new Set(found)].slice(0, 3);
}

const AWK = new Set(['awk', 'gawk', 'mawk', 'nawk']);

export const interpreterRules: Rule = (input) => {
  const hits: RuleHit[] = [];
  for (const command of input.analysis.commands) {
    if (command.program === null) continue;
    if (AWK.has(command.program)) {
      hits.push(...awkHits(command));
      continue;
    }
    const invocation = describeScriptInvocation(command.program, args(command));
    if (!invocation || command.program === 'source') continue;
    const source = invocation.source;
    if (source.mode === 'inline' && !isShell(command.program)) {
      const calls = destructiveCalls(source.code.map((word) => word.guess ?? word.value).join('\n'));
      if (!source.filter || calls.length) hits.push(scriptHit(command, 'D26', calls));
    } else if (source.mode === 'stdin' && (command.stdin?.kind === 'heredoc' || command.stdin?.kind === 'herestring') && !isShell(command.program)) {
      const calls = destructiveCalls(feedText(command.stdin) ?? '');
      hits.push(scriptHit(command, 'D62', command.stdin.kind === 'herestring' ? ['here-string', ...calls] : calls));
    }
  }
  return hits;
};

function scriptHit(command: ExecutedCommand, id: 'D26' | 'D62', calls: string[]): RuleHit {
  const destructive = calls.filter((call) => call !== 'here-string');
  const detail = [calls.includes('here-string') ? 'here-string' : '', destructive.length ? `destructive calls found: ${destructive.join(', ')}` : ''].filter(Boolean).join('; ');
  // Destructive code gets its own key, so approving harmless `python -c` code never covers it.
  const fed = id === 'D62' ? ` <<< ${(feedText(command.stdin) ?? '').trim().replace(/\s+/g, ' ')}` : '';
  const canonical = `${canonicalWords(command)}${fed}${destructive.length ? ' #destructive' : ''}`;
  return { id, canonical, command: command.text, ...(detail ? { detail } : {}) };
}

/** awk's `system()`, `print | "cmd"` and gawk's two-way `|&` (to a command, or a `/inet/` connection) run shell commands. */
function awkHits(command: ExecutedCommand): RuleHit[] {
  const words = args(command);
  const program = words.find((word, index) => !word.value.startsWith('-') && !['-v', '-f', '-F'].includes(words[index - 1]?.value ?? ''));
  if (!program || !/\bsystem\s*\(|\|\s*&?\s*"|\|&|\|\s*getline|"\s*\|\s*getline/.test(program.value)) return [];
  return [{ id: 'N08', canonical: canonicalCommand(command, [command.program ?? 'awk', program.value]), command: command.text }];
}
