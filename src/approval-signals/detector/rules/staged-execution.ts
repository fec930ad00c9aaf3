// Download or decode to a file, then run it, across `&&`, `;` and new lines: `curl -o x.sh URL &&
// bash x.sh`, `wget URL -O /tmp/a; chmod +x /tmp/a; /tmp/a`, `base64 -d > s.sh; sh s.sh`,
// `git clone URL && cd repo && ./install.sh`. What runs is code nobody has read.
import type { ExecutedCommand, ShellWord } from '../analysis-types';
import { outputWrites } from '../output-options';
import { resolvePath } from '../paths';
import { FETCHERS, isInterpreter, isShell } from '../program-names';
import type { RuleHit } from '../rule-catalog';
import { describeScriptInvocation } from '../script-invocations';
import { args, canonicalWords } from './rule-helpers';
import type { Rule } from './rule-types';

const DOWNLOADERS = new Set([...FETCHERS, 'aria2c', 'axel', 'scp', 'sftp', 'rsync', 'gsutil', 'rclone', 'ftp', 'tftp', 'lftp']);

/** Programs whose output is decoded content (base64 -d, xxd -r, openssl -d, gunzip -c, printf escapes). */
function decodes(command: ExecutedCommand): boolean {
  const words = args(command).map((word) => word.value);
  switch (command.program) {
    case 'base64':
    case 'base32':
    case 'basenc':
      return words.some((word) => /^-[a-zA-Z]*[dD]$|^--decode$/.test(word));
    case 'xxd':
      return words.some((word) => /^-r|^-revert/.test(word));
    case 'openssl':
      return words.includes('-d') || words.includes('-base64') || words[0] === 'base64';
    case 'gunzip':
    case 'zcat':
    case 'bunzip2':
    case 'unxz':
    case 'xzcat':
    case 'uudecode':
    case 'zstdcat':
      return true;
    case 'gzip':
    case 'xz':
    case 'zstd':
    case 'bzip2':
      return words.some((word) => /^-[a-zA-Z]*d|^--decompress$/.test(word));
    case 'printf':
    case 'echo':
      return words.some((word) => /\\(?:x[0-9a-fA-F]{2}|[0-7]{3})/.test(word));
    default:
      return false;
  }
}

function urlBasename(words: readonly ShellWord[]): string[] {
  return words.flatMap((word) => {
    const match = /^[a-z][\w+.-]*:\/\/[^/]+\/(?:.*\/)?([^/?#]+)(?:[?#].*)?$/i.exec(word.value);
    return match ? [match[1]!] : [];
  });
}

export const stagedExecutionRules: Rule = (input) => {
  const { context, analysis } = input;
  const produced = new Set<string>();
  // What fetched or decoded it, in the key: approving one download's run covers no other source.
  const producers: string[] = [];
  let fetchedTree = false;
  const hits: RuleHit[] = [];
  const key = (word: ShellWord | string, cwd: string | null) => {
    const resolved = resolvePath(word, cwd, context.home);
    return resolved.path ?? (typeof word === 'string' ? word : word.value);
  };
  const base = (path: string) => path.slice(path.lastIndexOf('/') + 1);
  const isProducer = (command: ExecutedCommand) => command.program !== null && (DOWNLOADERS.has(command.program) || decodes(command));
  for (const command of analysis.commands) {
    if (command.program === null || command.host) continue;
    const producer = isProducer(command);
    const fedByProducer = command.stdin?.kind === 'pipe' && command.stdin.producers.some(isProducer);
    // Where this command puts what it fetched or decoded.
    if (producer || fedByProducer) {
      producers.push(canonicalWords(command));
      const targets = [...outputWrites(command).map((write) => write.target), ...analysis.writes.filter((write) => write.command.includes(command.text)).map((write) => write.target)];
      if (command.program === 'tee') targets.push(...args(command).filter((word) => !word.value.startsWith('-')));
      if (command.program === 'xxd' && decodes(command)) targets.push(...args(command).filter((word) => !word.value.startsWith('-')).slice(1, 2));
      if (command.program === 'wget' || (command.program === 'curl' && args(command).some((word) => /^-[a-zA-Z]*O$|^--remote-name/.test(word.value)))) {
        if (!args(command).some((word) => /^-[a-zA-Z]*O$|^--output-document/.test(word.value) && command.program === 'wget')) for (const name of urlBasename(args(command))) produced.add(name);
      }
      if ((command.program === 'scp' || command.program === 'rsync') && args(command).some((word) => /^[^/]*:/.test(word.value))) {
        const destination = args(command).at(-1);
        if (destination && ['.', './'].includes(destination.value)) fetchedTree = true;
        else if (destination) targets.push(destination);
      }
      if (command.program === 'tar' || command.program === 'unzip' || command.program === 'bsdtar') fetchedTree = true;
      for (const target of targets) {
        const path = key(target, command.cwd);
        produced.add(path);
        produced.add(base(path));
      }
    }
    if (command.program === 'git' && args(command).some((word) => word.value === 'clone')) fetchedTree = true;
    // Unpacking an archive fetched earlier: what it holds is fetched too.
    if (['tar', 'unzip', 'bsdtar', '7z'].includes(command.program) && args(command).some((word) => produced.has(key(word, command.cwd)) || produced.has(word.value))) fetchedTree = true;
    const executed = executedFile(command);
    if (executed === undefined) continue;
    const path = key(executed, command.cwd);
    const relative = !executed.value.startsWith('/') && !executed.value.startsWith('~');
    if (produced.has(path) || produced.has(base(path)) || (fetchedTree && relative)) {
      hits.push({ id: 'N26', canonical: `run ${base(path)} after ${producers.join(' ; ') || 'download/decode'}`, command: command.text, detail: executed.value });
    }
  }
  return hits;
};

/** The file a command executes: its own path (`./x`, `/tmp/a`), or the script a shell/interpreter/`source` runs. */
function executedFile(command: ExecutedCommand): ShellWord | undefined {
  const program = command.program ?? '';
  if (command.path.includes('/')) return command.argv[0];
  if (program === 'source' || program === '.') return command.argv[1];
  if (isShell(program) || isInterpreter(program)) {
    const source = describeScriptInvocation(program, args(command))?.source;
    return source?.mode === 'file' ? source.file : undefined;
  }
  return undefined;
}
