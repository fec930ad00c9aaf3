import { readFileSync } from 'node:fs';
import path from 'node:path';
import { registersAtTopLevel } from '../../../src/registry/discovery';
import { globMatcher, isBinary, linePage, splitLines, unifiedDiff } from '../../../src/tools/file-helpers';
import { largestDecodeDuring } from '../../helpers/decoded-text';

describe('file helpers', () => {
  it.each([
    ['*.ts', 'app.ts', true],
    ['*.ts', 'app.tsx', false],
    ['*.ts', 'src/app.ts', false],
    ['file?.txt', 'file1.txt', true],
    ['file?.txt', 'file10.txt', false],
    ['[ab]*', 'beta', true],
    ['[!ab]*', 'beta', false],
    ['*.{js,ts}', 'x.js', true],
    ['*.{js,ts}', 'x.py', false],
    ['**/*.md', 'README.md', true],
    ['**/*.md', 'docs/guide/intro.md', true],
    ['src/**', 'src/a/b.c', true],
    ['a+b(1).txt', 'a+b(1).txt', true],
    ['{unclosed', '{unclosed', true],
    ['[unclosed', '[unclosed', true],
  ])('glob %s matching %s is %s', (glob, name, expected) => {
    expect(globMatcher(glob).test(name)).toBe(expected);
  });

  it('matches a glob in time linear in the name, whatever its stars: a session names its own files', () => {
    // Backtracking took 14 s for four stars on this name, and hours for six.
    let started = Date.now();
    expect(globMatcher(`${'*a'.repeat(4)}*b`).test('a'.repeat(200))).toBe(false);
    expect(Date.now() - started).toBeLessThan(1000);
    started = Date.now();
    expect(globMatcher(`${'*a'.repeat(12)}*b`).test('a'.repeat(250))).toBe(false);
    expect(globMatcher(`**/${'*a'.repeat(12)}*b`).test(`${'a/'.repeat(1000)}${'a'.repeat(250)}`)).toBe(false);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(() => globMatcher('*'.repeat(257))).toThrow(/longer than 256 characters/);
  });

  it('splits lines without an extra empty line after a final newline', () => {
    expect(splitLines('')).toEqual([]);
    expect(splitLines('a\r\nb\n')).toEqual(['a', 'b']);
    expect(splitLines('a\n\n')).toEqual(['a', '']);
  });

  it('takes a page of lines as splitting the whole text would', () => {
    const texts = ['', 'a', 'a\n', '\n', 'a\n\n', 'a\nb', 'a\r\nb\r\n', 'é\n€\nz', '\n\nx\n\n'];
    for (const text of texts) {
      const all = splitLines(text);
      for (const [first, count] of [[1, 1], [1, 500], [2, 1], [2, 2], [3, 5], [6, 1]] as const) {
        expect({ text, first, count, ...linePage(Buffer.from(text), first, count) }).toEqual({ text, first, count, lines: all.slice(first - 1, first - 1 + count), total: all.length });
      }
    }
  });

  it("pages a file of millions of lines without making a string of each, on the worker's thread", async () => {
    const content = Buffer.alloc(60 * 1024 * 1024, 10);
    // Decoding and splitting it whole took 2.3 s; only the page is decoded.
    const { value: page, largestDecode } = await largestDecodeDuring(() => linePage(content, 1_000_000, 3));
    expect(page).toEqual({ lines: ['', '', ''], total: 60 * 1024 * 1024 });
    expect(largestDecode).toBeLessThan(64);
  });

  it('calls content with a NUL byte in the first 8 KB binary', () => {
    expect(isBinary(Buffer.from('plain text'))).toBe(false);
    expect(isBinary(Buffer.from([104, 0, 105]))).toBe(true);
    expect(isBinary(Buffer.concat([Buffer.alloc(9000, 97), Buffer.from([0])]))).toBe(false);
  });

  it("shows an edit that leaves most of its lines as they were quickly, with only the changed line: the worker's thread waits for it", () => {
    const body = 'a\n'.repeat(40_000);
    const original = `${body}END\n`;
    const started = Date.now();
    // One edit replacing 40,000 lines by the same ones and a changed last line (8 s when cut a line at a time).
    const diff = unifiedDiff(original, [{ start: 0, end: original.length - 1, replacement: `${body}END2` }], 'f.txt');
    expect(Date.now() - started).toBeLessThan(500);
    expect(diff.split('\n').filter((line) => /^[-+][^-+]/.test(line))).toEqual(['-END', '+END2']);
  });

  it('shows separate hunks for distant edits with correct line numbers', () => {
    const original = Array.from({ length: 20 }, (_, index) => `l${index + 1}`).join('\n') + '\n';
    const first = original.indexOf('l3');
    const second = original.indexOf('l15');
    const diff = unifiedDiff(
      original,
      [
        { start: first, end: first + 2, replacement: 'L3\nL3b' },
        { start: second, end: second + 4, replacement: '' },
      ],
      'f.txt',
    );
    expect(diff).toBe(
      [
        '--- a/f.txt',
        '+++ b/f.txt',
        '@@ -1,5 +1,6 @@',
        ' l1',
        ' l2',
        '-l3',
        '+L3',
        '+L3b',
        ' l4',
        ' l5',
        '@@ -13,5 +14,4 @@',
        ' l13',
        ' l14',
        '-l15',
        ' l16',
        ' l17',
      ].join('\n'),
    );
  });

  it('is never loaded as a tool module by discovery', () => {
    const source = readFileSync(path.join(__dirname, '../../../src/tools/file-helpers.ts'), 'utf8');
    expect(registersAtTopLevel(source)).toBe(false);
  });
});
