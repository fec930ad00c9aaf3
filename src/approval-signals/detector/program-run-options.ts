// Options by which a program that otherwise only reads, packs or copies runs another one: `rg
// --pre CMD` runs `CMD FILE` for every file it searches (`rg --pre rm x .` deletes them), `tar
// --checkpoint-action=exec=CMD`, `zip -TT CMD`, `rsync -e CMD`, `ssh -o ProxyCommand=CMD`, `git
// rebase --exec CMD`, `git bisect run CMD`, a pager given to `man` or `bat`, and GNU sed's `e`
// command. What they run is judged as a command of its own, like `find -exec`'s.
import type { ShellWord } from './analysis-types';
import { shellEscapes } from './command-languages';
import { gitSubcommandIndex } from './git-arguments';
import { sedEffects, sedScripts } from './sed-script';
import { literalWord } from './shell-words';
import { lookupTable } from './lookup-table';

/**
 * A program named by an option (run with `operands`), or shell text an option hands to a shell (a
 * word that is not literal where it is known only at run time: `sed 's/x/&/e'` runs the input).
 */
export type RunByOption = (
  | { kind: 'program'; argv: ShellWord[]; option: string }
  | { kind: 'shell'; text: ShellWord; option: string }
) & {
  /** What runs reads and writes the program's network connection (`nc -e sh h p`): it is its input. */
  network?: true;
};

interface RunningOption {
  /** Spellings: `--long` (also `--long=VALUE`), `-x` (also `-xVALUE`). */
  names: readonly string[];
  /** The value is a program (run with the files searched) or shell text. */
  value: 'program' | 'shell';
  /** The program gets each file searched as its argument (ripgrep's preprocessor). */
  perFile?: boolean;
  /** Only after this subcommand (`git rebase --exec`); `git clean -x` is something else. */
  subcommand?: readonly string[];
  /** Only values of this form, which is taken off (`--checkpoint-action=exec=CMD`, `-o ProxyCommand=CMD`). */
  valueForm?: RegExp;
  /** A one-letter option that may end a cluster of flags (`rsync -avze CMD`). */
  clustered?: boolean;
  /** What it runs gets the network connection as its input and output (netcat's `-e`, `-c`). */
  network?: true;
}

const SSH_COMMAND_SETTING = /^(?:ProxyCommand|LocalCommand|KnownHostsCommand)\s*=?\s*/i;
const SSH_OPTIONS: readonly RunningOption[] = [{ names: ['-o'], value: 'shell', valueForm: SSH_COMMAND_SETTING }];

const RUNNING_OPTIONS = lookupTable<readonly RunningOption[]>({
  rg: [
    { names: ['--pre'], value: 'program', perFile: true },
    { names: ['--hostname-bin'], value: 'program' },
  ],
  sort: [{ names: ['--compress-program'], value: 'program' }],
  split: [{ names: ['--filter'], value: 'shell' }],
  man: [{ names: ['-P', '--pager', '--html'], value: 'shell' }],
  bat: [{ names: ['--pager'], value: 'shell' }],
  batcat: [{ names: ['--pager'], value: 'shell' }],
  ag: [{ names: ['--pager'], value: 'shell' }],
  ack: [{ names: ['--pager'], value: 'shell' }],
  tar: [
    { names: ['--to-command', '-I', '--use-compress-program', '-F', '--info-script', '--new-volume-script'], value: 'shell' },
    { names: ['--checkpoint-action'], value: 'shell', valueForm: /^exec=/ },
    { names: ['--rsh-command', '--rmt-command'], value: 'program' },
  ],
  zip: [{ names: ['-TT', '--unzip-command'], value: 'shell' }],
  // Build tools: `go test -exec CMD` runs the test binaries through CMD, npm's script shell runs every script.
  go: [{ names: ['-exec', '-toolexec', '--exec', '--toolexec'], value: 'shell' }],
  npm: [{ names: ['--script-shell'], value: 'shell' }],
  pnpm: [{ names: ['--script-shell'], value: 'shell' }],
  yarn: [{ names: ['--script-shell'], value: 'shell' }],
  make: [{ names: ['SHELL='], value: 'shell' }],
  gmake: [{ names: ['SHELL='], value: 'shell' }],
  ncat: [
    { names: ['-c', '--sh-exec'], value: 'shell', network: true },
    { names: ['-e', '--exec'], value: 'program', network: true },
  ],
  nc: [
    { names: ['-c'], value: 'shell', network: true },
    { names: ['-e'], value: 'program', network: true },
  ],
  netcat: [
    { names: ['-c'], value: 'shell', network: true },
    { names: ['-e'], value: 'program', network: true },
  ],
  rsync: [{ names: ['-e', '--rsh', '--rsync-path'], value: 'shell', clustered: true }],
  ssh: SSH_OPTIONS,
  scp: [...SSH_OPTIONS, { names: ['-S'], value: 'program' }],
  sftp: [...SSH_OPTIONS, { names: ['-S', '-D'], value: 'program' }],
  git: [
    { names: ['--exec', '-x'], value: 'shell', subcommand: ['rebase'] },
    { names: ['--extcmd', '-x'], value: 'shell', subcommand: ['difftool'] },
    { names: ['--receive-pack', '--exec'], value: 'shell', subcommand: ['push', 'send-pack'] },
    { names: ['--upload-pack'], value: 'shell', subcommand: ['clone', 'fetch', 'pull', 'ls-remote', 'fetch-pack'] },
    { names: ['-u'], value: 'shell', subcommand: ['clone'] },
    { names: ['--exec'], value: 'shell', subcommand: ['archive', 'fetch-pack'] },
    {
      names: ['--env-filter', '--tree-filter', '--index-filter', '--parent-filter', '--msg-filter', '--commit-filter', '--tag-name-filter'],
      value: 'shell',
      subcommand: ['filter-branch'],
    },
  ],
});

/** What `program args` runs through its options; `operands` stands for the files it works on. */
export function runByOptions(program: string | null, args: readonly ShellWord[]): RunByOption[] {
  if (program === 'sed') return sedRuns(args);
  if (program === 'git') return [...gitPositionalRuns(args), ...optionRuns(program, args)];
  if (program === 'socat') return socatRuns(args);
  if (program !== null && COMMAND_LANGUAGE_OPTIONS[program]) return [...commandLanguageEscapes(program, args), ...optionRuns(program, args)];
  return optionRuns(program, args);
}

function optionRuns(program: string | null, args: readonly ShellWord[], table?: readonly RunningOption[]): RunByOption[] {
  const options = table ?? (program === null ? undefined : RUNNING_OPTIONS[program]);
  if (!options) return [];
  const subcommand = program === 'git' ? args[gitSubcommandIndex(args)]?.value : undefined;
  const found: RunByOption[] = [];
  const values = new Set<number>();
  const perFile: { word: ShellWord; option: string }[] = [];
  for (let index = 0; index < args.length; index++) {
    const word = args[index]!;
    if (word.value === '--') break;
    for (const option of options) {
      if (option.subcommand && (subcommand === undefined || !option.subcommand.includes(subcommand))) continue;
      const value = valueOf(word, args[index + 1], option);
      if (!value) continue;
      if (value.next) values.add(++index);
      const network = option.network ? { network: true as const } : {};
      if (option.value === 'shell') found.push({ kind: 'shell', text: value.word, option: value.name, ...network });
      else if (option.perFile) perFile.push({ word: value.word, option: value.name });
      else found.push({ kind: 'program', argv: [value.word], option: value.name, ...network });
      break;
    }
  }
  const files = searchedFiles(args.filter((word, index) => !values.has(index) && !word.value.startsWith('-')));
  for (const { word, option } of perFile) found.push({ kind: 'program', argv: [word, ...files], option });
  return found;
}

/** The option's value in `word` (`--pre=CMD`, `-PCMD`, `SHELL=CMD`) or in the word after it (`--pre CMD`, `-avze CMD`). */
function valueOf(word: ShellWord, next: ShellWord | undefined, option: RunningOption): { word: ShellWord; next: boolean; name: string } | undefined {
  for (const name of option.names) {
    let found: { word: ShellWord; next: boolean } | undefined;
    if (word.value === name || (option.clustered && clusterEndsWith(word.value, name))) found = next ? { word: next, next: true } : undefined;
    else {
      // `--pre=CMD`, go's `-exec=CMD`; a one-letter option takes its value attached (`-PCMD`).
      const joined = name.startsWith('-') && name.length > 2 ? `${name}=` : name;
      if (word.value.startsWith(joined) && word.value.length > joined.length) found = { word: withValue(word, word.value.slice(joined.length)), next: false };
    }
    if (!found) continue;
    if (!option.valueForm) return { ...found, name };
    const form = option.valueForm.exec(found.word.value);
    if (form) return { word: withValue(found.word, found.word.value.slice(form[0].length)), next: found.next, name };
  }
  return undefined;
}

/** `-avze` ends with `-e`: a cluster of one-letter flags whose last one takes the next word. */
function clusterEndsWith(text: string, name: string): boolean {
  return /^-[a-zA-Z]$/.test(name) && /^-[a-zA-Z]+$/.test(text) && text.endsWith(name[1]!);
}

function withValue(word: ShellWord, value: string): ShellWord {
  return word.literal ? literalWord(value) : { ...word, value, raw: value };
}

/** `git bisect run CMD ARGS`, `git submodule foreach CMD`: the rest of the words run. */
function gitPositionalRuns(args: readonly ShellWord[]): RunByOption[] {
  const index = gitSubcommandIndex(args);
  const [subcommand, action] = [args[index]?.value, args[index + 1]?.value];
  if (subcommand === 'bisect' && action === 'run' && args[index + 2]) return [{ kind: 'program', argv: args.slice(index + 2), option: 'bisect run' }];
  if (subcommand !== 'submodule' || action !== 'foreach') return [];
  const command = args.slice(index + 2).filter((word) => !/^--(?:recursive|quiet)$|^-q$/.test(word.value));
  if (!command.length) return [];
  const literal = command.every((word) => word.literal);
  const text = command.map((word) => word.value).join(' ');
  return [{ kind: 'shell', text: literal ? literalWord(text) : { ...command[0]!, value: text, raw: text, literal: false }, option: 'submodule foreach' }];
}

/** GNU sed's `e` command and `s///e` flag; what the input decides is a word known only at run time. */
function sedRuns(args: readonly ShellWord[]): RunByOption[] {
  return sedScripts(args).flatMap((script) => {
    if (!script.literal) return [];
    return sedEffects(script.value).runs.map((text): RunByOption => ({
      kind: 'shell',
      text: text === undefined ? { ...literalWord('?'), literal: false } : literalWord(text),
      option: 'e',
    }));
  });
}

/** socat's addresses that open a network connection (`TCP:h:p`, `TCP-LISTEN:p`, `OPENSSL:h:p`, `UDP-RECV:p`, ...). */
const SOCAT_NETWORK = /^(?:TCP|UDP|SCTP|DCCP|UDPLITE|IP|RAW|OPENSSL|SSL|SOCKS|SOCKS4A?|SOCKS5|PROXY|VSOCK)[\w-]*:/i;

/** `socat - EXEC:CMD` and `SYSTEM:CMD` addresses (address options follow a comma); beside a network address, what runs reads it. */
function socatRuns(args: readonly ShellWord[]): RunByOption[] {
  const network = args.some((word) => SOCAT_NETWORK.test(word.value)) ? { network: true as const } : {};
  return args.flatMap((word): RunByOption[] => {
    const address = /^(EXEC|SYSTEM):((?:[^,\\]|\\.)*)/is.exec(word.value);
    if (!address) return [];
    const text = address[2]!.replace(/\\(.)/g, '$1');
    return [{ kind: 'shell', text: withValue(word, text), option: address[1]!.toUpperCase(), ...network }];
  });
}

/**
 * Options that take the program's own commands, shell escapes among them (command-languages.ts):
 * SQL clients', gdb's `-ex`, the editors' `-c`/`+CMD`, expect's `-c`. Known to run, not guessed.
 */
const EDITOR_COMMAND_OPTIONS: readonly RunningOption[] = [{ names: ['-c', '--cmd', '+'], value: 'shell' }];
const COMMAND_LANGUAGE_OPTIONS = lookupTable<readonly RunningOption[]>({
  psql: [{ names: ['-c', '--command'], value: 'shell' }],
  mysql: [{ names: ['-e', '--execute'], value: 'shell' }],
  mariadb: [{ names: ['-e', '--execute'], value: 'shell' }],
  gdb: [{ names: ['-ex', '--ex', '-iex', '--iex', '-eval-command', '--eval-command', '-init-eval-command', '--init-eval-command'], value: 'shell' }],
  vim: EDITOR_COMMAND_OPTIONS,
  vi: EDITOR_COMMAND_OPTIONS,
  nvim: EDITOR_COMMAND_OPTIONS,
  ex: EDITOR_COMMAND_OPTIONS,
  expect: [{ names: ['-c'], value: 'shell' }],
  // `less +CMD` runs CMD as it starts (`++CMD` for every file): `+!rm -rf src` escapes to the shell.
  less: [{ names: ['+'], value: 'shell' }],
  // GNU make's `--eval=TEXT` reads TEXT as makefile lines, recipes included.
  make: [{ names: ['--eval'], value: 'shell' }],
  gmake: [{ names: ['--eval'], value: 'shell' }],
});

function commandLanguageEscapes(program: string, args: readonly ShellWord[]): RunByOption[] {
  return optionRuns(program, args, COMMAND_LANGUAGE_OPTIONS[program]).flatMap((run) =>
    run.kind === 'shell' && run.text.literal ? shellEscapes(program, run.text.value).map((text): RunByOption => ({ kind: 'shell', text: literalWord(text), option: run.option })) : [],
  );
}

/** The files a per-file program is run on: everything under the operands after the pattern, or `.`. */
function searchedFiles(words: readonly ShellWord[]): ShellWord[] {
  const operands = words.slice(1);
  return (operands.length ? operands : [literalWord('.')]).map((operand) => ({ ...operand, value: `${operand.value.replace(/\/+$/, '')}/*`, raw: `${operand.raw}/*`, glob: true }));
}
