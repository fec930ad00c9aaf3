// One simple command: its words, the program it really runs after peeling wrappers, and the
// shell text it hands on (`bash -c`, `eval`, `ssh`), which is parsed and walked in turn.
import type { ExecutedCommand, Invocation, ShellWord, StdinFeed } from './analysis-types';
import { guessedArgvs, programOf } from './dynamic-names';
import { commandWords } from './command-words';
import { applyRedirects, isDescriptorOfNext, recordWrite } from './redirects';
import { isShell } from './program-names';
import { describeScriptInvocation } from './script-invocations';
import type { SyntaxNode } from './shell-parser';
import { buildWord, fieldWords, literalWord } from './shell-words';
import { executeEmbeddedShell, executeFedText } from './stdin-feeds';
import { followDirectoryChange } from './directory-changes';
import { findExecs } from './find-exec';
import { runByOptions } from './program-run-options';
import { assignedTexts, assignmentWords, completionCommand, declaredAssignments, deferredCodeOfAssignment, filesNamedByAssignment, rerunsHistory, trapHandler } from './deferred-code';
import type { Scope } from './walk-scope';
import type { WalkerApi } from './walker-api';
import { unwrapOnce } from './wrappers';
import { isKnownProgram, isSpeculationTarget } from './program-knowledge';
import { isInterpreter } from './program-names';

const MAX_WRAPPERS = 16;

/** `statement` is the enclosing redirected statement, when the redirections are written outside the command node. */
export function walkSimpleCommand(api: WalkerApi, node: SyntaxNode, scope: Scope, outerRedirects: readonly SyntaxNode[], statement?: SyntaxNode): ExecutedCommand[] {
  const hooks = api.wordHooks(scope);
  const prefixLabels: string[] = [];
  const wordNodes: SyntaxNode[] = [];
  const redirects: SyntaxNode[] = [];
  // From the command on: a statement the tree made of a whole list gives its last command its redirections.
  const text = statement ? statement.text.slice(node.startIndex - statement.startIndex) : node.text;
  for (let index = 0; index < node.childCount; index++) {
    const child = node.child(index)!;
    const field = node.fieldNameForChild(index);
    if (child.type === 'variable_assignment') prefixLabels.push(assignmentLabel(child, api, scope, text));
    else if (field === 'name') wordNodes.unshift(child.firstNamedChild ?? child);
    else if (field === 'argument') {
      if (!isDescriptorOfNext(child)) wordNodes.push(child);
    }
    else if (child.type.endsWith('_redirect')) redirects.push(child);
    else if (child.isNamed) api.visit(child, scope);
  }
  const words = commandWords(wordNodes, { command: node, inner: redirects, outer: outerRedirects, statement }, hooks);
  const effects = applyRedirects(api, [...redirects, ...outerRedirects], scope, text);
  // A bare `exec` keeps its redirections for the rest of the shell (`exec 3<>/dev/tcp/h/p; sh <&3`).
  if (words.length === 1 && words[0]!.literal && words[0]!.value === 'exec') scope.connections = effects.connections;
  const commands: ExecutedCommand[] = [];
  if (words.length) {
    const base = { text, scope, prefixLabels };
    const nameWord = words[0]!;
    const dynamic = !nameWord.literal || nameWord.glob || nameWord.fields !== undefined;
    const argv = expandFields(words);
    if (dynamic) {
      api.unknown('U02', text);
      const guesses = guessedArgvs(nameWord, argv);
      if (!guesses.length) commands.push(...resolve(api, argv, { ...base, guessed: true, hidden: false, dynamicName: true }));
      guesses.forEach((guess, index) => commands.push(...resolve(api, guess, { ...base, guessed: true, hidden: index > 0, dynamicName: true })));
    } else {
      const elsewhere = scope.cwdFallbacks ?? [];
      commands.push(...resolve(api, argv, { ...base, guessed: false, hidden: false, dynamicName: false }));
      // A `cd` before may have failed: the command may run where the shell was instead.
      for (const cwd of elsewhere) resolve(api, argv, { ...base, scope: { ...scope, cwd, cwdFallbacks: [] }, guessed: false, hidden: true, dynamicName: false, elsewhere: true });
    }
  }
  for (const command of commands) {
    if (effects.stdin && !command.host) command.stdin = effects.stdin;
    executeFedText(api, command, scope);
    api.commandRan(command, scope);
  }
  return api.continueAfterHeredoc(commands, effects.continuations, scope);
}

function assignmentLabel(node: SyntaxNode, api: WalkerApi, scope: Scope, text: string): string {
  const value = node.childForFieldName('value');
  const word = value ? buildWord(value, api.wordHooks(scope)) : literalWord('');
  const name = node.childForFieldName('name')?.text ?? '';
  judgeAssignment(api, name, assignedTexts(value, api.wordHooks(scope)), scope, scope.layers, text);
  return `${name}=${word.value}`;
}

/**
 * What an assignment makes happen later: the code a shell or program runs (judged as run there,
 * wherever the shell is by then: no cwd), the file a program writes (judged as a write of it).
 */
export function judgeAssignment(api: WalkerApi, name: string, values: string | readonly string[], scope: Scope, layers: Invocation[], text: string): void {
  for (const code of deferredCodeOfAssignment(name, values)) api.reparse(code, scope, `${name} (runs later)`, layers, null);
  for (const file of filesNamedByAssignment(name, values)) recordWrite(api, literalWord(file), scope, text, `${name}=`, 'output');
}

function expandFields(words: readonly ShellWord[]): ShellWord[] {
  return words.flatMap(fieldWords);
}

interface ResolveOptions {
  text: string;
  scope: Scope;
  prefixLabels: string[];
  guessed: boolean;
  hidden: boolean;
  dynamicName: boolean;
  /** Judged in a folder a failed `cd` may have left the shell in: it follows no `cd` itself. */
  elsewhere?: boolean;
}

/** Peels wrappers, hands shell text on, and records the command that finally runs. */
function resolve(api: WalkerApi, argv: ShellWord[], options: ResolveOptions): ExecutedCommand[] {
  const { scope } = options;
  const layers: Invocation[] = [...scope.layers];
  const wrappers = [...scope.wrappers, ...options.prefixLabels];
  let current = argv;
  let extraArgsUnknown = false;
  for (let step = 0; ; step++) {
    const program = programOf(current[0]);
    if (program === null) break;
    const unwrapped = unwrapOnce(program, current.slice(1));
    if (unwrapped.kind === 'none') break;
    // Past the limit the command left is still a wrapper, whose own verdict (env, nice: harmless)
    // says nothing of what it runs: 20 `env`s before `rm -rf` passed as safe. Unknown asks a person.
    if (step >= MAX_WRAPPERS) {
      api.unknown('U04', options.text);
      break;
    }
    layers.push({ program, argv: current });
    wrappers.push(unwrapped.label);
    if (unwrapped.kind === 'inner') {
      // `env NAME=value CMD`, `sudo NAME=value CMD`: settings for CMD act on it as a shell's prefix assignments do.
      const settings = assignmentWords(current.slice(1, current.length - unwrapped.inner.length));
      for (const { name, value } of settings) judgeAssignment(api, name, value, { ...scope, wrappers: [...wrappers] }, layers, options.text);
      current = unwrapped.inner;
      extraArgsUnknown ||= unwrapped.extraArgsUnknown === true;
      continue;
    }
    const host = makeCommand(current, { ...options, layers: layers.slice(0, -1), wrappers: wrappers.slice(0, -1), extraArgsUnknown, host: true });
    api.record(host);
    handOn(api, host, unwrapped.script, unwrapped.label, layers, unwrapped.remote ? null : scope.cwd, scope);
    return [host];
  }
  if (programOf(current[0]) === null && !options.dynamicName) api.unknown('U02', options.text);
  const command = makeCommand(current, { ...options, layers, wrappers, extraArgsUnknown, host: false });
  const invocation = command.program !== null && isShell(command.program) ? describeScriptInvocation(command.program, current.slice(1)) : undefined;
  // `bash -c STR`: the host is kept for the rules; what runs is the text, parsed again.
  if (invocation?.source.mode === 'inline') {
    command.host = true;
    api.record(command);
    const label = `${command.program} ${invocation.source.flag}`;
    handOn(api, command, invocation.source.code[0]!, label, [...layers, { program: command.program, argv: current }], scope.cwd, scope);
    return [command];
  }
  api.record(command);
  if (!options.guessed && !options.elsewhere && options.prefixLabels.length === 0 && wrappers.length === scope.wrappers.length) followDirectoryChange(command, scope, api.home);
  // Runs later, wherever the shell is by then: no cwd.
  if (command.program === 'trap') for (const code of trapHandler(command.argv)) api.reparse(code, scope, 'trap (runs later)', layers, null);
  if (command.program === 'complete' || command.program === 'compgen') for (const code of completionCommand(command.argv)) api.reparse(code, scope, `${command.program} -C (runs later)`, layers, null);
  // What `fc` runs is text from the history, which no command shows (a kept shell's earlier lines, edited).
  if (command.program === 'fc' && rerunsHistory(command.argv)) api.unknown('U03', command.text);
  for (const { name, value } of declaredAssignments(command.program, command.argv)) judgeAssignment(api, name, value, { ...scope, wrappers }, layers, options.text);
  if (command.program === 'alias') defineAliases(api, command, scope, layers);
  else if (command.program !== null && !isKnownProgram(command.program) && !isShell(command.program) && !isInterpreter(command.program)) {
    speculate(api, command, current, { ...options, scope: { ...scope, wrappers, layers } });
  }
  if (command.program === 'find') {
    const findScope = { ...scope, wrappers, layers: [...layers, { program: 'find', argv: current }] };
    for (const exec of findExecs(current.slice(1))) resolve(api, exec.argv, { ...options, prefixLabels: [], scope: { ...findScope, wrappers: [...wrappers, `find ${exec.action}`] } });
  }
  for (const run of runByOptions(command.program, current.slice(1))) {
    const label = `${command.program} ${run.option}`;
    const inner = { ...scope, wrappers: [...wrappers, label], layers: [...layers, { program: command.program, argv: current }] };
    const ran = run.kind === 'program' ? resolve(api, run.argv, { ...options, prefixLabels: [], scope: inner }) : handOn(api, command, run.text, label, inner.layers, scope.cwd, { ...scope, wrappers });
    // `nc -e sh h p`: the shell's input is the connection (a pipeline's later stages read their pipe).
    const connection: StdinFeed = { kind: 'network', address: current.map((word) => word.value).join(' ') };
    if (run.network) for (const started of ran) started.stdin ??= connection;
  }
  const script = command.program === null ? undefined : describeScriptInvocation(command.program, current.slice(1));
  if (script?.source.mode === 'inline') for (const code of script.source.code) executeEmbeddedShell(api, command, code.guess ?? code.value, scope);
  return [command];
}

/** `alias ls='rm -rf ~'`: the value is shell text that runs whenever the alias is used. */
function defineAliases(api: WalkerApi, command: ExecutedCommand, scope: Scope, layers: Invocation[]): void {
  for (const word of command.argv.slice(1)) {
    const match = /^[^=\s]+=(.+)$/s.exec(word.guess ?? word.value);
    if (match) api.reparse(match[1]!, scope, 'alias', layers, scope.cwd);
  }
}

/**
 * An unknown program may run what it is given: the first argument naming a known program (or a
 * shell) is judged as a command from there on, and an argument holding text is parsed as shell
 * text, as far as it parses (`gdb -ex "shell rm -rf src"`, `vim -c "!rm -rf src"`, `expect -c
 * "spawn rm -rf src"`: the unknown words it starts with are speculated on in turn).
 */
function speculate(api: WalkerApi, command: ExecutedCommand, argv: ShellWord[], options: ResolveOptions): void {
  if (options.scope.depth >= 3) return;
  const label = `${command.program ?? '?'} (may run its arguments)`;
  const inner = { ...options.scope, wrappers: [...options.scope.wrappers, label], layers: [...options.scope.layers, { program: command.program, argv }] };
  const before = api.analysis.commands.length;
  for (let index = 1; index < argv.length; index++) {
    const word = argv[index]!;
    if (!word.literal) continue;
    const text = textArgument(word.value);
    if (text !== undefined) {
      // Only a guess that the program runs it: what is found asks a person, never blocks.
      api.reparse(text, { ...inner, depth: inner.depth + 1, guessedRunner: inner.guessedRunner ?? command.program ?? '?' }, label, inner.layers, null, true);
      continue;
    }
    if (word.value.startsWith('-')) continue;
    const name = programOf(word);
    if (name === null || !isSpeculationTarget(name, isShell(name))) continue;
    if (index === 1 && !/[/]/.test(word.value) && argv.length === 2 && !isShell(name)) continue;
    resolve(api, argv.slice(index), { ...options, prefixLabels: [], hidden: true, scope: { ...inner, depth: inner.depth + 1 } });
    break;
  }
  for (const found of api.analysis.commands.slice(before)) found.speculative = true;
}

/**
 * An argument that may be shell text for a program to run: it holds a space, once an option's name
 * (`--eval=`, `ProxyCommand=`) and the shell-escape marks of editors and pagers (`+!`, `:!`) are
 * taken off.
 */
function textArgument(value: string): string | undefined {
  const text = value.replace(/^-*[\w.-]*=/, '').replace(/^[\s+:!]+/, '');
  return /\S\s+\S/.test(text) ? text : undefined;
}

/** Walks the shell text a host runs (returning its top-level commands); text only known at run time makes the verdict unknown. */
function handOn(api: WalkerApi, host: ExecutedCommand, script: ShellWord, label: string, layers: Invocation[], cwd: string | null, scope: Scope): ExecutedCommand[] {
  const text = script.literal ? script.value : script.guess;
  if (text === undefined) {
    api.unknown('U03', host.text);
    host.host = false;
    return [];
  }
  if (!script.literal) api.unknown('U03', host.text);
  return api.reparse(text, scope, label, layers, cwd);
}

interface MakeOptions extends ResolveOptions {
  layers: Invocation[];
  wrappers: string[];
  extraArgsUnknown: boolean;
  host: boolean;
}

function makeCommand(argv: ShellWord[], options: MakeOptions): ExecutedCommand {
  const nameWord = argv[0] ?? literalWord('');
  const path = nameWord.guess ?? nameWord.value;
  const known = !options.dynamicName && nameWord.literal;
  return {
    program: programOf(nameWord),
    name: known ? path.slice(path.lastIndexOf('/') + 1) : null,
    path,
    argv,
    wrappers: options.wrappers,
    layers: options.layers,
    text: options.text,
    cwd: options.scope.cwd,
    background: options.scope.background,
    extraArgsUnknown: options.extraArgsUnknown,
    host: options.host,
    guessed: options.guessed,
    hidden: options.hidden,
    ...(options.scope.guessedRunner !== undefined ? { guessedRunner: options.scope.guessedRunner } : {}),
  };
}

/** `cd DIR` (and `pushd`) changes where later relative paths point. */
