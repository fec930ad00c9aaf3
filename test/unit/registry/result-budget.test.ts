// Oversized tool results: the model gets a preview and the path of a file holding the whole
// result; results within budget pass through untouched.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LocalWorkspace } from '../../../src/environments/local-workspace';
import type { Workspace } from '../../../src/environments/workspace';
import { applyResultBudget, persistedResultPath } from '../../../src/registry/result-budget';

const sessionId = `budget-test-${process.pid}`;
const workspace = new LocalWorkspace(os.tmpdir());

afterAll(() => rmSync(path.dirname(persistedResultPath(sessionId, 'x')), { recursive: true, force: true }));

describe('applyResultBudget', () => {
  it('returns a result within budget unchanged and writes no file', async () => {
    const result = JSON.stringify({ output: 'small' });
    expect(await applyResultBudget(result, result.length, { workspace, sessionId, toolCallId: 'small' })).toBe(result);
    expect(existsSync(persistedResultPath(sessionId, 'small'))).toBe(false);
  });

  it('saves an oversized result whole and returns a preview naming the file and the size', async () => {
    const result = `BEGIN${'é'.repeat(3000)}${'x'.repeat(10_000)}END`;
    const reply = await applyResultBudget(result, 5000, { workspace, sessionId, toolCallId: 'call_big' });
    const file = persistedResultPath(sessionId, 'call_big');

    expect(readFileSync(file, 'utf8')).toBe(result);
    expect(reply.startsWith('<persisted-output>\n')).toBe(true);
    expect(reply.endsWith('\n</persisted-output>')).toBe(true);
    expect(reply).toContain(`Full output saved to: ${file}`);
    // 13,008 characters; the two-byte é makes it 16,008 bytes.
    expect(reply).toContain('This tool result was too large (13,008 characters, 15.6 KB).');
    expect(reply).toContain('Preview (first 1500 chars):');
    expect(reply).toContain(`${result.slice(0, 1500)}\n...`);
    expect(reply).not.toContain('END');
    expect(reply.length).toBeLessThan(result.length);
  });

  it('reports megabytes for very large results', async () => {
    const result = 'y'.repeat(3 * 1024 * 1024);
    const reply = await applyResultBudget(result, 100_000, { workspace, sessionId, toolCallId: 'huge' });
    expect(reply).toContain('(3,145,728 characters, 3.0 MB)');
    expect(readFileSync(persistedResultPath(sessionId, 'huge'), 'utf8')).toHaveLength(result.length);
  });

  it('keeps file names safe whatever the ids contain', () => {
    const file = persistedResultPath('../../etc', 'call/1 x');
    expect(path.basename(file)).toBe('call_1_x.txt');
    const relative = path.relative(path.join(os.tmpdir(), 'hermes-results'), file);
    expect(relative.split(path.sep)).toHaveLength(2);
    expect(relative.startsWith('..' + path.sep)).toBe(false);
  });

  it('falls back to plain truncation when the result cannot be saved', async () => {
    const broken: Workspace = {
      cwd: workspace.cwd,
      resolve: (target) => workspace.resolve(target),
      readFile: (target) => workspace.readFile(target),
      stat: (target) => workspace.stat(target),
      realpath: (target) => workspace.realpath(target),
      walk: (root, options) => workspace.walk(root, options),
      writeFile: () => Promise.reject(new Error('read-only filesystem')),
    };
    const result = 'z'.repeat(300);
    const reply = await applyResultBudget(result, 100, { workspace: broken, sessionId, toolCallId: 'broken' });
    expect(reply).toBe(`${'z'.repeat(100)}\n... [result truncated: 300 characters in total; it could not be saved]`);
  });
});
