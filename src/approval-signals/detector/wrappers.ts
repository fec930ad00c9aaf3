// Wrappers that run another command: `sudo`, `env`, `timeout`, `xargs`, ... Each call peels one
// level; the walker repeats until the program is not a wrapper (depth-limited there).
import type { ShellWord } from './analysis-types';
import { hasOption, parseArgs, type OptionSpec } from './flags';
import { joinWords } from './joined-words';

export type Unwrapped =
  /** Run `inner` as the next command. */
  | { kind: 'inner'; label: string; inner: ShellWord[]; extraArgsUnknown?: boolean; remote?: boolean }
  /** Parse `script` as shell text (`eval`, `ssh host CMD`, `su -c`, `env -S`). */
  | { kind: 'script'; label: string; script: ShellWord; remote?: boolean }
  | { kind: 'none' };

const NONE: Unwrapped = { kind: 'none' };

/** Wrappers whose options are plain: after the options comes the command. */
const SIMPLE_WRAPPERS: Record<string, OptionSpec & { operandsBefore?: number }> = {
  sudo: { shortValued: 'ugCDhprtTU', longValued: ['user', 'group', 'close-from', 'chdir', 'host', 'prompt', 'role', 'type', 'command-timeout', 'other-user', 'chroot'] },
  doas: { shortValued: 'uC' },
  command: {},
  builtin: {},
  exec: { shortValued: 'a' },
  nohup: {},
  setsid: {},
  time: { shortValued: 'fo', longValued: ['format', 'output'] },
  nice: { shortValued: 'n', longValued: ['adjustment'] },
  ionice: { shortValued: 'cnpPu', longValued: ['class', 'classdata', 'pid', 'pgid', 'uid'] },
  timeout: { shortValued: 'sk', longValued: ['signal', 'kill-after'], operandsBefore: 1 },
  stdbuf: { shortValued: 'ioe', longValued: ['input', 'output', 'error'] },
  chroot: { longValued: ['userspec', 'groups'], operandsBefore: 1 },
  coproc: {},
  busybox: {},
  caffeinate: { shortValued: 'tw' },
  unbuffer: {},
  fakeroot: {},
  xargs: { shortValued: 'InLPsdEa', longValued: ['max-args', 'max-lines', 'max-procs', 'max-chars', 'delimiter', 'arg-file', 'process-slot-var'] },
};

/** Options after which a wrapper runs nothing (`sudo -l`, `command -v rm`). */
const NON_RUNNING: Record<string, string[]> = {
  sudo: ['-l', '-v', '-V', '-K', '-e', '--list', '--validate', '--version', '--remove-timestamp', '--edit', '--help'],
  command: ['-v', '-V'],
  ionice: ['-p', '-P', '-u', '--pid', '--pgid', '--uid'],
};

export function unwrapOnce(program: string, args: readonly ShellWord[]): Unwrapped {
  const simple = SIMPLE_WRAPPERS[program];
  if (simple) return unwrapSimple(program, args, simple);
  switch (program) {
    case 'env':
      return unwrapEnv(args);
    case 'flock':
      return unwrapFlock(args);
    case 'watch':
      return unwrapWatch(args);
    case 'eval':
      return args.length ? { kind: 'script', label: 'eval', script: joinWords(args) } : NONE;
    case 'ssh':
      return unwrapSsh(args);
    case 'su':
    case 'runuser':
      return unwrapSu(program, args);
    default:
      return NONE;
  }
}

function unwrapSimple(program: string, args: readonly ShellWord[], spec: OptionSpec & { operandsBefore?: number }): Unwrapped {
  const parsed = parseArgs(args, { ...spec, stopAtOperand: true });
  if (NON_RUNNING[program]?.some((name) => hasOption(parsed, name))) return NONE;
  const inner = args.slice(parsed.rest + (spec.operandsBefore ?? 0));
  if (!inner.length) return NONE;
  // xargs appends (or substitutes) arguments read from stdin: they are never known here.
  return { kind: 'inner', label: program, inner, extraArgsUnknown: program === 'xargs' };
}

function unwrapEnv(args: readonly ShellWord[]): Unwrapped {
  for (let index = 0; index < args.length; index++) {
    const text = args[index]!.value;
    const split = /^(?:-S|--split-string=?)(.*)$/s.exec(text);
    if (split) {
      const attached = split[1] ?? '';
      const scriptWords = attached ? args.slice(index + 1) : args.slice(index + 2);
      const first = attached ? { ...args[index]!, value: attached, raw: attached } : args[index + 1];
      if (!first) return NONE;
      return { kind: 'script', label: 'env -S', script: joinWords([first, ...scriptWords]) };
    }
    if (text === '-u' || text === '-C' || text === '--unset' || text === '--chdir') index++;
    else if (text === '--') {
      const inner = args.slice(index + 1).filter((word, position, all) => !isAssignmentPrefix(all, position));
      return inner.length ? { kind: 'inner', label: 'env', inner } : NONE;
    } else if (!text.startsWith('-') && !/^[A-Za-z_][A-Za-z0-9_]*=/.test(text)) {
      return { kind: 'inner', label: 'env', inner: args.slice(index) };
    }
  }
  return NONE;
}

function isAssignmentPrefix(words: readonly ShellWord[], position: number): boolean {
  return words.slice(0, position + 1).every((word) => /^[A-Za-z_][A-Za-z0-9_]*=/.test(word.value));
}

function unwrapFlock(args: readonly ShellWord[]): Unwrapped {
  const parsed = parseArgs(args, { shortValued: 'wEc', longValued: ['timeout', 'conflict-exit-code', 'command'] });
  const command = parsed.options.find((option) => option.name === '-c' || option.name === '--command');
  if (command) {
    const word = args.find((candidate) => candidate.value === command.value);
    return word ? { kind: 'script', label: 'flock -c', script: word } : NONE;
  }
  const afterOptions = parseArgs(args, { shortValued: 'wE', longValued: ['timeout', 'conflict-exit-code'], stopAtOperand: true });
  const inner = args.slice(afterOptions.rest + 1);
  return inner.length ? { kind: 'inner', label: 'flock', inner } : NONE;
}

/** `watch CMD ARGS` joins its arguments and runs them with `sh -c` (unless `-x`). */
function unwrapWatch(args: readonly ShellWord[]): Unwrapped {
  const parsed = parseArgs(args, { shortValued: 'nq', longValued: ['interval', 'equexit', 'chgexit'], stopAtOperand: true });
  const inner = args.slice(parsed.rest);
  if (!inner.length) return NONE;
  if (hasOption(parsed, '-x', '--exec')) return { kind: 'inner', label: 'watch', inner };
  return { kind: 'script', label: 'watch', script: joinWords(inner) };
}

function unwrapSsh(args: readonly ShellWord[]): Unwrapped {
  const parsed = parseArgs(args, { shortValued: 'BbcDEeFIiJLlmOoPpQRSWw', stopAtOperand: true });
  const remote = args.slice(parsed.rest + 1);
  return remote.length ? { kind: 'script', label: 'ssh', script: joinWords(remote), remote: true } : NONE;
}

function unwrapSu(program: string, args: readonly ShellWord[]): Unwrapped {
  for (let index = 0; index < args.length; index++) {
    const text = args[index]!.value;
    if (text === '-c' || text === '--command') {
      const script = args[index + 1];
      return script ? { kind: 'script', label: `${program} -c`, script } : NONE;
    }
    const attached = /^(?:--command=|-c)(.+)$/s.exec(text);
    if (attached) return { kind: 'script', label: `${program} -c`, script: { ...args[index]!, value: attached[1]!, raw: attached[1]! } };
    if (['-s', '--shell', '-g', '--group', '-G', '--supp-group', '-w', '--whitelist-environment'].includes(text)) index++;
  }
  return NONE;
}
