// What a session or "always" approval of a rule hit covers: the command where it ran, never the
// same words elsewhere. A rule's canonical text leaves out where its command runs (`git clean -fdx`
// cleans the folder it is started in) and what it reads at run time (`xargs rm -rf` deletes what
// its input lists), so the key names the folders, and a hit whose command takes its targets from
// run-time input, or a delete beside commands that could make its target a link, is marked
// `once`: approving it never approves a later call.
import type { Analysis, ExecutedCommand, ShellWord } from './analysis-types';
import { displayPath } from './paths';
import { runsReadOnly } from './read-only-programs';
import type { RuleHit } from './rule-catalog';
import type { RuleContext } from './rules/rule-types';

/** Each hit with the folders its commands run in appended to its key, and `once` where its input is open. */
export function scopeHits(hits: readonly RuleHit[], analysis: Analysis, context: RuleContext): RuleHit[] {
  return hits.map((hit) => {
    const sources = analysis.commands.filter((command) => command.text === hit.command);
    const folders = sources.length ? sources.map((command) => command.cwd) : cwdsOfOtherFacts(hit, analysis);
    const known = folders.filter((folder): folder is string => folder !== null);
    const shown = [...new Set((known.length ? known : [context.cwd]).map((folder) => displayPath(folder, context.home)))].sort();
    // A delete's folder can be swapped for a link by another command of the same text, after the gate looked.
    const open = folders.includes(null) || sources.some(takesRunTimeInput) || (hit.targets !== undefined && changesPathsBeside(sources, analysis));
    return { ...hit, canonical: `${hit.canonical} @ ${shown.join(' ')}`, ...(open ? { once: true } : {}) };
  });
}

/** Programs that make, remove or change files but never a link or a move: `mkdir -p cache && rm -rf cache` stays one grant. */
const MAKE_NO_LINKS = new Set(['cd', 'mkdir', 'touch', 'rm', 'rmdir']);

/** Whether another command of the text than `sources` may make a path a link (anything but a look or the programs above). */
function changesPathsBeside(sources: readonly ExecutedCommand[], analysis: Analysis): boolean {
  return analysis.commands.some(
    (command) => !command.host && !sources.includes(command) && !(command.program !== null && MAKE_NO_LINKS.has(command.program) && !command.guessed) && !runsReadOnly(command),
  );
}

/** Writes and reads found outside a command's own words (`> file`) carry their folder too. */
function cwdsOfOtherFacts(hit: RuleHit, analysis: Analysis): (string | null)[] {
  return [...analysis.writes, ...analysis.reads].filter((fact) => fact.command === hit.command).map((fact) => fact.cwd);
}

/** Arguments appended at run time, words that expand, or input other than literal text. */
function takesRunTimeInput(command: ExecutedCommand): boolean {
  if (command.extraArgsUnknown || command.argv.some(expands)) return true;
  const stdin = command.stdin;
  if (!stdin) return false;
  return stdin.kind === 'heredoc' || stdin.kind === 'herestring' ? !stdin.literal : true;
}

function expands(word: ShellWord): boolean {
  return word.variables.length > 0 || word.substitutions.length > 0;
}
