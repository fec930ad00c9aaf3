// The catalogue of wrappers that run their arguments as a command: privilege (`sudo`, `doas`,
// `run0`, `pkexec`), namespaces and sandboxes (`unshare`, `nsenter`, `firejail`, `chroot`),
// scheduling (`nice`, `chrt`, `taskset`, `systemd-run`), tracing (`strace`, `gdb --args`),
// fan-out (`xargs`, `parallel`, `watch`, `entr`) and project runners (`npx`, `uv run`; see
// project-runners.ts). The argument command is then judged as if run directly.
// Each call peels one level; the walker repeats until the program is not a wrapper.
import type { ShellWord } from './analysis-types';
import { hasOption, parseArgs, type OptionSpec } from './flags';
import { joinWords } from './joined-words';
import { unwrapTerminalRunner } from './terminal-runners';
import { unwrapProjectRunner } from './project-runners';
import { lookupTable } from './lookup-table';

export type Unwrapped =
  /** Run `inner` as the next command. */
  | { kind: 'inner'; label: string; inner: ShellWord[]; extraArgsUnknown?: boolean; remote?: boolean }
  /** Parse `script` as shell text (`eval`, `ssh host CMD`, `su -c`, `env -S`). */
  | { kind: 'script'; label: string; script: ShellWord; remote?: boolean }
  | { kind: 'none' };

const NONE: Unwrapped = { kind: 'none' };

/** Wrappers whose options are plain: after the options comes the command. */
/** `settings`: `NAME=value` words before the command set its environment (`sudo HOME=/x cmd`). */
const SIMPLE_WRAPPERS = lookupTable<OptionSpec & { operandsBefore?: number; settings?: true }>({
  sudo: { shortValued: 'ugCDhprtTU', longValued: ['user', 'group', 'close-from', 'chdir', 'host', 'prompt', 'role', 'type', 'command-timeout', 'other-user', 'chroot'], settings: true },
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
  run0: { shortValued: 'uDgM', longValued: ['user', 'group', 'chdir', 'machine', 'unit', 'property', 'description', 'slice', 'nice', 'setenv', 'background'] },
  pkexec: { longValued: ['user'] },
  unshare: { shortValued: 'S', longValued: ['setuid', 'setgid', 'root', 'wd', 'propagation', 'map-user', 'map-group', 'map-users', 'map-groups'] },
  setpriv: { longValued: ['reuid', 'regid', 'groups', 'inh-caps', 'ambient-caps', 'bounding-set', 'securebits', 'selinux-label', 'apparmor-profile', 'landlock-access', 'landlock-rule', 'pdeathsig'] },
  'systemd-run': { shortValued: 'pEMuHG', longValued: ['unit', 'property', 'description', 'slice', 'uid', 'gid', 'nice', 'setenv', 'working-directory', 'on-active', 'on-boot', 'on-startup', 'on-unit-active', 'on-unit-inactive', 'on-calendar', 'timer-property', 'path-property', 'socket-property', 'host', 'machine', 'service-type'] },
  firejail: {},
  nsenter: { shortValued: 'tSGw', longValued: ['target', 'setuid', 'setgid', 'root', 'wd'] },
  taskset: { operandsBefore: 1 },
  chrt: { operandsBefore: 1 },
  strace: { shortValued: 'eoOpPsSuIEXbaU', longValued: ['output', 'attach', 'trace', 'user', 'signal', 'string-limit'] },
  ltrace: { shortValued: 'eoOpsuaAnlLDF', longValued: ['output', 'library'] },
  valgrind: {},
  proot: { shortValued: 'rbmwq', longValued: ['rootfs', 'bind', 'mount', 'cwd', 'qemu'] },
  torsocks: { shortValued: 'uapP' },
  proxychains: { shortValued: 'f' },
  proxychains4: { shortValued: 'f' },
  cgexec: { shortValued: 'g' },
  numactl: { shortValued: 'CmNpPli', longValued: [] },
  catchsegv: {},
  'dbus-launch': {},
  'xvfb-run': { shortValued: 'nsfep', longValued: ['server-num', 'server-args', 'auth-file', 'error-file', 'xauth-protocol'] },
  prlimit: { shortValued: 'p', longValued: ['pid'] },
  tsp: {},
  sem: { shortValued: 'j', longValued: ['id', 'jobs'] },
  chpst: { shortValued: 'ugUebm/noltvdcfpr' },
  softlimit: { shortValued: 'mdsloprfct' },
  'sudo-rs': { shortValued: 'ugCDhprtTU', longValued: ['user', 'group', 'chdir'], settings: true },
  please: { shortValued: 't', longValued: ['target'] },
  authbind: {},
  trickle: { shortValued: 'udwtLs' },
  'aa-exec': { shortValued: 'pn', longValued: ['profile', 'namespace'] },
  runcon: { shortValued: 'turl', longValued: ['type', 'user', 'role', 'range'] },
  setarch: { operandsBefore: 1 },
  linux32: {},
  linux64: {},
});

/** Options after which a wrapper runs nothing (`sudo -l`, `command -v rm`). */
const NON_RUNNING = lookupTable<string[]>({
  sudo: ['-l', '-v', '-V', '-K', '-e', '--list', '--validate', '--version', '--remove-timestamp', '--edit', '--help'],
  command: ['-v', '-V'],
  ionice: ['-p', '-P', '-u', '--pid', '--pgid', '--uid'],
  chrt: ['-p', '--pid', '-m', '--max'],
  taskset: ['-p', '--pid'],
  strace: ['-p', '--attach'],
  ltrace: ['-p'],
  prlimit: ['-p', '--pid'],
});


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
    case 'sg':
      return unwrapSu(program, args);
    case 'script':
      return unwrapScript(args);
    case 'parallel':
      return unwrapParallel(args);
    case 'gdb':
      return unwrapGdb(args);
    case 'kubectl':
    case 'oc':
    case 'docker':
    case 'podman':
    case 'nerdctl':
      return unwrapContainerExec(program, args, 'exec');
    case 'entr':
      return unwrapEntr(args);
    default:
      return unwrapProjectRunner(program, args) ?? unwrapTerminalRunner(program, args) ?? NONE;
  }
}

function unwrapSimple(program: string, args: readonly ShellWord[], spec: OptionSpec & { operandsBefore?: number; settings?: true }): Unwrapped {
  const parsed = parseArgs(args, { ...spec, stopAtOperand: true });
  if (NON_RUNNING[program]?.some((name) => hasOption(parsed, name))) return NONE;
  let start = parsed.rest + (spec.operandsBefore ?? 0);
  while (spec.settings && start < args.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(args[start]!.value)) start++;
  const inner = args.slice(start);
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
  if (program === 'runuser' && args.some((word) => word.value === '-u' || word.value === '--user')) {
    const dashDash = args.findIndex((word) => word.value === '--');
    const parsed = parseArgs(args, { shortValued: 'ugG', longValued: ['user', 'group', 'supp-group'], stopAtOperand: true });
    const inner = dashDash === -1 ? args.slice(parsed.rest) : args.slice(dashDash + 1);
    if (inner.length) return { kind: 'inner', label: 'runuser', inner };
  }
  if (program === 'sg' && args.length >= 2 && !args.some((word) => word.value === '-c')) return { kind: 'script', label: 'sg', script: joinWords(args.slice(1)) };
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

/** `script -c CMD [file]` (also bundled: `-qc CMD`, `--command=CMD`): the command string is run by a shell. */
function unwrapScript(args: readonly ShellWord[]): Unwrapped {
  for (let index = 0; index < args.length; index++) {
    const word = args[index]!;
    const text = word.value;
    const long = /^--command=(.+)$/s.exec(text);
    if (long) return { kind: 'script', label: 'script -c', script: { ...word, value: long[1]!, raw: long[1]! } };
    if (text === '--command' || /^-[a-zA-Z]*c$/.test(text)) {
      const script = args[index + 1];
      return script ? { kind: 'script', label: 'script -c', script } : NONE;
    }
    const bundled = /^-[a-bd-zA-Z]*c(.+)$/s.exec(text);
    if (bundled) return { kind: 'script', label: 'script -c', script: { ...word, value: bundled[1]!, raw: bundled[1]! } };
  }
  return NONE;
}

/** `parallel CMD ::: ARGS`: CMD runs once per argument, which is appended (or put at `{}`). */
function unwrapParallel(args: readonly ShellWord[]): Unwrapped {
  const separator = args.findIndex((word) => /^:::+\+?$/.test(word.value));
  const before = separator === -1 ? args : args.slice(0, separator);
  const parsed = parseArgs(before, { shortValued: 'jSaIdEX', longValued: ['jobs', 'sshlogin', 'arg-file', 'delimiter', 'joblog', 'results', 'timeout', 'tmpdir', 'workdir'], stopAtOperand: true });
  const command = before.slice(parsed.rest);
  if (!command.length) return NONE;
  const values = separator === -1 ? [] : args.slice(separator + 1).filter((word) => !/^:::+\+?$/.test(word.value));
  const hasPlaceholder = command.some((word) => word.value.includes('{}'));
  const inner = hasPlaceholder ? command.flatMap((word) => (word.value === '{}' ? values : [word])) : [...command, ...values];
  if (command.length === 1 && /\s/.test(command[0]!.value)) return { kind: 'script', label: 'parallel', script: joinWords(inner) };
  return { kind: 'inner', label: 'parallel', inner, extraArgsUnknown: separator === -1 };
}

/** `entr CMD ARGS` runs CMD each time a file changes; `entr -s TEXT` hands TEXT to a shell. */
function unwrapEntr(args: readonly ShellWord[]): Unwrapped {
  const parsed = parseArgs(args, { stopAtOperand: true });
  const inner = args.slice(parsed.rest);
  if (!inner.length) return NONE;
  return hasOption(parsed, '-s') ? { kind: 'script', label: 'entr -s', script: joinWords(inner) } : { kind: 'inner', label: 'entr', inner };
}

/** `gdb --args PROGRAM ARGS`. */
function unwrapGdb(args: readonly ShellWord[]): Unwrapped {
  const index = args.findIndex((word) => word.value === '--args');
  return index === -1 || index + 1 >= args.length ? NONE : { kind: 'inner', label: 'gdb --args', inner: args.slice(index + 1) };
}

/** `kubectl exec POD -- CMD`, `docker exec CTR CMD`: the command runs elsewhere (a container). */
function unwrapContainerExec(program: string, args: readonly ShellWord[], verb: string): Unwrapped {
  const verbIndex = args.findIndex((word) => !word.value.startsWith('-'));
  if (verbIndex === -1 || args[verbIndex]!.value !== verb) return NONE;
  const rest = args.slice(verbIndex + 1);
  const dashDash = rest.findIndex((word) => word.value === '--');
  if (program === 'kubectl' || program === 'oc') {
    if (dashDash === -1) return NONE;
    const inner = rest.slice(dashDash + 1);
    return inner.length ? { kind: 'inner', label: `${program} exec`, inner, remote: true } : NONE;
  }
  const parsed = parseArgs(rest, { shortValued: 'euw', longValued: ['env', 'env-file', 'user', 'workdir', 'detach-keys'], stopAtOperand: true });
  const inner = rest.slice(parsed.rest + 1);
  return inner.length ? { kind: 'inner', label: `${program} exec`, inner, remote: true } : NONE;
}
