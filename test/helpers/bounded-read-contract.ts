// The contract every backend's Workspace.readFile keeps against a model that points a file tool
// at something endless: a file larger than the limit, a device, a FIFO. Each is refused, and
// the worker never holds more than the limit (plus one byte) of it.
import path from 'node:path';
import type { WalkOptions, Workspace } from '../../src/environments/workspace';

type Run = (command: string) => Promise<unknown>;

/** Files past `maxBytes` (also sparse ones) fail with EFBIG; one at the limit is read whole. */
export async function expectReadsBoundedBySize(workspace: Workspace, run: Run, workdir: string): Promise<void> {
  await run(`mkdir -p ${workdir} && head -c 5000 /dev/urandom > ${workdir}/five-k && truncate -s 300M ${workdir}/sparse`);
  await expect(workspace.readFile(`${workdir}/five-k`, 4096)).rejects.toMatchObject({ code: 'EFBIG' });
  expect(await workspace.readFile(`${workdir}/five-k`, 5000)).toHaveLength(5000);
  // The default limit: a 300 MB file of nothing is refused, not brought into the worker's memory.
  await expect(workspace.readFile(`${workdir}/sparse`)).rejects.toMatchObject({ code: 'EFBIG' });
}

/** A device or a FIFO is no file to read: refused at once (never read for ever, never waited on). */
export async function expectReadsOfSpecialFilesRefused(workspace: Workspace, run: Run, workdir: string): Promise<void> {
  await run(`mkdir -p ${workdir} && rm -f ${workdir}/pipe && mkfifo ${workdir}/pipe && ln -sfn /dev/zero ${workdir}/zeros`);
  const started = Date.now();
  for (const target of [`${workdir}/pipe`, '/dev/zero', `${workdir}/zeros`]) {
    await expect(workspace.readFile(target)).rejects.toMatchObject({ code: 'EINVAL' });
  }
  expect(Date.now() - started).toBeLessThan(10_000);
}

/**
 * A loop of the sandbox's own that renames a FIFO and a file in turn under `file`, for at most
 * 60 s: perl (in every Debian image) renames without a process each, so a read's window between
 * its look and its open is often hit (a loop of `mv`s hit it too rarely on a busy machine).
 */
const FIFO_SWAP_LOOP = 'my $end = time + 60; while (time < $end) { for (1..1000) { rename "file", "held"; rename "pipe", "file"; rename "file", "pipe"; rename "held", "file" } }';

/**
 * A file swapped for a FIFO between the look and the open is refused within seconds, not waited
 * on until the file tool's timeout. `workspace` must give an open 1 s before it refuses the read.
 */
export async function expectSwappedFifoReadsRefused(workspace: Workspace, run: Run, workdir: string): Promise<void> {
  await run(`mkdir -p ${workdir} && cd ${workdir} && rm -f pipe file held && echo text > file && mkfifo pipe && (perl -e '${FIFO_SWAP_LOOP}' >/dev/null 2>&1 & echo $! > loop.pid)`);
  const outcomes = new Map<string, number>();
  try {
    for (let read = 0; read < 200 && (outcomes.get('waited') ?? 0) < 3; read++) {
      const started = Date.now();
      const outcome = await workspace.readFile(`${workdir}/file`).then(
        (content) => content.toString(),
        (error: NodeJS.ErrnoException) => (/waited/.test(error.message) ? 'waited' : (error.code ?? error.message)),
      );
      expect(Date.now() - started).toBeLessThan(4_000);
      expect(['text\n', 'waited', 'EINVAL', 'ENOENT']).toContain(outcome);
      outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
    }
  } finally {
    await run(`kill $(cat ${workdir}/loop.pid)`);
  }
  // The race was hit: the open found a FIFO where the look had found a file.
  expect(outcomes.get('waited')).toBeGreaterThan(0);
}

/** A walk reads at most `maxEntries` directory entries: a folder of thousands of names is cut short, and says so. */
export async function expectWalkBoundedByEntries(workspace: Workspace, run: Run, workdir: string): Promise<void> {
  await run(`mkdir -p ${workdir}/a ${workdir}/b && cd ${workdir}/a && seq -f 'name-%.0f.txt' 1 3000 | xargs touch && touch ${workdir}/b/z.txt`);
  const unbounded = await walked(workspace, workdir, {});
  expect(unbounded.files).toHaveLength(3001);
  expect(unbounded.cutShort).toEqual([]);
  const bounded = await walked(workspace, workdir, { maxEntries: 500 });
  expect(bounded.files.length).toBeGreaterThan(0);
  expect(bounded.files.length).toBeLessThanOrEqual(500);
  expect(bounded.cutShort).toEqual([expect.stringMatching(/stopped after 500 directory entries/)]);
}

/** A walk brings at most `maxBytes` of names to the worker, however long the names are, and says when it stopped. */
export async function expectWalkBoundedByBytes(workspace: Workspace, run: Run, workdir: string): Promise<void> {
  // 2,000 names of 200 characters: 400 KB of names in one folder.
  await run(`mkdir -p ${workdir} && cd ${workdir} && seq -f '%0200.0f' 1 2000 | xargs touch`);
  const unbounded = await walked(workspace, workdir, {});
  expect(unbounded.files).toHaveLength(2000);
  expect(unbounded.cutShort).toEqual([]);
  const bounded = await walked(workspace, workdir, { maxBytes: 50_000 });
  expect(bounded.files.length).toBeGreaterThan(0);
  expect(bounded.files.reduce((bytes, file) => bytes + Buffer.byteLength(path.posix.basename(file)), 0)).toBeLessThanOrEqual(50_000);
  expect(bounded.cutShort).toEqual([expect.stringMatching(/stopped after 50,000 bytes of file names/)]);
}

async function walked(workspace: Workspace, root: string, bounds: Pick<WalkOptions, 'maxEntries' | 'maxBytes'>): Promise<{ files: string[]; cutShort: string[] }> {
  const files: string[] = [];
  const cutShort: string[] = [];
  const walk = workspace.walk(root, { maxFiles: 10_000, skipDirectories: new Set(), onCutShort: (reason) => cutShort.push(reason), ...bounds });
  for await (const file of walk) files.push(file);
  return { files, cutShort };
}

/**
 * A whole session's turns pointing the file tools at /dev/zero, a link to it, a FIFO and a 4 GB
 * sparse file (`extra` turns before the answer), and the checks of their results in that order.
 */
export function specialFileSessionTurns(extra: readonly object[] = []): object[] {
  return [
    { tool_calls: [{ name: 'terminal', arguments: { command: 'truncate -s 4G huge.txt && mkfifo pipe && ln -s /dev/zero zeros.txt && echo ready' } }] },
    { tool_calls: [{ name: 'read_file', arguments: { path: '/dev/zero' } }] },
    { tool_calls: [{ name: 'read_file', arguments: { path: 'zeros.txt' } }] },
    { tool_calls: [{ name: 'read_file', arguments: { path: 'pipe' } }] },
    { tool_calls: [{ name: 'read_file', arguments: { path: 'huge.txt' } }] },
    { tool_calls: [{ name: 'patch', arguments: { path: 'huge.txt', old_string: 'a', new_string: 'b' } }] },
    ...extra,
    { content: 'done' },
  ];
}

export function expectSpecialFilesRefused(results: readonly Record<string, unknown>[]): void {
  expect(results[0]).toMatchObject({ output: 'ready', exit_code: 0 });
  for (const refused of results.slice(1, 4)) expect(String(refused.error)).toMatch(/not a regular file/);
  expect(String(results[4]?.error)).toMatch(/larger than 64 MiB/);
  expect(String(results[5]?.error)).toMatch(/larger than 64 MiB/);
}
