// Text typed into a background process is a command when that process reads commands: a shell,
// an interpreter reading its program from stdin, a database prompt, a remote login, an editor or
// other program whose command language escapes to the shell (ed's `!CMD`). This module
// says which, and turns the typed text into shell text the detector judges. Pure.
import { hasCommandLanguage } from './detector/command-languages';
import { DATABASE_CLIENTS, isInterpreter, isShell } from './detector/program-names';
import type { ShellWord } from './detector/analysis-types';
import { describeScriptInvocation } from './detector/script-invocations';
import type { CommandVerdict, ParsedCommand } from './verdict';
import { shellQuote } from '../environments/shell-quote';

/** Programs whose input is run as shell commands somewhere (a login, a container, a new shell). */
const SHELL_LIKE = new Set(['ssh', 'mosh', 'telnet', 'su', 'script', 'expect', 'busybox', 'chroot', 'nsenter', 'unshare', 'machinectl', 'tmux', 'screen']);
/** Container and cluster tools whose `exec`/`run`/`attach` hand stdin to a program inside. */
const CONTAINER_TOOLS = new Set(['docker', 'podman', 'nerdctl', 'kubectl', 'oc', 'lxc', 'incus', 'apptainer', 'singularity']);
/** Interpreters beyond the detector's list that read a program from stdin. */
const OTHER_INTERPRETERS = new Set(['irb', 'ghci', 'R', 'Rscript', 'julia', 'tclsh', 'wish', 'gdb', 'lldb', 'jshell', 'scala', 'erl', 'iex', 'sbcl', 'guile', 'osascript', 'pwsh', 'powershell']);

export interface ProcessInputReader {
  /** The program that reads the input, for prompts. */
  program: string;
  /** How typed text becomes shell text: as is (a shell), or as `<program> -c <text>` (an interpreter). */
  asShellText(data: string): string;
}

function word(value: string): ShellWord {
  return { raw: value, value, literal: true, quoted: false, variables: [], substitutions: [], glob: false };
}

/**
 * The program of a background process that would run typed text as code, or undefined when the
 * process treats its input as data. `verdict` is the detector's verdict on the process's command.
 */
export function commandReader(verdict: CommandVerdict): ProcessInputReader | undefined {
  // A command the detector could not read might be anything: its input is judged as commands.
  if (verdict.tier === 'unknown' || verdict.commands.some((command) => command.name === null)) {
    return { program: 'an unrecognised program', asShellText: (data) => data };
  }
  for (const command of verdict.commands) {
    const reader = readerOf(command);
    if (reader) return reader;
  }
  return undefined;
}

function readerOf(command: ParsedCommand): ProcessInputReader | undefined {
  const name = command.name as string;
  const asIs = { program: name, asShellText: (data: string) => data };
  if (isShell(name) || SHELL_LIKE.has(name)) return asIs;
  if (CONTAINER_TOOLS.has(name) && command.args.some((arg) => ['exec', 'run', 'attach', 'debug', 'shell'].includes(arg))) return asIs;
  if (command.args.some((arg) => isShell(arg.slice(arg.lastIndexOf('/') + 1)))) return asIs;
  if (DATABASE_CLIENTS.has(name)) {
    const reading = !command.args.some((arg) => arg === '-c' || arg === '-f' || arg.startsWith('--command') || arg.startsWith('--file'));
    return reading ? { program: name, asShellText: (data) => `${name} -c ${shellQuote(data)}` } : undefined;
  }
  if (isInterpreter(name)) {
    const source = describeScriptInvocation(name, command.args.map(word))?.source.mode;
    const interactive = command.args.includes('-i') || source === 'stdin' || source === undefined;
    const flag = name.startsWith('python') || name.startsWith('pypy') ? '-c' : name === 'php' ? '-r' : '-e';
    return interactive ? { program: name, asShellText: (data) => `${name} ${flag} ${shellQuote(data)}` } : undefined;
  }
  if (OTHER_INTERPRETERS.has(name)) return asIs;
  // ed, vim, dc, m4, sftp: typed lines are their commands, whose shell escapes run.
  if (hasCommandLanguage(name)) return { program: name, asShellText: (data) => `${name} <<< ${shellQuote(data)}` };
  return undefined;
}
