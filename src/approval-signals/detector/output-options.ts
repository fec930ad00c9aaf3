// Files a program writes because an option or operand names them: output options shared by many
// programs (`-o FILE`, `--output=FILE`, `of=FILE`, `--log-file`, `--prefix DIR`), the ones
// particular to a program (`wget -O/-P`, `tcpdump -w`, `ssh-keygen -f`), folders archives are
// unpacked into (`tar -C DIR -x`, `unzip -d DIR`), files a sed script writes (`w FILE`), and files
// created or patched by name.
import type { ExecutedCommand, ShellWord, WriteTarget } from './analysis-types';
import { gitSubcommandIndex } from './git-arguments';
import { sedEffects, sedScripts } from './sed-script';
import { literalWord, wordWithValue } from './shell-words';
import { optionWord } from './flags';
import { canonicalCommand } from './rules/rule-helpers';
import { lookupTable } from './lookup-table';

/** Long options (any program) whose value is a file or folder written. */
const LONG_OUTPUT = new Set([
  'output', 'output-document', 'output-file', 'out-file', 'outfile', 'out', 'outdir', 'out-dir', 'output-dir', 'output-directory',
  'log-file', 'logfile', 'log-output', 'target-directory', 'target', 'prefix', 'root', 'destdir', 'dest', 'destination',
  'directory-prefix', 'cookie-jar', 'dump-header', 'trace', 'trace-ascii', 'stderr', 'save', 'export', 'install-dir', 'bin-dir',
]);
/** Single-dash long output options (openssl, java tools). */
const SINGLE_DASH_OUTPUT = new Set(['-out', '-keyout', '-output', '-outdir', '-d64out']);
/** Short options that name an output, per program; `*` applies to every program. */
const SHORT_OUTPUT = lookupTable<string>({
  '*': 'o',
  wget: 'oOPa',
  curl: 'oDc',
  tcpdump: 'w',
  tshark: 'w',
  dumpcap: 'w',
  'ssh-keygen': 'f',
  gpg: 'o',
  pip: 't',
  pip3: 't',
  '7z': '',
  zip: '',
});
/** `-o` does not name a file for these. */
const NO_GENERIC_O = new Set(['ssh', 'scp', 'sftp', 'mount', 'ps', 'grep', 'rg', 'egrep', 'fgrep', 'find', 'ls', 'pgrep', 'pkill', 'lsblk', 'git', 'docker', 'kubectl', 'jq', 'yq', 'bash', 'sh', 'zsh', 'set', 'shopt', 'cut', 'xargs', 'nc', 'ncat', 'socat', 'unzip', 'tar', 'mocha', 'jest', 'pytest', 'cargo', 'npm', 'journalctl', 'helm', 'gcloud', 'az', 'aws', 'ssh-keygen', 'gzip', 'gunzip', 'sqlite3', 'psql', 'mysql', 'env', 'sudo']);
/** Programs that create or modify the files they are given as operands. */
const OPERAND_WRITERS = new Set(['touch', 'mkdir', 'mknod', 'mkfifo', 'chattr', 'setfacl', 'patch']);

export function outputWrites(command: ExecutedCommand): WriteTarget[] {
  const program = command.program;
  if (program === null || command.host) return [];
  const words = command.argv.slice(1);
  const targets: { word: ShellWord; via: WriteTarget['via']; label: string }[] = [];
  const readsKey = program === 'ssh-keygen' && words.some((word) => /^-[a-zA-Z]*[lByFRHr]/.test(word.value));
  const shortLetters = (NO_GENERIC_O.has(program) ? '' : SHORT_OUTPUT['*']!) + (readsKey ? '' : (SHORT_OUTPUT[program] ?? ''));
  for (let index = 0; index < words.length; index++) {
    const word = words[index]!;
    const text = word.value;
    const valueWord = (value: string): ShellWord => wordWithValue(word, value);
    if (text === '--') break;
    const long = /^--([\w-]+)(?:=(.*))?$/s.exec(text);
    if (long) {
      if (!LONG_OUTPUT.has(long[1]!)) continue;
      if (long[2] !== undefined) targets.push({ word: valueWord(long[2]), via: 'output', label: `${program} --${long[1]}` });
      else if (words[index + 1]) targets.push({ word: words[++index]!, via: 'output', label: `${program} --${long[1]}` });
      continue;
    }
    if (SINGLE_DASH_OUTPUT.has(text) && words[index + 1]) {
      targets.push({ word: words[++index]!, via: 'output', label: `${program} ${text}` });
      continue;
    }
    if (/^of=/.test(text) && program !== 'dd') targets.push({ word: valueWord(text.slice(3)), via: 'output', label: `${program} of=` });
    const short = /^-([a-zA-Z]+)$/.exec(text);
    if (short && shortLetters) {
      const letters = short[1]!;
      const position = [...letters].findIndex((letter) => shortLetters.includes(letter));
      if (position === -1) continue;
      const attached = letters.slice(position + 1);
      if (attached && letters.length > 1 && position === 0) targets.push({ word: valueWord(attached), via: 'output', label: `${program} -${letters[position]}` });
      else if (position === letters.length - 1 && words[index + 1]) targets.push({ word: words[++index]!, via: 'output', label: `${program} -${letters[position]}` });
    }
  }
  targets.push(...programSpecific(program, words));
  return targets.map(({ word, via, label }) => ({ via, target: word, cwd: command.cwd, command: command.text, program: canonicalCommand(command, [label]), wrappers: command.wrappers }));
}

function programSpecific(program: string, words: readonly ShellWord[]): { word: ShellWord; via: WriteTarget['via']; label: string }[] {
  const operands = words.filter((word) => !word.value.startsWith('-'));
  switch (program) {
    case 'tar':
      return [...tarTargets(words), ...tarArchive(words)];
    case 'uniq':
    case 'xxd':
      // `uniq IN OUT`, `xxd [-r] IN OUT`: the second operand is written.
      return operands.slice(1, 2).map((word) => ({ word, via: 'output' as const, label: program }));
    case 'split':
      return operands.slice(1, 2).map((word) => ({ word: withSuffix(word, 'aa'), via: 'output' as const, label: 'split' }));
    case 'zip':
      // `zip ARCHIVE FILES`: the archive (`.zip` is added to a name without a dot).
      return operands.slice(0, 1).map((word) => ({ word: /\.[^/]*$/.test(word.value) ? word : withSuffix(word, '.zip'), via: 'output' as const, label: 'zip' }));
    case 'yq':
      return words.some((word) => /^(?:-[a-zA-Z]*i|--inplace)$/.test(word.value)) ? operands.slice(1).map((word) => ({ word, via: 'in-place' as const, label: 'yq -i' })) : [];
    case 'unzip': {
      const index = words.findIndex((word) => word.value === '-d');
      const attached = words.find((word) => /^-d./.test(word.value));
      const target = index !== -1 ? words[index + 1] : attached ? { ...attached, value: attached.value.slice(2), raw: attached.value.slice(2) } : undefined;
      return target ? [{ word: target, via: 'extract', label: 'unzip -d' }] : [];
    }
    case '7z':
    case '7za': {
      const output = words.find((word) => /^-o./.test(word.value));
      return output ? [{ word: { ...output, value: output.value.slice(2), raw: output.value.slice(2) }, via: 'extract', label: '7z -o' }] : [];
    }
    case 'git': {
      const subcommand = gitSubcommandIndex(words);
      const after = words.slice(subcommand + 1);
      switch (words[subcommand]?.value) {
        case 'config':
          return gitConfigWrites(after) ? configFileWrites('git config', words) : [];
        case 'bundle':
          return after[0]?.value === 'create' && after[1] ? [{ word: after[1], via: 'output', label: 'git bundle create' }] : [];
        case 'archive':
        case 'format-patch':
          return [optionWord(after, '-o', '--output')].flatMap((found) => (found ? [{ word: found.word, via: 'output' as const, label: `git ${words[subcommand]!.value} -o` }] : []));
      }
      const clone = operands.findIndex((word) => word.value === 'clone');
      const destination = clone === -1 ? undefined : operands[clone + 2];
      return destination ? [{ word: destination, via: 'extract', label: 'git clone' }] : [];
    }
    case 'npm':
    case 'pnpm':
    case 'yarn':
    case 'pip':
    case 'pip3':
      return packageConfigWrites(program, words);
    case 'sed':
      return sedScripts(words).flatMap((script) =>
        script.literal ? sedEffects(script.value).writes.map((file) => ({ word: literalWord(file), via: 'output' as const, label: 'sed w' })) : [],
      );
    case 'sqlite3':
    case 'sqlite':
      // The database file itself, and what `.output FILE` and the like name.
      return [
        ...operands.slice(0, 1).map((word) => ({ word, via: 'output' as const, label: program })),
        ...words.flatMap((word) => {
          const match = /^\s*\.(?:output|once|save|backup)\s+(\S+)/.exec(word.value);
          return match ? [{ word: literalWord(match[1]!.replace(/^['"]|['"]$/g, '')), via: 'output' as const, label: `${program} .output` }] : [];
        }),
      ];
    default:
      if (OPERAND_WRITERS.has(program)) {
        const files = program === 'patch' ? operands.slice(0, 1) : operands.filter((word) => !/^[+-=]?[rwxXstugoa]+$/.test(word.value) || word.value.includes('/'));
        return files.map((word) => ({ word, via: 'output' as const, label: program }));
      }
      return [];
  }
}

function withSuffix(word: ShellWord, suffix: string): ShellWord {
  return { ...word, value: `${word.value}${suffix}`, raw: `${word.raw}${suffix}` };
}

/** `tar -cf FILE`, `tar cf FILE`, `tar --file=FILE -r`: the archive it creates or changes. */
function tarArchive(words: readonly ShellWord[]): { word: ShellWord; via: WriteTarget['via']; label: string }[] {
  const first = words[0]?.value ?? '';
  const bundledFirst = /^[a-zA-Z]+$/.test(first) ? `-${first}` : first;
  const modes = [bundledFirst, ...words.slice(1).map((word) => word.value)];
  const writing = modes.some((text) => /^-[a-zA-Z]*[cruA]/.test(text) || /^--(?:create|append|update|catenate|concatenate|delete)$/.test(text));
  if (!writing) return [];
  for (let index = 0; index < words.length; index++) {
    const text = index === 0 ? bundledFirst : words[index]!.value;
    if (text.startsWith('--file=')) return [{ word: { ...words[index]!, value: text.slice(7), raw: text.slice(7) }, via: 'output', label: 'tar -f' }];
    if (text === '--file' && words[index + 1]) return [{ word: words[index + 1]!, via: 'output', label: 'tar -f' }];
    const bundle = /^-[a-zA-Z]*f(.*)$/.exec(text);
    if (!bundle || text.startsWith('--')) continue;
    if (bundle[1]) return [{ word: { ...words[index]!, value: bundle[1], raw: bundle[1] }, via: 'output', label: 'tar -f' }];
    // Each bundled letter that takes a value takes the next word in turn (`tar -cbf 20 x.tar`): f's is the one after those before it.
    const before = text.slice(1, text.indexOf('f')).replace(/[^bCgHKLNTVX]/g, '').length;
    const value = words[index + 1 + before];
    return value && value.value !== '-' ? [{ word: value, via: 'output', label: 'tar -f' }] : [];
  }
  return [];
}

/** Settings git only reads as data (who you are, colours, line endings): setting one in the user's file changes nothing git runs or trusts. */
const HARMLESS_GIT_SETTINGS = /^(?:user\.(?:name|email)|init\.defaultbranch|color\.[\w.-]+|pull\.(?:rebase|ff)|push\.(?:default|autosetupremote)|fetch\.prune|core\.(?:autocrlf|eol|quotepath|filemode|ignorecase)|advice\.[\w-]+|merge\.conflictstyle|rebase\.(?:autosquash|autostash)|diff\.(?:colormoved|algorithm)|log\.date|column\.ui|rerere\.enabled)$/i;
const GIT_CONFIG_READS = new Set(['--get', '--get-all', '--get-regexp', '--get-urlmatch', '--get-color', '--get-colorbool', '--list', '-l']);
/** Options of `git config` followed by a value that is no key. */
const GIT_CONFIG_VALUED = new Set(['--file', '-f', '--blob', '--type', '--default', '--comment', '--value']);

/** Whether a `git config` call writes a file at all: not a read, nor a setting in HARMLESS_GIT_SETTINGS. */
function gitConfigWrites(words: readonly ShellWord[]): boolean {
  const operands: string[] = [];
  let changes = false;
  for (let index = 0; index < words.length; index++) {
    const text = words[index]!.value;
    if (GIT_CONFIG_READS.has(text)) return false;
    if (/^--(?:unset|add|replace-all|rename-section|remove-section|edit)|^-e$/.test(text)) changes = true;
    if (GIT_CONFIG_VALUED.has(text)) index++;
    else if (!text.startsWith('-')) operands.push(text);
  }
  const [first, second] = operands;
  // `git config KEY` reads it, as `get` and `list` do.
  if (first === 'get' || first === 'list' || (operands.length === 1 && !changes && first !== 'edit')) return false;
  const key = first === 'set' ? second : first;
  return !(key !== undefined && operands.length >= (first === 'set' ? 3 : 2) && HARMLESS_GIT_SETTINGS.test(key));
}

/** Where `git config` writes: `--file FILE`, or the user's or the system's file. */
function configFileWrites(label: string, words: readonly ShellWord[]): { word: ShellWord; via: WriteTarget['via']; label: string }[] {
  const file = optionWord(words, '--file', '-f');
  if (file) return [{ word: file.word, via: 'output', label: `${label} --file` }];
  if (words.some((word) => word.value === '--global')) return [{ word: literalWord('~/.gitconfig'), via: 'output', label: `${label} --global` }];
  if (words.some((word) => word.value === '--system')) return [{ word: literalWord('/etc/gitconfig'), via: 'output', label: `${label} --system` }];
  return [];
}

/**
 * `npm config set` (also `npm set`), `yarn config set` and `pip config set` write the user's
 * config file unless told otherwise: `script-shell` there runs every `npm run` you start later.
 */
function packageConfigWrites(program: string, words: readonly ShellWord[]): { word: ShellWord; via: WriteTarget['via']; label: string }[] {
  const operands = words.filter((word) => !word.value.startsWith('-')).map((word) => word.value);
  const changes = ['set', 'delete', 'edit', 'unset', 'fix'];
  const configuring = operands[0] === 'config' ? changes.includes(operands[1] ?? '') : program.startsWith('np') && operands[0] === 'set';
  if (!configuring) return [];
  const label = `${program} config`;
  if (program.startsWith('pip')) {
    if (words.some((word) => word.value === '--global')) return [{ word: literalWord('/etc/pip.conf'), via: 'output', label }];
    if (words.some((word) => word.value === '--site')) return [];
    return [{ word: literalWord('~/.config/pip/pip.conf'), via: 'output', label }];
  }
  if (program === 'yarn') return [{ word: literalWord(words.some((word) => word.value === '-H' || word.value === '--home') ? '~/.yarnrc.yml' : '~/.yarnrc'), via: 'output', label }];
  const userconfig = optionWord(words, '--userconfig');
  if (userconfig) return [{ word: userconfig.word, via: 'output', label }];
  const location = optionWord(words, '--location', '-L')?.word.value ?? (words.some((word) => word.value === '-g' || word.value === '--global') ? 'global' : 'user');
  if (location === 'project') return [{ word: literalWord('.npmrc'), via: 'output', label }];
  return [{ word: literalWord(location === 'global' ? '/etc/npmrc' : '~/.npmrc'), via: 'output', label }];
}

/** `tar -C DIR -x`, `tar xf a.tar -C ~`, `tar --directory=DIR --extract`: where files are unpacked. */
function tarTargets(words: readonly ShellWord[]): { word: ShellWord; via: WriteTarget['via']; label: string }[] {
  const first = words[0]?.value ?? '';
  const extracting = /^[a-zA-Z]*x/.test(first) || words.some((word) => /^-[a-zA-Z]*x|^--extract$|^--get$/.test(word.value));
  if (!extracting) return [];
  const targets: ShellWord[] = [];
  for (let index = 0; index < words.length; index++) {
    const text = words[index]!.value;
    if (text === '-C' || text === '--directory') {
      const next = words[index + 1];
      if (next) targets.push(next);
    } else if (text.startsWith('--directory=')) targets.push({ ...words[index]!, value: text.slice(12), raw: text.slice(12) });
    else if (/^-C./.test(text)) targets.push({ ...words[index]!, value: text.slice(2), raw: text.slice(2) });
  }
  return targets.map((word) => ({ word, via: 'extract', label: 'tar -C' }));
}
