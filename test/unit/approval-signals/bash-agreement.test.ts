// The detector must read a command's words as bash does: where the shell parser disagrees, a model
// can hide what runs (tree-sitter-bash read `rm >/dev/null -rf src` as a bare `rm`). Random
// commands of words and redirections are run by the real bash, with a function that records the
// arguments it got, and the detector's arguments must match them exactly wherever it read the text
// without a syntax error (where it did not, the command is asked about whatever it holds).
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { classifyCommand, loadCommandClassifier } from '../../../src/approval-signals/classify-command';
import { tempDir } from '../../helpers/temp-dirs';
import { random } from './random-commands';
import type { CommandVerdict } from '../../../src/approval-signals/verdict';
import { VECTOR_CONTEXT } from './vectors/vector-types';

beforeAll(() => loadCommandClassifier());

const WORDS = ['-rf', 'x', '-', '--', '-a1', '-12', '1', '2', "'a b'", '"c d"', 'e\\ f', '=x', '+x', '%', '@', ':', '-', '-f', 'y=1', '{a}', 'z,', "'>q'", '\\>r', '--x=1', '0', '{b',
  "'x'\\;", '\\;', '\\|', '\\&', '"q"\'r\'', "\\'", '\\"', "$'c\\td'", '"a"\\ b', '\\<s', '#h', 'k#', '\\#',
  '$"t"', 'x$"t"', '{a,b}', 'a{b,c}d', "$'\\x41'", '"\\$x"', "'\\'", '"a\\b"', '\\{a,b}', '{x}\\{x,y}', '{b{a,b}', '{a}b,c}', '{1..2}x,y}', '{a,{b}c}'];
const REDIRECTIONS = [
  '>o1', '2>o2', '>>o3', '<in', '<<<hs', '2>&1', '>&2', '&>o4', '>|o5', '1>o6', '<>o7', '3>o8', '2>/dev/null', '> o9', '< in', '>&-',
  '2>>o10', '&>>o11', '<&0', '0<in', '{fd}>o12', '1>&2', '2<&-', '>&o13', '3<in', "<<<'h s'",
];
const JOINERS = [' ', ' ', ' ', ''];

/** A command of `record`, words and redirections, sometimes with a heredoc: what bash and the detector both read. */
function randomCommand(next: () => number): string {
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!;
  const parts = Array.from({ length: 1 + Math.floor(next() * 6) }, () => (next() < 0.6 ? pick(WORDS) : pick(REDIRECTIONS)));
  const heredoc = next() < 0.25;
  if (heredoc) parts.splice(Math.floor(next() * (parts.length + 1)), 0, pick(["<<'EOF'", '<<EOF', "<<-'EOF'"]));
  // Written against a word, the heredoc's delimiter would take that word in: delimiters are tried below.
  const text = parts.reduce((line, part) => line + pick(JOINERS.slice(0, line === 'record' || line.endsWith('EOF') || line.endsWith("EOF'") ? 3 : 4)) + part, 'record');
  return heredoc ? `${text}\nbody\nEOF` : text;
}

const SEPARATORS = [' ; ', ';', ' && ', '&&', ' | ', '|', '\n', ' & ', '&', ' |& '];

/** Several such commands in a list or pipeline, each heredoc's body after the line it is on. */
function randomList(next: () => number): string {
  const count = 1 + Math.floor(next() * 3);
  let text = '';
  let bodies = '';
  for (let index = 0; index < count; index++) {
    const [line, body] = randomCommand(next).split(/\n(.*)/s);
    const separator = index === count - 1 ? '\n' : SEPARATORS[Math.floor(next() * SEPARATORS.length)]!;
    text += line;
    if (body !== undefined) bodies += `${body}\n`;
    if (separator === '\n') {
      text += `\n${bodies}`;
      bodies = '';
    } else text += separator;
  }
  return text.trimEnd();
}

/** What bash passes to `record` in each text, one list per call (undefined: bash refused the text). */
function bashCalls(texts: readonly string[]): (string[][] | undefined)[] {
  const folder = tempDir('hermes-bash-agreement-');
  writeFileSync(path.join(folder, 'in'), 'input\n');
  const script = [
    // One write a call, so calls of a pipeline's stages running at once do not interleave.
    "record() { local IFS=$'\\3'; printf '\\2%s' \"$*\" >&9; }",
    ...texts.map((text, index) => `printf '\\1%d\\0' ${index} >&9\n${text}\nwait`),
  ].join('\n');
  writeFileSync(path.join(folder, 'script.sh'), `exec 9>'${path.join(folder, 'out')}'\n${script}\n`);
  const run = spawnSync('bash', ['--norc', '--noprofile', 'script.sh'], { cwd: folder, encoding: 'utf8', timeout: 60_000 });
  if (run.status === null) throw new Error(`bash did not finish: ${run.error?.message}`);
  const found: (string[][] | undefined)[] = texts.map(() => undefined);
  for (const block of readFileSync(path.join(folder, 'out'), 'utf8').split('\u0001').slice(1)) {
    const [index, ...calls] = block.split('\u0002');
    found[Number(index!.replace('\0', ''))] = calls.map((call) => (call === '' ? [] : call.split('\u0003')));
  }
  return found;
}

/** What bash passes to `record` for each command (undefined: bash refused the command). */
function bashArguments(commands: readonly string[]): (string[] | undefined)[] {
  const folder = tempDir('hermes-bash-agreement-');
  writeFileSync(path.join(folder, 'in'), 'input\n');
  const script = [
    // Each command's arguments go to descriptor 9, which no generated redirection touches.
    "record() { printf '\\2' >&9; [ $# -eq 0 ] || printf '%s\\0' \"$@\" >&9; }",
    ...commands.map((command, index) => `printf '\\1%d\\0' ${index} >&9\n${command}`),
  ].join('\n');
  writeFileSync(path.join(folder, 'script.sh'), `exec 9>'${path.join(folder, 'out')}'\n${script}\n`);
  const run = spawnSync('bash', ['--norc', '--noprofile', 'script.sh'], { cwd: folder, encoding: 'utf8', timeout: 60_000 });
  if (run.status === null) throw new Error(`bash did not finish: ${run.error?.message}`);
  const out = readFileSync(path.join(folder, 'out'), 'utf8');
  const found: (string[] | undefined)[] = commands.map(() => undefined);
  for (const block of out.split('\u0001').slice(1)) {
    const [index, ran] = block.split('\u0002');
    // No record mark: a redirection failed, and the command did not run.
    if (ran !== undefined) found[Number(index!.replace('\0', ''))] = ran.split('\0').slice(0, -1);
  }
  return found;
}

test('the detector reads the arguments of random commands with redirections as bash does', () => {
  const next = random(Number(process.env.BASH_AGREEMENT_SEED ?? 20261205));
  const commands = Array.from({ length: Number(process.env.BASH_AGREEMENT_COUNT ?? 600) }, () => randomCommand(next));
  const expected = bashArguments(commands);
  const disagreements: string[] = [];
  let compared = 0;
  commands.forEach((command, index) => {
    const wanted = expected[index];
    if (wanted === undefined) return; // a syntax error bash refused: nothing ran
    const verdict = classifyCommand(command, VECTOR_CONTEXT);
    // Text the parser could not read whole is asked about whatever its words: only a clean misread hides.
    if (unread(verdict)) return;
    compared += 1;
    const found = verdict.commands.find((parsed) => parsed.name === 'record')?.args;
    if (JSON.stringify(found) !== JSON.stringify(wanted)) disagreements.push(`${JSON.stringify(command)}: bash ${JSON.stringify(wanted)}, detector ${JSON.stringify(found)}`);
  });
  expect(disagreements).toEqual([]);
  // Most commands run in bash and read cleanly by the detector: the comparison is not vacuous.
  expect(expected.filter((args) => args !== undefined).length).toBeGreaterThan(commands.length * 0.6);
  expect(compared).toBeGreaterThan(commands.length * 0.5);
});

/** Places a command can stand in: groups, subshells, substitutions, control flow, negation. */
const NESTINGS: ((inner: string) => string)[] = [
  (inner) => `( ${inner} )`,
  (inner) => `{ ${inner}; }`,
  (inner) => `: $(${inner})`,
  (inner) => `true "$(${inner})"`,
  (inner) => `if true; then ${inner}; fi`,
  (inner) => `for i in 1; do ${inner}; done`,
  (inner) => `case x in x) ${inner};; esac`,
  (inner) => `! ${inner}`,
  (inner) => `f() { ${inner}; }; f`,
  (inner) => `echo $(( 1 )) && ${inner}`,
  (inner) => `x=$(${inner}) true`,
  (inner) => `cat <(${inner})`,
];

/** A command without a heredoc (its body would need a line of its own), nested once or twice. */
function randomNesting(next: () => number): string {
  let inner = randomCommand(next);
  // A `#` starting a word (`>&-#h` too) would comment out the rest of the line, closing brackets included.
  while (inner.includes('\n') || inner.includes('#')) inner = randomCommand(next);
  const depth = 1 + Math.floor(next() * 2);
  for (let level = 0; level < depth; level++) inner = NESTINGS[Math.floor(next() * NESTINGS.length)]!(inner);
  return inner;
}

test('the detector finds every call bash makes of commands nested in groups, substitutions and control flow', () => {
  const next = random(Number(process.env.BASH_AGREEMENT_SEED ?? 20261205) + 2);
  const texts = Array.from({ length: Number(process.env.BASH_AGREEMENT_COUNT ?? 600) / 2 }, () => randomNesting(next));
  expect(disagreementsIn(texts, bashCalls(texts))).toEqual([]);
});

test('the detector finds every call of random lists and pipelines of such commands that bash makes', () => {
  const next = random(Number(process.env.BASH_AGREEMENT_SEED ?? 20261205) + 1);
  const texts = Array.from({ length: Number(process.env.BASH_AGREEMENT_COUNT ?? 600) / 2 }, () => randomList(next));
  expect(disagreementsIn(texts, bashCalls(texts))).toEqual([]);
});

/** Texts whose calls the detector lists differently from those bash made; fails if too few were compared. */
function disagreementsIn(texts: readonly string[], made: readonly (string[][] | undefined)[]): string[] {
  const disagreements: string[] = [];
  let compared = 0;
  texts.forEach((text, index) => {
    const calls = made[index];
    const verdict = classifyCommand(text, VECTOR_CONTEXT);
    if (calls === undefined || unread(verdict)) return;
    const found = verdict.commands.filter((parsed) => parsed.name === 'record').map((parsed) => parsed.args);
    // A call bash made that the detector does not list is a miss; one it lists that bash did not
    // make may have met a failed redirection (nothing ran), which is no misread.
    if (found.length < calls.length || (found.length === calls.length && JSON.stringify(sorted(found)) !== JSON.stringify(sorted(calls)))) {
      disagreements.push(`${JSON.stringify(text)}: bash ${JSON.stringify(calls)}, detector ${JSON.stringify(found)}`);
    }
    if (found.length === calls.length) compared += 1;
  });
  if (compared < texts.length * 0.4) disagreements.push(`only ${compared} of ${texts.length} texts compared`);
  return disagreements;
}

/** The detector says it could not read the text whole (a syntax error, a word it knows it misread): it asks. */
function unread(verdict: CommandVerdict): boolean {
  return verdict.parseError !== undefined || verdict.rules.some((rule) => rule.id === 'U01');
}

function sorted(calls: string[][]): string[] {
  return calls.map((call) => JSON.stringify(call)).sort();
}
