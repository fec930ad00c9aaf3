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
  /** A shell (or what may be one), whose history it may run again (`!!`, `^a^b`, `fc`). */
  shell?: true;
}

/**
 * Keys a terminal acts on instead of passing them on: in a terminal (a PTY process) the line
 * discipline and line editors end a line at a carriage return, erase it at ^U, move to its start
 * at ^A, recall history at an arrow key's ESC, complete at a tab; anywhere, other control
 * characters are no text a person types. Typed text holding one is not what the program runs.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const TERMINAL_KEYS = /[\x00-\x08\x0b-\x1f\x7f]/;
// eslint-disable-next-line no-control-regex -- the same, and a tab (which completes a word there)
const TERMINAL_KEYS_IN_A_TERMINAL = /[\x00-\x09\x0b-\x1f\x7f]/;
/**
 * What a shell takes from its history and runs: an `!` expansion (`!!`, `!rm`, `!:1-3`; not an
 * `!` bash leaves: before a blank, `=`, `(` or `"`, or after `$`, `{`, `[` or a backslash), a
 * `^old^new` line, `fc`. On in an interactive shell, and in any other once typed text ran
 * `set -o history -H`.
 */
const HISTORY_EXPANSION = /(?<![$[{\\])![^\s=("]|^\s*\^|(?:^|[\s;&|(`])fc(?:\s|$)/m;

/** A variable or function named (set, exported, declared, defined; not read: `$HOME`, `${PS1}`). */
const named = (names: string) => new RegExp(`(?<![\\w$\\{-])(?:${names})(?![\\w-])`, 'm');

/** What a command's name gives away (the detector's parsed names, so `find . -name x` is no `.`). */
const SETUP_COMMANDS: readonly { what: string; names: ReadonlySet<string> }[] = [
  { what: 'key bindings (`bind`, `bindkey`, `zle`)', names: new Set(['bind', 'bindkey', 'zle']) },
  { what: 'a hook or a name that stands for other code (`trap`, `alias`, `enable -f`, `add-zsh-hook`)', names: new Set(['trap', 'alias', 'enable', 'add-zsh-hook', 'zmodload']) },
  { what: 'a sourced file (`source`, `.`)', names: new Set(['source', '.']) },
];

/**
 * What the text itself gives away, quotes taken out (`"ZDOTDIR"=.`): a start-up file option, a
 * variable naming a start-up file or a hook run at each prompt, a hook function, another editing
 * mode (vi's plain letters are commands).
 */
const SETUP_TEXT: readonly { what: string; pattern: RegExp }[] = [
  { what: 'a start-up file (`--rcfile`, `--init-file`, `--init-command`)', pattern: /(?:^|\s)--(?:rcfile|init-file|init-command)(?:[=\s]|$)|\bfish\s(?:.*\s)?-\w*C/m },
  {
    what: 'a start-up file or a hook in its environment (`ENV`, `BASH_ENV`, `ZDOTDIR`, `INPUTRC`, `PROMPT_COMMAND`, `PS1`, `HOME`, ...)',
    pattern: named('ENV|BASH_ENV|ZDOTDIR|INPUTRC|PROMPT_COMMAND|PS[0-4]|PROMPT|RPROMPT|RPS1|HOME|XDG_CONFIG_HOME|SHELLOPTS|BASHOPTS|FCEDIT|PYTHONSTARTUP|NODE_OPTIONS|PERL5OPT|RUBYOPT|IRBRC'),
  },
  {
    what: 'a hook function (`command_not_found_handle`, zsh\'s `precmd`, `preexec`, `TRAPDEBUG`, ...)',
    pattern: named('command_not_found_handler?|precmd|preexec|chpwd|periodic|zshaddhistory|TRAP[A-Z]+|(?:precmd|preexec|chpwd|periodic|zshaddhistory)_functions'),
  },
  { what: 'another editing mode (`set -o vi`)', pattern: /[-+]o\s*(?:vi|emacs)\b/ },
];

/** Shell text with the commands the detector read in it. */
export interface ParsedShellText {
  text: string;
  commands: readonly ParsedCommand[];
}

/**
 * What in `shell` (the command that started a process, or text typed into one) gives it code
 * that later keys, lines or prompts run out of the gate's sight, or undefined: a start-up file
 * (`--rcfile`, `ENV`, `BASH_ENV`, `ZDOTDIR`, a sourced file, another `HOME`), key bindings
 * (`bind`, `INPUTRC`, vi's editing mode), hooks (`PROMPT_COMMAND`, `$(...)` in a prompt, `trap`,
 * zsh's `precmd`), names that stand for other code (`alias`, `command_not_found_handle`). After
 * one, a plain letter or an empty line typed may run a whole command.
 */
export function hiddenSetup(shell: ParsedShellText): string | undefined {
  const byName = SETUP_COMMANDS.find(({ names }) => shell.commands.some((command) => command.name !== null && names.has(command.name)));
  if (byName) return byName.what;
  // `b=bind; $b -f keys`: a name known only when it runs may be any of them.
  if (shell.commands.some((command) => command.name === null)) return 'a command whose name is built when it runs (it may be `bind`, `trap` or `source`)';
  const unquoted = shell.text.replace(/["'\\]/g, '');
  return SETUP_TEXT.find(({ pattern }) => pattern.test(shell.text) || pattern.test(unquoted))?.what;
}

/** Where code the gate does not see came from: the start, text typed earlier (all of it, in order), or this text. */
export function hiddenSetupOf(start: ParsedShellText, earlier: ParsedShellText | undefined, withThis: ParsedShellText): string | undefined {
  const atStart = hiddenSetup(start);
  if (atStart) return `was started with ${atStart}`;
  const before = earlier && hiddenSetup(earlier);
  if (before) return `was given ${before} by text typed into it earlier`;
  const now = hiddenSetup(withThis);
  return now ? `is given ${now} by this text, which keys and lines typed after it may run` : undefined;
}

/**
 * Why text typed into `reader` cannot be judged as written (keys that edit it, history that
 * rebuilds it, start-up code, key bindings or hooks that rewrite it or run beside it), or
 * undefined. `terminal`: the process reads from a terminal (a PTY); `setup`: how it was given
 * code the gate does not see (hiddenSetupOf).
 */
export function uncheckableInput(data: string, reader: ProcessInputReader, terminal: boolean, setup?: string): string | undefined {
  // A line ending written as CR LF ends one line in a terminal too (and an empty one after it).
  const text = data.replace(/\r\n/g, '\n');
  if ((terminal ? TERMINAL_KEYS_IN_A_TERMINAL : TERMINAL_KEYS).test(text)) {
    return `the text typed into ${reader.program} holds control keys (${visibleKeys(text, terminal)}), which ${terminal ? 'the terminal acts on' : 'may edit it'}: what runs is not the text as written`;
  }
  if (setup) return `${reader.program} ${setup} (start-up code, key bindings or hooks the gate does not see): what a key or line typed into it runs is not only the text as written`;
  if (reader.shell && HISTORY_EXPANSION.test(text)) {
    return `the text typed into ${reader.program} may run a command from its history (\`!\` expansion, \`^old^new\` or \`fc\`), which was not judged for this input`;
  }
  return undefined;
}

function visibleKeys(text: string, terminal: boolean): string {
  const keys = [...new Set([...text].filter((char) => (terminal ? TERMINAL_KEYS_IN_A_TERMINAL : TERMINAL_KEYS).test(char)))];
  return keys
    .slice(0, 5)
    .map((char) => `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`)
    .join(' ');
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
    return { program: 'an unrecognised program', asShellText: (data) => data, shell: true };
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
  const shell = { ...asIs, shell: true as const };
  if (isShell(name) || SHELL_LIKE.has(name)) return shell;
  if (CONTAINER_TOOLS.has(name) && command.args.some((arg) => ['exec', 'run', 'attach', 'debug', 'shell'].includes(arg))) return shell;
  if (command.args.some((arg) => isShell(arg.slice(arg.lastIndexOf('/') + 1)))) return shell;
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
