// Brace expansion as the gate sees a word: the words bash would make, at most `limit` of them,
// in time that grows with the word, not with the number of words it could make.
import { classifyCommand, loadCommandClassifier } from '../../../src/approval-signals/classify-command';
import { expandBraces } from '../../../src/approval-signals/detector/brace-expansion';
import { VECTOR_CONTEXT } from './vectors/vector-types';

beforeAll(() => loadCommandClassifier());

it('expands alternatives, sequences and nested groups in bash order', () => {
  expect(expandBraces('{rm,-rf,/}')).toEqual(['rm', '-rf', '/']);
  expect(expandBraces('file{,.bak}')).toEqual(['file', 'file.bak']);
  expect(expandBraces('a{1..3}')).toEqual(['a1', 'a2', 'a3']);
  expect(expandBraces('{a,b}{c,d}')).toEqual(['ac', 'ad', 'bc', 'bd']);
  expect(expandBraces('x{a,{b,c}}y')).toEqual(['xay', 'xby', 'xcy']);
  expect(expandBraces('plain')).toBeUndefined();
});

it('stops at the limit, taking the first words, and says it cut some', () => {
  const cut = jest.fn();
  expect(expandBraces('{a,b}{c,d}{e,f}', 3, cut)).toEqual(['ace', 'acf', 'ade']);
  expect(expandBraces(`x${'{a,b}'.repeat(10)}`, undefined, cut)).toHaveLength(64);
  expect(cut).toHaveBeenCalledTimes(2);
  // Exactly at the limit nothing is cut; a sequence keeps its first 64 values, all of one shape.
  const none = jest.fn();
  expect(expandBraces('{a,b}{c,d}', 4, none)).toHaveLength(4);
  expect(expandBraces('file{1..100}', undefined, none)).toHaveLength(64);
  expect(none).not.toHaveBeenCalled();
});

it('takes little time for a word of many groups, which the worker judges on the thread every session shares', () => {
  const started = Date.now();
  // Expanding each alternative in full took 3.3 s for these 24 groups, and about twice as long for each two more.
  const words = expandBraces(`x${'{a,b}'.repeat(24)}`);
  expect(Date.now() - started).toBeLessThan(1000);
  expect(words).toHaveLength(64);
  expect(words?.[0]).toBe(`x${'a'.repeat(24)}`);
});

it('says a command it could not parse, whose brace words make more than is judged, was not read whole', () => {
  const many = `echo ${'{a,b}'.repeat(7)} (`;
  expect(classifyCommand(many, VECTOR_CONTEXT).rules.map((rule) => rule.id)).toContain('U04');
  const long = `echo ${`${'{a,b}'.repeat(6)} `.repeat(1600)}(`;
  expect(classifyCommand(long, VECTOR_CONTEXT).rules.map((rule) => rule.id)).toContain('U04');
  expect(classifyCommand('echo {a,b} (', VECTOR_CONTEXT).rules.map((rule) => rule.id)).not.toContain('U04');
});
