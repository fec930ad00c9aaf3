// What a sed script runs and writes, read with GNU sed's grammar: commands, not text that looks like them.
import { sedEffects, sedScripts } from '../../../src/approval-signals/detector/sed-script';
import { literalWord } from '../../../src/approval-signals/detector/shell-words';

test.each([
  ['1e rm -rf src', ['rm -rf src'], []],
  ['$!e touch x', ['touch x'], []],
  ['/^#/d; e', [undefined], []],
  ['s/.*/make clean/e', ['make clean'], []],
  ['s/^.*$/a\\/b/ge', ['a/b'], []],
  ['s/x/&-/e', [undefined], []],
  ['s/a/b/gw out.txt', [], ['out.txt']],
  ['/start/,/end/{w saved.txt\n}', [], ['saved.txt']],
  ['\\%x%W log.txt', [], ['log.txt']],
])('%j runs %j and writes %j', (script, runs, writes) => {
  expect(sedEffects(script)).toEqual({ runs, writes });
});

test.each([
  ':a;N;$!ba;s/\\n/ /g',
  '/x/a\\\ne rm -rf src',
  '1i w not-a-file',
  'y/ew/EW/',
  's/e/w/g;s|w|e|',
  '/e w/p',
  '# e rm -rf src',
  's/unterminated',
])('%j runs and writes nothing', (script) => {
  expect(sedEffects(script)).toEqual({ runs: [], writes: [] });
});

test('the scripts are the -e values, else the first operand; --sandbox makes sed refuse e and w', () => {
  const words = (...values: string[]) => values.map((value) => literalWord(value));
  const values = (...args: string[]) => sedScripts(words(...args)).map((word) => word.value);
  expect(values('-n', '1e ls', 'file')).toEqual(['1e ls']);
  expect(values('-ne', 'p', '-e', 'e ls', 'file')).toEqual(['p', 'e ls']);
  expect(values('--expression=w out', '-i.bak', 'file')).toEqual(['w out']);
  expect(values('-f', 'script.sed', 'file')).toEqual([]);
  expect(values('--sandbox', 'e ls', 'file')).toEqual([]);
});
