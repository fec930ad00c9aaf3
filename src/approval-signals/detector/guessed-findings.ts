// A finding reached only by guessing that an unknown program runs its text (`notify-send "reboot
// needed"`, `say "please shutdown now"`) asks a person instead of blocking outright: the text is
// as likely a message as a command, and a hardline verdict would stop a legitimate model with no
// way to approve. Text a known program runs (`bash -c`, `ssh host`, `nc -c`, wrappers) is no guess.
import type { Analysis } from './analysis-types';
import type { RuleHit } from './rule-catalog';

/** Each hit whose every source is a guess, marked with the program guessed to run it; its key says so too. */
export function markGuesses(hits: RuleHit[], analysis: Analysis): RuleHit[] {
  const guessed = (fact: { guessedRunner?: string }) => fact.guessedRunner !== undefined;
  if (!analysis.commands.some(guessed) && !analysis.writes.some(guessed) && !analysis.reads.some(guessed)) return hits;
  return hits.map((hit) => {
    const runner = guessedRunnerOf(hit, analysis);
    return runner === undefined ? hit : { ...hit, guessedRunner: runner, canonical: `${hit.canonical} (if ${runner} runs its text)` };
  });
}

/** The program guessed to run what the hit matched, when nothing else the text runs matched it too. */
function guessedRunnerOf(hit: RuleHit, analysis: Analysis): string | undefined {
  let runner: string | undefined;
  for (const command of analysis.commands) {
    if (command.text !== hit.command) continue;
    if (command.guessedRunner === undefined) return undefined;
    runner ??= command.guessedRunner;
  }
  for (const fact of [...analysis.writes, ...analysis.reads]) {
    if (fact.command !== hit.command) continue;
    if (fact.guessedRunner === undefined) return undefined;
    runner ??= fact.guessedRunner;
  }
  return runner;
}
