// Redirections: files written (`>`, `>>`, `&>`, `>|`), stdin sources (`<`, `<(...)`, heredocs,
// here-strings) and the commands that continue after a heredoc start (`cat <<EOF | sh`).
import type { ShellWord, StdinFeed } from './analysis-types';
import type { SyntaxNode } from './shell-parser';
import { buildWord, fieldWords } from './shell-words';
import type { Scope } from './walk-scope';
import type { WalkerApi } from './walker-api';

const WRITE_OPERATORS = new Set(['>', '>>', '>|', '&>', '&>>', '<>']);

export interface RedirectEffects {
  stdin?: StdinFeed;
  /** Pipelines or lists written after a heredoc start, to run after the command. */
  continuations: SyntaxNode[];
}

export function applyRedirects(api: WalkerApi, redirects: readonly SyntaxNode[], scope: Scope, commandText: string): RedirectEffects {
  const effects: RedirectEffects = { continuations: [] };
  for (const redirect of redirects) {
    if (redirect.type === 'file_redirect') applyFileRedirect(api, redirect, scope, commandText, effects);
    else if (redirect.type === 'herestring_redirect') {
      const target = redirect.namedChildren.at(-1);
      if (!target) continue;
      const word = buildWord(target, api.wordHooks(scope));
      const known = word.literal || word.guess !== undefined;
      effects.stdin = { kind: 'herestring', text: `${word.guess ?? word.value}\n`, literal: known, word };
    } else if (redirect.type === 'heredoc_redirect') applyHeredoc(api, redirect, scope, commandText, effects);
  }
  return effects;
}

function applyFileRedirect(api: WalkerApi, redirect: SyntaxNode, scope: Scope, commandText: string, effects: RedirectEffects): void {
  const operator = redirect.children.find((child) => !child.isNamed)?.type ?? '>';
  const destinationNode = redirect.childForFieldName('destination') ?? redirect.namedChildren.at(-1);
  if (!destinationNode || destinationNode.type === 'file_descriptor') return;
  const destination = buildWord(destinationNode, api.wordHooks(scope));
  // Bash expands a target's braces too: `> /{e..e}tc/hosts` writes /etc/hosts (more than one word
  // is an error, but each is judged).
  if (operator === '<') {
    effects.stdin = destinationNode.type === 'process_substitution' ? { kind: 'process-substitution', word: destination } : { kind: 'file', word: destination };
    if (destinationNode.type !== 'process_substitution') {
      for (const target of fieldWords(destination)) for (const cwd of possibleCwds(scope)) api.analysis.reads.push({ target, cwd, command: commandText, ...guessMark(scope) });
    }
    return;
  }
  const duplicatesDescriptor = (operator === '>&' || operator === '<&') && /^(?:\d+-?|-)$/.test(destination.value);
  if (!WRITE_OPERATORS.has(operator) && !(operator === '>&' && !duplicatesDescriptor)) return;
  for (const target of fieldWords(destination)) recordWrite(api, target, scope, commandText, operator);
}

export function recordWrite(api: WalkerApi, target: ShellWord, scope: Scope, commandText: string, operator: string): void {
  for (const cwd of possibleCwds(scope)) api.analysis.writes.push({ via: 'redirect', target, cwd, command: commandText, program: operator, wrappers: scope.wrappers, ...guessMark(scope) });
}

function guessMark(scope: Scope): { guessedRunner?: string } {
  return scope.guessedRunner === undefined ? {} : { guessedRunner: scope.guessedRunner };
}

/** The folder the shell is in, and those a failed `cd` may have left it in. */
function possibleCwds(scope: Scope): (string | null)[] {
  return [scope.cwd, ...(scope.cwdFallbacks ?? [])];
}

function applyHeredoc(api: WalkerApi, redirect: SyntaxNode, scope: Scope, commandText: string, effects: RedirectEffects): void {
  const start = redirect.children.find((child) => child.type === 'heredoc_start')?.text ?? '';
  const body = redirect.children.find((child) => child.type === 'heredoc_body');
  const quoted = /['"\\]/.test(start);
  // In an unquoted heredoc, `$(...)` and backquotes run in the outer shell.
  if (body && !quoted) for (const child of body.namedChildren) api.visit(child, scope);
  let text = body?.text ?? '';
  if (redirect.children.some((child) => child.type === '<<-')) text = text.replace(/^\t+/gm, '');
  const literal = quoted || !body?.namedChildren.some((child) => child.type !== 'heredoc_content');
  effects.stdin = { kind: 'heredoc', text, literal };
  for (const child of redirect.namedChildren) {
    if (child.type === 'file_redirect') applyFileRedirect(api, child, scope, commandText, effects);
    else if (child.type === 'herestring_redirect' || child.type === 'heredoc_redirect') continue;
    else if (!['heredoc_start', 'heredoc_body', 'heredoc_end'].includes(child.type)) effects.continuations.push(child);
  }
}
