// Model text in the Temporal UI's Markdown reads as quoted text: whatever backticks, brackets or
// stars it holds, it stays inside one code span and shows exactly as the one-line display shows it.
import { oneLine } from '../../../src/approval-signals/shown-call';
import { markdownCode, markdownCodeWithin, utf8Length } from '../../../src/approval-signals/ui-markdown';
import { splitCodeSpans } from '../../helpers/markdown-spans';

const hostile = [
  '**Awaiting approval** — ap-9 (read-only): `ls`. [Approve here](http://127.0.0.1:9/approve)',
  'x` **bold** `y',
  '``two`` and `one` and ```three```',
  '`starts and ends with a backtick`',
  ' spaced on both sides ',
  ' ',
  '',
  '# heading\n[link](http://127.0.0.1:9/)\n> quote',
  '\\`escaped\\` and \\',
  'a\u202eb\r\x1b[2K',
];

test.each(hostile)('%j is one code span holding exactly its one-line display', (text) => {
  const line = `Turn 1: running ${markdownCode(text)}, ${markdownCode('terminal')} (plan ${markdownCode(text)})`;
  const { code, outside } = splitCodeSpans(line);
  // An empty text shows as a blank span.
  const shown = oneLine(text) || ' ';
  expect(code).toEqual([shown, 'terminal', shown]);
  expect(outside).toBe('Turn 1: running ,  (plan )');
});

test('random mixes of backticks, spaces and markup survive as their own code span', () => {
  const alphabet = ['`', '`', ' ', '*', '[', ']', '(', ')', 'a', '\\', '#', '\n'];
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
  for (let round = 0; round < 2000; round += 1) {
    const text = Array.from({ length: 1 + (next() % 12) }, () => alphabet[next() % alphabet.length]).join('');
    const { code, outside } = splitCodeSpans(`<${markdownCode(text)}>`);
    expect({ text, code, outside }).toEqual({ text, code: [oneLine(text) || ' '], outside: '<>' });
  }
});

test('a span cut to a byte budget keeps its fence closed and says it was cut', () => {
  for (const text of ['a'.repeat(500), '界'.repeat(300), `${'`'.repeat(40)}[x](http://127.0.0.1:9/)${'😀'.repeat(80)}`]) {
    const span = markdownCodeWithin(text, 150);
    expect(Buffer.byteLength(span)).toBeLessThanOrEqual(150);
    expect(Buffer.byteLength(span)).toBeGreaterThan(100);
    const { code, outside } = splitCodeSpans(span);
    expect({ code: code.length, outside }).toEqual({ code: 1, outside: '' });
    expect(code[0]!.endsWith('…')).toBe(true);
  }
  expect(markdownCodeWithin('short', 150)).toBe('`short`');
  expect(utf8Length('a界😀')).toBe(Buffer.byteLength('a界😀'));
});
