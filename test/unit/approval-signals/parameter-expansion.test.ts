// `${name<operation>}` as bash evaluates it on a known value, or unknown (undefined) where the gate
// cannot be sure: the word a command gets is judged, not the variable it came from.
import { expandParameter } from '../../../src/approval-signals/detector/parameter-expansion';

const expand = (text: string, value: string | undefined) => expandParameter(text, 'x', value);

it.each([
  ['${x}', 'build', 'build'],
  ['$x', 'build', 'build'],
  ['${#x}', 'build', '5'],
  ['${x:-/}', 'build', 'build'],
  ['${x:-/}', '', '/'],
  ['${x-/}', '', ''],
  ['${x:+/}', 'build', '/'],
  ['${x+~}', '', '~'],
  ['${x:+/}', '', ''],
  ['${x:=/etc}', '', '/etc'],
  ['${x:?gone}', 'build', 'build'],
  ['${x%/*}', '/etc/abc', '/etc'],
  ['${x%%/*}', '/etc/abc', ''],
  ['${x#*/}', '/etc/abc', 'etc/abc'],
  ['${x##*/}', '/etc/abc', 'abc'],
  ['${x#[/.]}', './abc', '/abc'],
  ['${x%[!c]}', 'abc', 'abc'],
  ['${x:0:4}', '/etcx', '/etc'],
  ['${x: -3}', '/etc', 'etc'],
  ['${x:1:-1}', '/etc/', 'etc'],
  ['${x/build/etc}', '/build/build', '/etc/build'],
  ['${x//build/etc}', '/build/build', '/etc/etc'],
  ['${x/#b*d}', 'build/build', ''],
  ['${x/%d}', 'build', 'buil'],
  ['${x/b?/}', 'build', 'ild'],
  ['${x^^}', 'dist', 'DIST'],
  ['${x,}', 'Dist', 'dist'],
])('%s of %j is %j', (text, value, expected) => {
  expect(expand(text, value)).toBe(expected);
});

it.each([
  ['${x:-/}', undefined], // the value is unknown, so is the default's use
  ['${x:+$HOME}', 'build'], // a word with an expansion in it
  ['${x:+"/"}', 'build'], // or quotes
  ['${x/build/\\/}', 'build'], // or an escape
  ['${x:?gone}', ''], // an error: the command does not run as written
  ['${!x}', '/'], // indirection
  ['${x@Q}', 'build'], // a transformation
  ['${x:3:-2}', 'abcd'], // a negative length before the offset: bash refuses it
])('%s of %j is unknown', (text, value) => {
  expect(expand(text, value)).toBeUndefined();
});
