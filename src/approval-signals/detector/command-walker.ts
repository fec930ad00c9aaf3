// Walks a parsed shell text and records every command it would execute: lists, pipelines,
// subshells, groups, substitutions, control flow, function bodies, heredoc continuations, and
// the shell text handed to `bash -c`/`eval`/`ssh` (parsed again, depth-limited).
import type { Analysis, ExecutedCommand, Invocation, Substitution, UnknownFact } from './analysis-types';
import { applyRedirects } from './redirects';
import { judgeAssignment, walkSimpleCommand } from './simple-command';
import { withParsedShell, type SyntaxNode } from './shell-parser';
import { buildWord, type WordHooks } from './shell-words';
import { executeFedText, knownOutput } from './stdin-feeds';
import { turnsOnErrexit } from './directory-changes';
import { arithmeticAssigns, mayChangeVariables } from './variable-changes';
import { childScope, nestedScope, type Scope } from './walk-scope';
import type { WalkerApi } from './walker-api';
import { assignedTexts } from './deferred-code';

const LIMITS = { reparseDepth: 6, nesting: 150, commands: 400 };

export class CommandWalker implements WalkerApi {
  private nesting = 0;
  private readonly reported = new Set<string>();
  /** Redirections the tree hung on a whole list or pipeline, by the id of the command bash gives them to. */
  private readonly trailing = new Map<number, { redirects: SyntaxNode[]; statement: SyntaxNode }>();
  /** After a nameref is declared, assigning one name may change another: no value is known. */
  private namerefs = false;

  /** Every name assigned so far, in order ('*': any): what a region of the text may have changed. */
  private readonly assigned: string[];

  constructor(
    readonly analysis: Analysis,
    readonly home: string,
  ) {
    this.assigned = analysis.assigned;
  }

  visit(node: SyntaxNode, scope: Scope): ExecutedCommand[] {
    if (this.nesting >= LIMITS.nesting || this.analysis.commands.length >= LIMITS.commands) {
      this.unknown('U04', node.text);
      return [];
    }
    this.nesting++;
    try {
      return this.dispatch(node, scope);
    } finally {
      this.nesting--;
    }
  }

  private dispatch(node: SyntaxNode, scope: Scope): ExecutedCommand[] {
    switch (node.type) {
      case 'command': {
        const trailing = this.trailing.get(node.id);
        this.trailing.delete(node.id);
        return walkSimpleCommand(this, node, scope, trailing?.redirects ?? [], trailing?.statement);
      }
      case 'redirected_statement':
        return this.visitRedirected(node, scope);
      case 'pipeline':
        return this.visitPipeline(node, scope);
      case 'subshell':
        return this.visitSequence(node, childScope(scope));
      case 'function_definition':
        return this.visitFunction(node, scope);
      case 'variable_assignment':
        this.assign(node, scope);
        return [];
      case 'if_statement':
      case 'case_statement':
        return this.visitMaybe(scope, () => this.visitSequence(node, scope));
      case 'while_statement':
      case 'until_statement':
      case 'for_statement':
      case 'c_style_for_statement':
        return this.visitLoop(node, scope);
      case 'list':
        return this.visitList(node, scope);
      case 'declaration_command':
        return this.visitDeclaration(node, scope);
      case 'unset_command':
        this.forget('*', scope);
        return this.visitSequence(node, scope);
      case 'compound_statement':
      case 'arithmetic_expansion':
        if (node.type === 'arithmetic_expansion' || node.firstChild?.type === '((') {
          if (arithmeticAssigns(node.text)) this.forget('*', scope);
        }
        return this.visitSequence(node, scope);
      case 'command_substitution':
      case 'process_substitution':
        this.substitution(node, scope);
        return [];
      case 'comment':
      case 'heredoc_body':
        return [];
      default:
        return this.visitSequence(node, scope);
    }
  }

  /** Children in order (so `cd` is followed); a child followed by `&` runs in the background. */
  private visitSequence(node: SyntaxNode, scope: Scope): ExecutedCommand[] {
    const commands: ExecutedCommand[] = [];
    const children = node.children;
    for (let index = 0; index < children.length; index++) {
      const child = children[index]!;
      if (!child.isNamed) continue;
      const background = children[index + 1]?.type === '&';
      const childScopeFor = background ? { ...childScope(scope), background: true } : scope;
      commands.push(...this.visit(child, childScopeFor));
    }
    return commands;
  }

  /**
   * `declare`, `export`, `local`...: with an option the values are not the text (`-i` computes,
   * `-u` capitalises, `-a` makes arrays), and after `-n` one name may stand for another.
   */
  private visitDeclaration(node: SyntaxNode, scope: Scope): ExecutedCommand[] {
    const options = node.namedChildren.filter((child) => child.type === 'word' && child.text.startsWith('-')).map((child) => child.text);
    if (options.some((option) => /^-[a-zA-Z]*n/.test(option))) {
      this.namerefs = true;
      this.forget('*', scope);
    }
    const start = this.assigned.length;
    const commands = this.visitSequence(node, scope);
    if (options.length) this.forgetAll(this.assigned.slice(start), scope);
    return commands;
  }

  /**
   * `a && b || c`: what follows an operator may not run. What `&&` runs comes after every part
   * before it succeeded, each `cd` among them included; after `cd x || exit` the text goes on
   * only if the `cd` did.
   */
  private visitList(node: SyntaxNode, scope: Scope): ExecutedCommand[] {
    const commands: ExecutedCommand[] = [];
    let operator: string | undefined;
    let onlyAnd = true;
    /** The other folders the shell may be in if every part so far succeeded. */
    let ifSucceeded: readonly (string | null)[] = [];
    for (const child of node.children) {
      if (child.type === '&&' || child.type === '||') operator = child.type;
      if (operator === '||') onlyAnd = false;
      if (!child.isNamed || child.type === 'comment') continue;
      const afterLeft = { cwd: scope.cwd, fallbacks: scope.cwdFallbacks ?? [], ifSucceeded };
      if (operator === '&&') scope.cwdFallbacks = ifSucceeded;
      scope.cdSucceeded = undefined;
      commands.push(...(operator ? this.visitMaybe(scope, () => this.visit(child, scope)) : this.visit(child, scope)));
      // A command or list tells where its own success leaves the shell (set by a `cd` it ends with).
      const told = child.type === 'command' || child.type === 'list' ? scope.cdSucceeded : undefined;
      ifSucceeded = told ?? scope.cwdFallbacks ?? [];
      if (!operator) continue;
      const stops = operator === '||' && child.type === 'command' && /^(?:exit|return)\b/.test(child.text);
      const mayBe = stops ? afterLeft.ifSucceeded : [...afterLeft.fallbacks, afterLeft.cwd, ...(scope.cwdFallbacks ?? [])];
      scope.cwdFallbacks = [...new Set(mayBe)].filter((cwd) => cwd !== scope.cwd);
      if (stops) ifSucceeded = scope.cwdFallbacks;
    }
    scope.cdSucceeded = onlyAnd ? ifSucceeded : undefined;
    return commands;
  }

  /** Code that may or may not run (a branch, what follows `&&`): a name it assigns is unknown after it. */
  private visitMaybe(scope: Scope, walk: () => ExecutedCommand[]): ExecutedCommand[] {
    const start = this.assigned.length;
    const commands = walk();
    this.forgetAll(this.assigned.slice(start), scope);
    return commands;
  }

  /**
   * A loop body runs again after its own assignments, and its variable takes values the walker
   * does not follow: no value is known inside it, and those it assigns are unknown after it.
   */
  private visitLoop(node: SyntaxNode, scope: Scope): ExecutedCommand[] {
    const before = new Map(scope.vars);
    const start = this.assigned.length;
    const variable = node.type === 'for_statement' ? node.childForFieldName('variable')?.text : undefined;
    if (variable) this.assigned.push(variable);
    scope.vars.clear();
    const commands = this.visitSequence(node, scope);
    const changed = this.assigned.slice(start);
    scope.vars.clear();
    if (!changed.includes('*')) for (const [name, value] of before) if (!changed.includes(name)) scope.vars.set(name, value);
    return commands;
  }

  private forgetAll(names: readonly string[], scope: Scope): void {
    if (names.includes('*')) scope.vars.clear();
    else for (const name of names) scope.vars.delete(name);
  }

  private forget(name: string, scope: Scope): void {
    this.assigned.push(name);
    this.forgetAll([name], scope);
  }

  commandRan(command: ExecutedCommand, scope: Scope): void {
    if (turnsOnErrexit(command)) scope.errexit = true;
    const functions = new Set(this.analysis.functions.map((definition) => definition.name.toLowerCase()));
    if (mayChangeVariables(command, functions)) this.forget('*', scope);
  }

  private visitPipeline(node: SyntaxNode, scope: Scope): ExecutedCommand[] {
    const stages = node.namedChildren.filter((child) => child.type !== 'comment').map((child) => this.visit(child, childScope(scope)));
    this.linkPipeline(stages, scope);
    return stages.flat();
  }

  /** Stage N reads what the stages before it print; a shell stage runs it. */
  private linkPipeline(stages: ExecutedCommand[][], scope: Scope): void {
    if (stages.length < 2) return;
    const id = this.analysis.pipelines.push(stages) - 1;
    stages.forEach((stage, index) => {
      for (const command of stage) {
        command.pipeline ??= { id, index };
        if (index === 0 || command.stdin) continue;
        const text = knownOutput(stages[index - 1]!);
        command.stdin = { kind: 'pipe', producers: stages.slice(0, index).flat(), ...(text === undefined ? {} : { text }) };
        executeFedText(this, command, scope);
      }
    });
  }

  private visitRedirected(node: SyntaxNode, scope: Scope): ExecutedCommand[] {
    const body = node.childForFieldName('body');
    const redirects = node.namedChildren.filter((child) => child !== body && child.type.endsWith('_redirect'));
    if (body?.type === 'command') return walkSimpleCommand(this, body, scope, redirects, node);
    // tree-sitter-bash hangs `a && b >x y` on the whole list (or pipeline): bash gives the
    // redirections, and the words after them, to `b`.
    const last = body ? lastSimpleCommand(body) : undefined;
    if (last) {
      this.trailing.set(last.id, { redirects, statement: node });
      const commands = this.visit(body!, scope);
      if (!this.trailing.delete(last.id)) return commands;
    }
    const commands = body ? this.visit(body, scope) : [];
    const effects = applyRedirects(this, redirects, scope, node.text);
    return [...commands, ...this.continueAfterHeredoc(commands, effects.continuations, scope).slice(commands.length)];
  }

  /** `cat <<EOF | sh` parses with the `| sh` inside the heredoc redirect: rebuild the pipeline. */
  continueAfterHeredoc(first: ExecutedCommand[], continuations: readonly SyntaxNode[], scope: Scope): ExecutedCommand[] {
    if (!continuations.length) return first;
    const stages: ExecutedCommand[][] = [first];
    const after: SyntaxNode[] = [];
    for (const continuation of continuations) {
      if (continuation.type !== 'pipeline' || continuation.firstChild?.type !== '|') {
        after.push(continuation);
        continue;
      }
      for (const part of continuation.namedChildren) {
        const head = part.type === 'list' ? part.namedChildren[0] : part;
        if (part.type === 'list') after.push(...part.namedChildren.slice(1));
        if (!head) continue;
        const headStages = head.type === 'pipeline' ? head.namedChildren : [head];
        for (const stage of headStages) stages.push(this.visit(stage, childScope(scope)));
      }
    }
    this.linkPipeline(stages, scope);
    return [...stages.flat(), ...after.flatMap((node) => this.visit(node, scope))];
  }

  private visitFunction(node: SyntaxNode, scope: Scope): ExecutedCommand[] {
    const before = this.analysis.commands.length;
    const body = node.childForFieldName('body');
    if (body) this.visit(body, childScope(scope));
    const name = node.childForFieldName('name')?.text ?? '';
    this.analysis.functions.push({ name, bodyCommands: this.analysis.commands.slice(before) });
    return [];
  }

  private assign(node: SyntaxNode, scope: Scope): void {
    const name = node.childForFieldName('name')?.text;
    const value = node.childForFieldName('value');
    const word = value ? buildWord(value, this.wordHooks(scope)) : undefined;
    if (!name) return;
    judgeAssignment(this, name, assignedTexts(value, this.wordHooks(scope)), scope, scope.layers, node.text);
    const known = word === undefined ? '' : word.literal ? word.value : word.guess;
    this.assigned.push(name);
    if (known === undefined || this.namerefs) scope.vars.delete(name);
    else scope.vars.set(name, known);
  }

  private substitution(node: SyntaxNode, scope: Scope): Substitution {
    const opening = node.firstChild?.type ?? '$(';
    const kind: Substitution['kind'] = opening === '`' ? '`' : opening === '<(' ? '<(' : opening === '>(' ? '>(' : '$(';
    const before = this.analysis.commands.length;
    const topLevel = this.visitSequence(node, childScope(scope));
    const substitution: Substitution = { kind, commands: this.analysis.commands.slice(before) };
    const output = kind === '$(' || kind === '`' ? knownOutput(topLevel) : undefined;
    if (output !== undefined) substitution.output = output;
    return substitution;
  }

  wordHooks(scope: Scope): WordHooks {
    return {
      substitution: (node) => this.substitution(node, scope),
      descend: (node) => void this.visit(node, scope),
      variable: (name) => (this.namerefs ? undefined : scope.vars.get(name)),
      assigned: (name) => this.forget(name, scope),
      cut: (word) => this.unknown('U04', word),
      misread: (word) => this.unknown('U01', word),
    };
  }

  reparse(text: string, scope: Scope, label: string, layers: Invocation[], cwd: string | null, guess = false): ExecutedCommand[] {
    if (scope.depth >= LIMITS.reparseDepth) {
      this.unknown('U04', text);
      return [];
    }
    return withParsedShell(text, (root) => {
      if (root.hasError && !guess) {
        this.analysis.parseErrors.push(`could not parse the text run by ${label}`);
        this.unknown('U01', text);
      }
      return this.visitSequence(root, nestedScope(scope, label, layers, cwd));
    });
  }

  record(command: ExecutedCommand): void {
    this.analysis.commands.push(command);
  }

  unknown(id: UnknownFact['id'], command: string): void {
    const canonical = command.trim().replace(/\s+/g, ' ');
    if (this.reported.has(`${id}:${canonical}`)) return;
    this.reported.add(`${id}:${canonical}`);
    this.analysis.unknowns.push({ id, command, canonical });
  }
}

/** The simple command a list, pipeline or negation ends with, where bash binds redirections written after it. */
function lastSimpleCommand(node: SyntaxNode): SyntaxNode | undefined {
  if (node.type === 'command') return node;
  if (node.type !== 'list' && node.type !== 'pipeline' && node.type !== 'negated_command') return undefined;
  const last = node.namedChildren.at(-1);
  return last ? lastSimpleCommand(last) : undefined;
}
