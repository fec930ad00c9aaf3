// Terminal multiplexers and emulators run command text they are given: `tmux new-session -d
// 'rm -rf ~'` starts a shell running it, `tmux send-keys 'rm -rf ~' Enter` types it into a pane's
// shell, `xterm -e CMD` runs CMD. Only guessed to run before (they are unknown programs), so what
// they run only asked where it should be judged as run, hardline included.
import type { ShellWord } from './analysis-types';
import { parseArgs } from './flags';
import { joinWords } from './joined-words';
import { lookupTable } from './lookup-table';
import { literalWord } from './shell-words';
import type { Unwrapped } from './wrappers';

/** tmux commands whose trailing words are a shell command, with the options that take a value. */
const TMUX_SHELL_COMMANDS = lookupTable<string>({
  'new-session': 'cefnstxyFX',
  new: 'cefnstxyFX',
  'new-window': 'cetnF',
  neww: 'cetnF',
  'split-window': 'celtF',
  splitw: 'celtF',
  'respawn-pane': 'cet',
  respawnp: 'cet',
  'respawn-window': 'cet',
  respawnw: 'cet',
  'run-shell': 'dt',
  run: 'dt',
  'if-shell': 't',
  if: 't',
  'display-popup': 'bcdehstwxySTE',
  popup: 'bcdehstwxySTE',
  'pipe-pane': 't',
  pipep: 't',
});
/** tmux commands that type their words into a pane, and the key names that submit or edit rather than type. */
const TMUX_TYPING = lookupTable<string>({ 'send-keys': 'cNt', send: 'cNt' });
const KEY_NAMES = /^(?:Enter|KPEnter|C-[a-zA-Z\]\\[]|M-.|Escape|Tab|BSpace|Space|Up|Down|Left|Right|Home|End|NPage|PPage|PageUp|PageDown|DC|IC|F\d+)$/;

/** Terminal emulators and what they take before the command they run. */
const EMULATORS = new Set(['xterm', 'uxterm', 'rxvt', 'urxvt', 'kitty', 'alacritty', 'konsole', 'xfce4-terminal', 'terminator', 'st', 'foot', 'wezterm', 'lxterminal', 'mate-terminal', 'tilix', 'x-terminal-emulator', 'gnome-terminal', 'sakura', 'terminology', 'qterminal', 'eterm', 'aterm']);

export function unwrapTerminalRunner(program: string, args: readonly ShellWord[]): Unwrapped | undefined {
  if (program === 'tmux' || program === 'byobu') return unwrapTmux(args);
  if (EMULATORS.has(program)) return unwrapEmulator(program, args);
  return undefined;
}

/** Every shell command the tmux invocation runs or types, one text (`tmux new -d CMD \; send-keys CMD2 Enter`). */
function unwrapTmux(args: readonly ShellWord[]): Unwrapped {
  const global = parseArgs(args, { shortValued: 'cfLST', stopAtOperand: true });
  const texts: ShellWord[][] = [];
  // `tmux -c CMD` runs CMD with the user's shell.
  const shellCommand = global.options.find((option) => option.name === '-c');
  if (shellCommand?.value !== undefined) texts.push([literalOrWord(args, shellCommand.value)]);
  for (const segment of commandSegments(args.slice(global.rest))) {
    const [verb, ...rest] = segment;
    const valued = verb ? (TMUX_SHELL_COMMANDS[verb.value] ?? TMUX_TYPING[verb.value]) : undefined;
    if (valued === undefined) continue;
    const operands = parseArgs(rest, { shortValued: valued }).operands;
    const typed = TMUX_TYPING[verb!.value] !== undefined ? operands.filter((word) => !KEY_NAMES.test(word.value)) : verb!.value === 'if-shell' || verb!.value === 'if' ? operands.slice(0, 1) : operands;
    if (typed.length) texts.push(typed);
  }
  if (!texts.length) return { kind: 'none' };
  const separated = texts.flatMap((words, index) => (index ? [literalWord(';'), ...words] : words));
  return { kind: 'script', label: 'tmux', script: joinWords(separated) };
}

/** tmux separates commands by a `;` word (written `\;` or `';'` in a shell). */
function commandSegments(words: readonly ShellWord[]): ShellWord[][] {
  const segments: ShellWord[][] = [[]];
  for (const word of words) {
    if (word.value === ';') segments.push([]);
    else segments.at(-1)!.push(word);
  }
  return segments;
}

/** `-e CMD ARGS` (xterm and most others), `--` (gnome-terminal, kitty); one word with spaces is run by a shell. */
function unwrapEmulator(program: string, args: readonly ShellWord[]): Unwrapped {
  const start = args.findIndex((word) => ['-e', '-x', '--', '--command', '--execute'].includes(word.value));
  const attached = args.find((word) => /^--(?:command|execute)=/.test(word.value));
  if (attached) return { kind: 'script', label: program, script: { ...attached, value: attached.value.slice(attached.value.indexOf('=') + 1), raw: attached.raw.slice(attached.raw.indexOf('=') + 1) } };
  const inner = start === -1 ? [] : args.slice(start + 1);
  if (!inner.length) return { kind: 'none' };
  return inner.length === 1 && /\s/.test(inner[0]!.value) ? { kind: 'script', label: program, script: inner[0]! } : { kind: 'inner', label: program, inner };
}

function literalOrWord(args: readonly ShellWord[], value: string): ShellWord {
  return args.find((word) => word.value === value) ?? literalWord(value);
}
