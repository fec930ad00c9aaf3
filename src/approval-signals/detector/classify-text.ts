// One classification: parse, walk, run the rules, and do the same for the text as a terminal
// would display it (ANSI escapes, NUL and compatibility characters removed) and, when the shell
// cannot parse it, with unquoted brace words expanded; those variants can only add rules.
import type { ClassifyContext, CommandVerdict } from '../verdict';
import { emptyAnalysis, type Analysis } from './analysis-types';
import { expandBraces } from './brace-expansion';
import { CommandWalker } from './command-walker';
import { joinLineContinuations, normaliseForDisplay } from './normalise-input';
import { normaliseContextPath } from './paths';
import { RULE_CATALOG, type RuleHit } from './rule-catalog';
import { runRules } from './rules';
import { scopeHits } from './approval-scope';
import { markGuesses } from './guessed-findings';
import type { RuleContext } from './rules/rule-types';
import { withParsedShell, type SyntaxNode } from './shell-parser';
import { buildVerdict, failureVerdict } from './verdict-builder';
import { MAX_ANALYSED_TEXT_CHARS } from './analysed-text-limit';

interface TextAnalysis {
  analysis: Analysis;
  hits: RuleHit[];
  parseError?: string;
}

export function classifyText(command: string, context: ClassifyContext): CommandVerdict {
  if (command.length > MAX_ANALYSED_TEXT_CHARS) return failureVerdict(command, `command longer than ${MAX_ANALYSED_TEXT_CHARS} characters`);
  const ruleContext = normaliseContext(context);
  const text = joinLineContinuations(command);
  const main = analyseText(text, ruleContext);
  const hits = [...main.hits];
  if (main.parseError !== undefined) hits.push({ id: 'U01', canonical: text.trim().replace(/\s+/g, ' '), command: text, detail: main.parseError });
  const variants = new Set<string>();
  // Plain printable ASCII displays as itself: skip the normalisation work.
  const display = /^[\t\n\r\x20-\x7e]*$/.test(command) ? text : joinLineContinuations(normaliseForDisplay(command));
  if (display !== text) variants.add(display);
  if (main.parseError !== undefined) {
    const expanded = expandBraceWords(text);
    if (expanded.text !== text) variants.add(expanded.text);
    if (expanded.cut) hits.push({ id: 'U04', canonical: text.trim().replace(/\s+/g, ' '), command: text, detail: 'brace expansion past what is judged' });
  }
  for (const variant of variants) {
    const extra = analyseText(variant, ruleContext).hits.filter((hit) => ['hardline', 'dangerous'].includes(RULE_CATALOG[hit.id].tier));
    hits.push(...extra);
  }
  return buildVerdict(command, main.analysis, hits, main.parseError ?? main.analysis.parseErrors[0]);
}

/** The walker's analysis of a text, without the rules (for questions other than danger). */
export function analyseCommandText(command: string, context: ClassifyContext): { analysis: Analysis; parseError?: string } {
  const analysis = emptyAnalysis();
  const home = normaliseContextPath(context.home);
  const parseError = withParsedShell(joinLineContinuations(command), (root) => {
    new CommandWalker(analysis, home).visit(root, { cwd: normaliseContextPath(context.cwd), vars: new Map(), wrappers: [], layers: [], depth: 0, background: false });
    return root.hasError ? describeParseError(root) : undefined;
  });
  return parseError === undefined ? { analysis } : { analysis, parseError };
}

function analyseText(text: string, context: RuleContext): TextAnalysis {
  const analysis = emptyAnalysis();
  const parseError = withParsedShell(text, (root) => {
    const walker = new CommandWalker(analysis, context.home);
    walker.visit(root, { cwd: context.cwd, vars: new Map(), wrappers: [], layers: [], depth: 0, background: false });
    return root.hasError ? describeParseError(root) : undefined;
  });
  const hits = scopeHits(markGuesses(runRules({ analysis, context }), analysis), analysis, context);
  return parseError === undefined ? { analysis, hits } : { analysis, hits, parseError };
}

/** The context with every path normalised, as the rules read it. */
export function normaliseContext(context: ClassifyContext): RuleContext {
  return {
    backend: context.backend,
    cwd: normaliseContextPath(context.cwd),
    workspaceRoot: normaliseContextPath(context.workspaceRoot),
    home: normaliseContextPath(context.home),
    protectedFiles: context.protectedFiles.map(normaliseContextPath),
  };
}

function describeParseError(root: SyntaxNode): string {
  const stack: SyntaxNode[] = [root];
  while (stack.length) {
    const node = stack.pop()!;
    if (node.type === 'ERROR' || node.isMissing) {
      const near = node.text.slice(0, 40).replace(/\s+/g, ' ');
      return `shell syntax error at line ${node.startPosition.row + 1}${near ? ` near "${near}"` : ''}`;
    }
    for (let index = node.childCount - 1; index >= 0; index--) {
      const child = node.child(index);
      if (child?.hasError || child?.isMissing) stack.push(child);
    }
  }
  return 'shell syntax error';
}

/**
 * Unquoted words with braces, expanded as bash would: `{rm,-rf,/}` or `{r..r}m -rf /` at a command
 * position do not parse, but bash runs them as `rm -rf /`. `cut` when words were left unexpanded:
 * past 64 words of one, or past the length the detector reads in all (each word can make 64).
 */
function expandBraceWords(text: string): { text: string; cut: boolean } {
  let cut = false;
  let length = text.length;
  // Split at what ends a word: a pattern over the whole text would backtrack on long words.
  const pieces = text.split(/([\s;&|()`<>]+)/).map((piece) => {
    if (cut || !piece.includes('{') || !/^[^\s;&|()`<>'"\\$]*$/.test(piece)) return piece;
    const expanded = expandBraces(piece, undefined, () => (cut = true))?.join(' ') ?? piece;
    length += expanded.length - piece.length;
    if (length <= MAX_ANALYSED_TEXT_CHARS) return expanded;
    cut = true;
    return piece;
  });
  return { text: pieces.join(''), cut };
}
