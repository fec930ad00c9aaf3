// Text that reaches a program's stdin: what `echo`/`printf`/`cat <<EOF` print into a pipe, and
// shells that execute it (`echo "rm -rf /" | sh`, `sh <<< "..."`, `bash <<EOF`) are re-parsed, as
// are the shell escapes of a command language fed to its program (`psql <<< '\! rm -rf src'`).
import type { ExecutedCommand, StdinFeed } from './analysis-types';
import { readsCommandsFromStdin, shellEscapes } from './command-languages';
import { embeddedShellCommands } from './embedded-shell';
import { isInterpreter, isShell } from './program-names';
import { describeScriptInvocation } from './script-invocations';
import type { Scope } from './walk-scope';
import type { WalkerApi } from './walker-api';

/** What a pipeline stage prints, when it is a plain `echo`, `printf` or `cat` of a heredoc. */
export function knownOutput(stage: readonly ExecutedCommand[]): string | undefined {
  if (stage.length !== 1) return undefined;
  const command = stage[0]!;
  const args = command.argv.slice(1);
  if (!args.every((word) => word.literal || word.guess !== undefined)) return undefined;
  const values = args.map((word) => word.guess ?? word.value);
  switch (command.program) {
    case 'echo': {
      let index = 0;
      while (index < values.length && /^-[neE]+$/.test(values[index]!)) index++;
      return `${values.slice(index).join(' ')}\n`;
    }
    case 'printf': {
      const [format, ...rest] = values;
      if (format === undefined) return undefined;
      if (!/%(?!%)/.test(format)) return decodePrintfEscapes(format.replace(/%%/g, '%'));
      if (/^%s(\\n)?$/.test(format)) return rest.map((value) => value + (format.endsWith('\\n') ? '\n' : '')).join('');
      return undefined;
    }
    case 'cat':
      return args.length === 0 ? feedText(command.stdin) : undefined;
    default:
      return undefined;
  }
}

function decodePrintfEscapes(format: string): string {
  return format.replace(/\\(n|t|\\|x[0-9a-fA-F]{1,2}|[0-7]{1,3})/g, (_match, escape: string) => {
    if (escape === 'n') return '\n';
    if (escape === 't') return '\t';
    if (escape === '\\') return '\\';
    if (escape.startsWith('x')) return String.fromCharCode(parseInt(escape.slice(1), 16));
    return String.fromCharCode(parseInt(escape, 8));
  });
}

export function feedText(feed: StdinFeed | undefined): string | undefined {
  if (!feed) return undefined;
  if (feed.kind === 'heredoc' || feed.kind === 'herestring') return feed.text;
  if (feed.kind === 'pipe') return feed.text;
  return undefined;
}

/** True for a shell (or `source /dev/stdin`) that takes its commands from stdin. */
export function shellReadsStdin(command: ExecutedCommand): boolean {
  if (command.program === null) return false;
  if (command.program === 'source' || command.program === '.') {
    return ['/dev/stdin', '-', '/proc/self/fd/0', '/dev/fd/0'].includes(command.argv[1]?.value ?? '');
  }
  if (!isShell(command.program)) return false;
  return describeScriptInvocation(command.program, command.argv.slice(1))?.source.mode === 'stdin';
}

/** Re-parses text fed to a shell's stdin (or shell strings in a script fed to an interpreter). */
export function executeFedText(api: WalkerApi, command: ExecutedCommand, scope: Scope): void {
  const text = feedText(command.stdin);
  if (text === undefined || command.program === null) return;
  if (shellReadsStdin(command)) {
    const layers = [...command.layers, { program: command.program, argv: command.argv }];
    api.reparse(text, scope, `${command.program} stdin`, layers, command.cwd);
  } else if (isInterpreter(command.program) && describeScriptInvocation(command.program, command.argv.slice(1))?.source.mode === 'stdin') {
    executeEmbeddedShell(api, command, text, scope);
  } else if (readsCommandsFromStdin(command.program, command.argv.slice(1).map((word) => word.value))) {
    const layers = [...command.layers, { program: command.program, argv: command.argv }];
    for (const escaped of shellEscapes(command.program, text)) api.reparse(escaped, scope, `${command.program} shell escape`, layers, command.cwd);
  }
}

/** `os.system("...")`, `execSync('...')`, backquotes: shell text inside interpreter code. */
export function executeEmbeddedShell(api: WalkerApi, command: ExecutedCommand, code: string, scope: Scope): void {
  const program = command.program ?? '';
  const backquotes = program === 'perl' || program === 'ruby' || program === 'php';
  const layers = [...command.layers, { program: command.program, argv: command.argv }];
  for (const text of embeddedShellCommands(code, backquotes)) api.reparse(text, scope, `${program} shell call`, layers, command.cwd);
}
