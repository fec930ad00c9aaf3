import { mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import '../../../src/tools/search-files';
import { registry } from '../../../src/registry/registry';
import { createFileToolFixture, type FileToolFixture } from './file-tool-fixture';
import { longestStallDuring } from '../../helpers/event-loop-stall';

let fixture: FileToolFixture;
beforeEach(async () => {
  fixture = await createFileToolFixture();
  await fixture.put('src/app.ts', 'import { helper } from "./helper";\nexport const answer = helper(42);\n');
  await fixture.put('src/helper.ts', 'export function helper(value: number) {\n  return value * 2;\n}\n');
  await fixture.put('src/view.tsx', 'export const View = () => helper(1);\n');
  await fixture.put('README.md', '# Demo\nCall helper() to double.\n');
});
afterEach(() => fixture.cleanup());

describe('search_files (content)', () => {
  it('finds regex matches with workspace-relative paths and line numbers', async () => {
    const result = await fixture.call('search_files', { pattern: 'helper\\(\\d+\\)' });
    expect(result).toEqual({
      matches: [
        { path: 'src/app.ts', line: 2, text: 'export const answer = helper(42);' },
        { path: 'src/view.tsx', line: 1, text: 'export const View = () => helper(1);' },
      ],
      total_matches: 2,
      truncated: false,
    });
  });

  it('filters files by file_glob, including braces and character classes', async () => {
    const typescript = await fixture.call('search_files', { pattern: 'helper', file_glob: '*.ts' });
    expect(new Set(typescript.matches.map((match: { path: string }) => match.path))).toEqual(
      new Set(['src/app.ts', 'src/helper.ts']),
    );
    const braces = await fixture.call('search_files', { pattern: 'helper', file_glob: '*.{tsx,md}' });
    expect(braces.matches.map((match: { path: string }) => match.path)).toEqual(['README.md', 'src/view.tsx']);
    const classes = await fixture.call('search_files', { pattern: 'helper', file_glob: '[hv]*.ts?' });
    expect(classes.matches.map((match: { path: string }) => match.path)).toEqual(['src/view.tsx']);
  });

  it('searches under a relative path', async () => {
    const result = await fixture.call('search_files', { pattern: 'Demo', path: 'src' });
    expect(result.matches).toEqual([]);
    expect((await fixture.call('search_files', { pattern: 'double', path: 'README.md' })).matches).toEqual([
      { path: 'README.md', line: 2, text: 'Call helper() to double.' },
    ]);
  });

  it('skips binary files, files over 2 MB and dependency folders', async () => {
    await fixture.put('logo.png', Buffer.concat([Buffer.from('needle'), Buffer.from([0, 1, 2])]));
    await fixture.put('huge.log', `${'a'.repeat(2 * 1024 * 1024)}\nneedle\n`);
    await fixture.put('node_modules/pkg/index.js', 'needle');
    await fixture.put('.git/config', 'needle');
    await fixture.put('notes.txt', 'a needle here');
    const result = await fixture.call('search_files', { pattern: 'needle' });
    expect(result.matches).toEqual([{ path: 'notes.txt', line: 1, text: 'a needle here' }]);
  });

  it('says which files were too large to search, so "no matches" does not mislead', async () => {
    await fixture.put('huge.log', `${'a'.repeat(2 * 1024 * 1024)}\nneedle\n`);
    const missed = await fixture.call('search_files', { pattern: 'needle' });
    expect(missed.matches).toEqual([]);
    expect(missed.note).toBe('1 file larger than 2 MB was not searched (huge.log): search it with grep in the terminal, or read it in pages with read_file.');
    for (let index = 0; index < 6; index++) await fixture.put(`logs/${index}.log`, 'b'.repeat(2 * 1024 * 1024 + 1));
    const many = await fixture.call('search_files', { pattern: 'helper', path: 'logs' });
    expect(many.note).toMatch(/^6 files larger than 2 MB were not searched \(logs\/0\.log, logs\/1\.log, logs\/2\.log, logs\/3\.log, logs\/4\.log, and 1 more\): search them/);
  });

  it('shows lines of context around each match', async () => {
    const result = await fixture.call('search_files', { pattern: 'return', context: 1 });
    expect(result.matches).toEqual([
      {
        path: 'src/helper.ts',
        line: 2,
        text: '  return value * 2;',
        context_before: ['export function helper(value: number) {'],
        context_after: ['}'],
      },
    ]);
  });

  it('falls back to a literal search when the pattern is not a valid regex, and says so', async () => {
    const result = await fixture.call('search_files', { pattern: 'helper(' });
    expect(result.note).toContain('literal');
    expect(result.total_matches).toBe(4);
  });

  it('accepts a (?i) prefix for case-insensitive search', async () => {
    const result = await fixture.call('search_files', { pattern: '(?i)DEMO' });
    expect(result.matches).toEqual([{ path: 'README.md', line: 1, text: '# Demo' }]);
    expect(result.note).toBeUndefined();
  });

  it('pages through many matches with offset and limit', async () => {
    await fixture.put('many.txt', Array.from({ length: 25 }, (_, index) => `hit ${index + 1}`).join('\n'));
    const first = await fixture.call('search_files', { pattern: '^hit', limit: 10 });
    expect(first).toMatchObject({ total_matches: 25, truncated: true });
    expect(first.matches).toHaveLength(10);
    expect(first.hint).toContain('offset=10');
    const last = await fixture.call('search_files', { pattern: '^hit', limit: 10, offset: 20 });
    expect(last.matches.map((match: { text: string }) => match.text)).toEqual(['hit 21', 'hit 22', 'hit 23', 'hit 24', 'hit 25']);
    expect(last.truncated).toBe(false);
  });

  it('cuts matched lines at 500 characters', async () => {
    await fixture.put('wide.txt', `needle${'x'.repeat(1000)}`);
    const result = await fixture.call('search_files', { pattern: 'needle' });
    expect(result.matches[0].text.startsWith(`needle${'x'.repeat(494)} ... [line truncated]`)).toBe(true);
  });

  it('answers a search with no matches with an empty list and a hint', async () => {
    const result = await fixture.call('search_files', { pattern: 'zebra' });
    expect(result).toMatchObject({ matches: [], total_matches: 0, truncated: false });
    expect(result.hint).toContain('zebra');
  });

  it('reports a missing path', async () => {
    expect(await fixture.call('search_files', { pattern: 'x', path: 'missing' })).toEqual({ error: 'Path not found: missing' });
  });

  it('shows absolute paths for matches outside the workspace', async () => {
    const outside = await realpath(await mkdtemp(path.join(os.tmpdir(), 'hermes-outside-')));
    try {
      await writeFile(path.join(outside, 'far.txt'), 'needle\n');
      const result = await fixture.call('search_files', { pattern: 'needle', path: outside });
      expect(result.matches).toEqual([{ path: path.join(outside, 'far.txt'), line: 1, text: 'needle' }]);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });
});

describe('search_files never hands over what a read_file would ask a person for', () => {
  it('skips secret files in the tree (.env, a key folder) and says how many, so no match or count comes from them', async () => {
    await fixture.put('.env', 'STRIPE_LIVE=sk_live_0123456789abcdef\n');
    await fixture.put('config/.env.production', 'STRIPE_LIVE=sk_live_0123456789abcdef\n');
    await fixture.put('notes.txt', 'STRIPE_LIVE is set in the environment\n');
    const result = await fixture.call('search_files', { pattern: 'STRIPE_LIVE' });
    expect(result.matches).toEqual([{ path: 'notes.txt', line: 1, text: 'STRIPE_LIVE is set in the environment' }]);
    expect(result.total_matches).toBe(1);
    expect(result.note).toMatch(/^2 files were skipped: they hold secrets/);
    const names = await fixture.call('search_files', { target: 'files', pattern: '.env*' });
    expect(names.matches).toEqual([]);
    expect(names.note).toMatch(/^2 files were skipped/);
  });

  it('skips /etc/shadow in a search of /etc, where a read_file of it waits for approval', async () => {
    const result = await fixture.call('search_files', { pattern: '^root:', path: '/etc', file_glob: 'shadow' });
    expect(result.matches).toEqual([]);
    expect(result.total_matches).toBe(0);
  });

  it('reads the secrets of a folder whose search was approved as one that holds secrets', async () => {
    await fixture.put('.env', 'STRIPE_LIVE=sk_live_0123456789abcdef\n');
    fixture.context.commandApproval = { approved: true, sensitive: true };
    const result = await fixture.call('search_files', { pattern: 'STRIPE_LIVE' });
    expect(result.matches.map((match: { path: string }) => match.path)).toEqual(['.env']);
    expect(result.note).toBeUndefined();
  });

  it("skips the worker's own files (its home, store) inside the searched tree", async () => {
    await fixture.put('hermes-home/config.yaml', 'model:\n  api_key: sk-own-key-000000000000\n');
    await fixture.put('src/key.txt', 'api_key is read from the config\n');
    fixture.context.services = { secretFiles: async () => [`${fixture.dir}/hermes-home/`] };
    const result = await fixture.call('search_files', { pattern: 'api_key' });
    expect(result.matches.map((match: { path: string }) => match.path)).toEqual(['src/key.txt']);
    expect(result.note).toMatch(/^1 file was skipped/);
  });

  it('does not follow a link in the tree, to a file or to a folder outside it', async () => {
    const outside = await realpath(await mkdtemp(path.join(os.tmpdir(), 'hermes-outside-')));
    try {
      await writeFile(path.join(outside, 'private.txt'), 'needle outside\n');
      await symlink(path.join(outside, 'private.txt'), path.join(fixture.dir, 'linked.txt'));
      await symlink(outside, path.join(fixture.dir, 'linked-folder'));
      await fixture.put('inside.txt', 'needle inside\n');
      const result = await fixture.call('search_files', { pattern: 'needle' });
      expect(result.matches).toEqual([{ path: 'inside.txt', line: 1, text: 'needle inside' }]);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it('reads a walked file only while it is still a plain file under the search root', async () => {
    const outside = await realpath(await mkdtemp(path.join(os.tmpdir(), 'hermes-outside-')));
    try {
      await writeFile(path.join(outside, 'secret.txt'), 'needle\n');
      const inside = await fixture.put('sub/file.txt', 'needle\n');
      const root = path.join(fixture.dir, 'sub');
      expect(await fixture.context.workspace.readWithin!(inside, root, 1024)).toMatchObject({ realPath: inside });
      // What a process of the model's could do between the walk's listing and the read.
      await rm(root, { recursive: true });
      await symlink(outside, root);
      expect(await fixture.context.workspace.readWithin!(inside, root, 1024)).toBeNull();
      await rm(root);
      await fixture.put('sub/file.txt', 'needle\n');
      await rm(inside);
      await symlink(path.join(outside, 'secret.txt'), inside);
      expect(await fixture.context.workspace.readWithin!(inside, root, 1024)).toBeNull();
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it('counts a match only where it survives redaction: a count cannot spell out a hidden key', async () => {
    await fixture.put('app.js', 'const key = "sk-abcdef0123456789";\n');
    fixture.context.services = { redact: (text: string) => text.replace(/sk-[a-z0-9]+/g, '[REDACTED]') };
    const probe = await fixture.call('search_files', { pattern: 'sk-abc' });
    expect(probe.total_matches).toBe(0);
    expect((await fixture.call('search_files', { pattern: 'const key' })).total_matches).toBe(1);
  });

  it('matches in linear time: a pattern with nested repetition cannot stall the worker', async () => {
    await fixture.put('long.txt', `${'a'.repeat(5000)}b\n`);
    const started = Date.now();
    const result = await fixture.call('search_files', { pattern: '^(a+)+$' });
    expect(result.total_matches).toBe(0);
    expect(Date.now() - started).toBeLessThan(2000);
  });
});

describe('search_files (files)', () => {
  it('finds files by a glob on their name, sorted by path', async () => {
    await fixture.put('test/app.test.ts', '');
    const result = await fixture.call('search_files', { target: 'files', pattern: '*.ts' });
    expect(result).toEqual({
      matches: ['src/app.ts', 'src/helper.ts', 'test/app.test.ts'],
      total_matches: 3,
      truncated: false,
    });
  });

  it('matches the relative path when the pattern contains a slash', async () => {
    await fixture.put('test/unit/deep.test.ts', '');
    const slash = await fixture.call('search_files', { target: 'files', pattern: 'src/*.ts' });
    expect(slash.matches).toEqual(['src/app.ts', 'src/helper.ts']);
    const globstar = await fixture.call('search_files', { target: 'files', pattern: '**/*.test.ts' });
    expect(globstar.matches).toEqual(['test/unit/deep.test.ts']);
  });

  it('lists a directory relative to the search path and pages the list', async () => {
    const result = await fixture.call('search_files', { target: 'files', pattern: '*', path: 'src', limit: 2 });
    expect(result).toMatchObject({ matches: ['src/app.ts', 'src/helper.ts'], total_matches: 3, truncated: true });
  });

  it('answers an unmatched name with an empty list and a hint to use wildcards', async () => {
    const result = await fixture.call('search_files', { target: 'files', pattern: 'config' });
    expect(result).toMatchObject({ matches: [], total_matches: 0, truncated: false });
    expect(result.hint).toContain('*config*');
  });

  it('rejects an unknown target, naming the field', async () => {
    expect((await fixture.call('search_files', { target: 'dirs', pattern: '*' })).error).toContain('target');
  });

  it('stops a long walk when the session is cancelled instead of reporting an error', async () => {
    await Promise.all(Array.from({ length: 250 }, (_, index) => fixture.put(`bulk/f${index}.txt`, 'x')));
    const controller = new AbortController();
    // An Error reason, as Temporal gives (a CancelledFailure); jest's realm hides that a DOMException is an Error.
    const reason = Object.assign(new Error('session cancelled'), { name: 'AbortError' });
    controller.abort(reason);
    const cancelled = { ...fixture.context, signal: controller.signal };
    await expect(registry.dispatch('search_files', { pattern: 'x' }, cancelled)).rejects.toBe(reason);
  });

  it('is a retry-safe tool that can run in parallel', () => {
    const entry = registry.get('search_files')!;
    expect(entry).toMatchObject({ toolset: 'file', emoji: '🔎', retrySafe: true });
    expect(entry.concurrency({ pattern: 'x' })).toEqual({ mode: 'parallel' });
  });
});

describe('search_files (cost of the pattern)', () => {
  it("searches a long line with a costly pattern without stalling the worker's thread", async () => {
    // 3.5 s of RE2 on the main thread, where every session's heartbeats and calls wait.
    await fixture.put('minified.js', `${'a'.repeat(20_000)}\n`);
    const { value: result, longestStallMs } = await longestStallDuring(() => fixture.call('search_files', { pattern: `${'[a-y]{1000}'.repeat(8)}[b-z]` }));
    expect(result).toMatchObject({ matches: [], total_matches: 0 });
    expect(longestStallMs).toBeLessThan(500);
  });
});
