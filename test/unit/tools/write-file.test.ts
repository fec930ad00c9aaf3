import { readdir } from 'node:fs/promises';
import '../../../src/tools/write-file';
import { registry } from '../../../src/registry/registry';
import { createFileToolFixture, type FileToolFixture } from './file-tool-fixture';

let fixture: FileToolFixture;
beforeEach(async () => {
  fixture = await createFileToolFixture();
});
afterEach(() => fixture.cleanup());

describe('write_file', () => {
  it('creates a file and its parent directories from a relative path', async () => {
    const result = await fixture.call('write_file', { path: 'deep/er/note.txt', content: 'héllo\nworld\n' });
    expect(result).toEqual({ success: true, path: `${fixture.dir}/deep/er/note.txt`, bytes_written: 13, lines: 2 });
    expect(await fixture.read('deep/er/note.txt')).toBe('héllo\nworld\n');
  });

  it('overwrites the whole file', async () => {
    await fixture.put('app.txt', 'old content that is long\nand has two lines\n');
    const result = await fixture.call('write_file', { path: 'app.txt', content: 'new' });
    expect(result).toMatchObject({ success: true, bytes_written: 3, lines: 1 });
    expect(await fixture.read('app.txt')).toBe('new');
  });

  it('writes an empty file', async () => {
    expect(await fixture.call('write_file', { path: 'empty', content: '' })).toMatchObject({ bytes_written: 0, lines: 0 });
    expect(await fixture.read('empty')).toBe('');
  });

  it('reports a directory in the way as an error and leaves no temporary file behind', async () => {
    await fixture.put('target/inside.txt', '');
    const result = await fixture.call('write_file', { path: 'target', content: 'x' });
    expect(result.error).toMatch(/^Could not write target: .*directory/);
    expect((await readdir(fixture.dir)).sort()).toEqual(['target']);
  });

  it('reports a file standing where a parent directory should be', async () => {
    await fixture.put('blocker', 'i am a file');
    const result = await fixture.call('write_file', { path: 'blocker/child.txt', content: 'x' });
    expect(result.error).toMatch(/^Could not write blocker\/child\.txt: /);
  });

  it('rejects a call without content, naming the field', async () => {
    expect((await fixture.call('write_file', { path: 'a.txt' })).error).toContain('content');
  });

  it('is scoped to its path for concurrency and not retried blindly', () => {
    const entry = registry.get('write_file')!;
    expect(entry).toMatchObject({ toolset: 'file', emoji: '✍️', retrySafe: false });
    expect(entry.concurrency({ path: 'a.txt', content: '' })).toEqual({ mode: 'path', path: 'a.txt' });
  });
});
