import '../../../src/tools/read-file';
import { registry } from '../../../src/registry/registry';
import { createFileToolFixture, type FileToolFixture } from './file-tool-fixture';
import { largestDecodeDuring } from '../../helpers/decoded-text';

let fixture: FileToolFixture;
beforeEach(async () => {
  fixture = await createFileToolFixture();
});
afterEach(() => fixture.cleanup());

const numbered = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, index) => `${String(from + index).padStart(6)}|line ${from + index}`).join('\n');

describe('read_file', () => {
  it('shows numbered lines of a relative path resolved against the workspace cwd', async () => {
    const absolute = await fixture.put('notes/todo.txt', 'alpha\nbeta\n');
    const result = await fixture.call('read_file', { path: 'notes/todo.txt' });
    expect(result).toEqual({ content: '     1|alpha\n     2|beta', total_lines: 2, path: absolute });
  });

  it('pages through a long file with offset and limit', async () => {
    await fixture.put('long.txt', Array.from({ length: 30 }, (_, index) => `line ${index + 1}`).join('\n'));
    const first = await fixture.call('read_file', { path: 'long.txt', limit: 10 });
    expect(first.content).toBe(numbered(1, 10));
    expect(first.total_lines).toBe(30);
    expect(first.truncated).toBe(true);
    expect(first.hint).toContain('offset=11');

    const last = await fixture.call('read_file', { path: 'long.txt', offset: '21', limit: 10 });
    expect(last.content).toBe(numbered(21, 30));
    expect(last.truncated).toBeUndefined();
    expect(last.hint).toBeUndefined();
  });

  it("reads a page of a file of millions of short lines without decoding the whole file on the worker's thread", async () => {
    await fixture.put('newlines.txt', Buffer.alloc(60 * 1024 * 1024, 10));
    // Decoded and split whole, it held the thread 2.3 s per read, and a reply may hold many reads.
    const { value: result, largestDecode } = await largestDecodeDuring(() => fixture.call('read_file', { path: 'newlines.txt', offset: 5, limit: 2 }));
    expect(result).toMatchObject({ content: '     5|\n     6|', total_lines: 60 * 1024 * 1024, truncated: true });
    expect(largestDecode).toBeLessThan(64 * 1024);
  });

  it('reads up to 500 lines when no limit is given', async () => {
    await fixture.put('big.txt', Array.from({ length: 600 }, (_, index) => `line ${index + 1}`).join('\n'));
    const result = await fixture.call('read_file', { path: 'big.txt' });
    expect(result.content.split('\n')).toHaveLength(500);
    expect(result.hint).toContain('offset=501');
  });

  it('cuts lines longer than 2000 characters with a marker', async () => {
    await fixture.put('wide.txt', `${'x'.repeat(2500)}\nshort\n`);
    const result = await fixture.call('read_file', { path: 'wide.txt' });
    const [wide, short] = result.content.split('\n');
    expect(wide).toBe(`     1|${'x'.repeat(2000)} ... [line truncated]`);
    expect(short).toBe('     2|short');
  });

  it('shows CRLF files without carriage returns', async () => {
    await fixture.put('windows.txt', 'one\r\ntwo\r\n');
    const result = await fixture.call('read_file', { path: 'windows.txt' });
    expect(result.content).toBe('     1|one\n     2|two');
    expect(result.total_lines).toBe(2);
  });

  it('reads an empty file as no lines', async () => {
    await fixture.put('empty.txt', '');
    expect(await fixture.call('read_file', { path: 'empty.txt' })).toMatchObject({ content: '', total_lines: 0 });
  });

  it('refuses a binary file and says how big it is', async () => {
    await fixture.put('image.bin', Buffer.from([0x89, 0x50, 0x00, 0x47, 0x0a]));
    expect(await fixture.call('read_file', { path: 'image.bin' })).toEqual({
      error: 'Cannot read binary file: image.bin (5 bytes)',
    });
  });

  it('suggests similar file names when the file does not exist', async () => {
    await fixture.put('conf/config.yaml', 'a: 1');
    await fixture.put('conf/Config.json', '{}');
    await fixture.put('conf/settings.toml', '');
    await fixture.put('conf/nested/config.yml.bak', '');
    const result = await fixture.call('read_file', { path: 'conf/config.yml' });
    expect(result.error).toBe('File not found: conf/config.yml');
    expect(result.similar_files).toEqual(['config.yaml', 'Config.json']);
  });

  it('reports a missing file without suggestions when its directory is missing too', async () => {
    expect(await fixture.call('read_file', { path: 'nowhere/file.txt' })).toEqual({ error: 'File not found: nowhere/file.txt' });
  });

  it('tells the model to list a directory with search_files', async () => {
    await fixture.put('src/index.ts', '');
    const result = await fixture.call('read_file', { path: 'src' });
    expect(result.error).toContain('search_files');
    expect(result.error).toContain("target='files'");
  });

  it('refuses an offset past the end and names total_lines', async () => {
    await fixture.put('short.txt', 'a\nb\nc\n');
    const result = await fixture.call('read_file', { path: 'short.txt', offset: 10 });
    expect(result.error).toContain('total_lines: 3');
    expect(result.total_lines).toBe(3);
  });

  it('rejects calls without a path or with a limit above 2000, naming the field', async () => {
    expect((await fixture.call('read_file', {})).error).toContain('path');
    expect((await fixture.call('read_file', { path: 'x', limit: 5000 })).error).toContain('limit');
    expect((await fixture.call('read_file', { path: 'x', offset: 0 })).error).toContain('offset');
  });

  it('is a retry-safe path-scoped file tool', () => {
    const entry = registry.get('read_file')!;
    expect(entry).toMatchObject({ toolset: 'file', emoji: '📖', retrySafe: true, maxResultChars: undefined });
    expect(entry.concurrency({ path: 'src/a.ts' })).toEqual({ mode: 'path', path: 'src/a.ts', access: 'read' });
    expect(entry.schema.parameters).toMatchObject({ required: ['path'] });
  });
});
