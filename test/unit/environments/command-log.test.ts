// A command's output log, on disk while it runs: what a retry after a worker's death reads back.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { CommandLog, takeCommandLog } from '../../../src/environments/command-log';
import { finishLogLines, parseLog, readLogScript, startLogLines } from '../../../src/environments/shell/command-log-script';
import { shellQuote } from '../../../src/environments/shell-quote';
import { tempDir } from '../../helpers/temp-dirs';

const directory = tempDir('hermes-command-log-');

test('the worker-written log gives back everything printed, and stays bounded with head and tail', async () => {
  const file = path.join(directory, 'small.log');
  const log = CommandLog.create(file, 1000)!;
  for (let index = 1; index <= 10; index += 1) log.append(`line-${index}\n`);
  expect(await takeCommandLog(file, 1000)).toBe(Array.from({ length: 10 }, (_, index) => `line-${index + 1}\n`).join(''));
  expect(existsSync(file)).toBe(false);

  const big = path.join(directory, 'big.log');
  const bounded = CommandLog.create(big, 1000)!;
  for (let index = 1; index <= 5000; index += 1) bounded.append(`${index}\n`);
  expect(statSync(big).size).toBeLessThanOrEqual(2200);
  const text = (await takeCommandLog(big, 1000))!;
  expect(text.startsWith('1\n2\n3\n')).toBe(true);
  expect(text.endsWith('4999\n5000\n')).toBe(true);
  expect(text).toContain('OUTPUT TRUNCATED');
});

test('a log removed after a normal end, or never written, reads as nothing', async () => {
  const file = path.join(directory, 'done.log');
  const log = CommandLog.create(file)!;
  log.append('output\n');
  log.remove();
  expect(await takeCommandLog(file)).toBeUndefined();
});

/** Runs a wrapper with the remote logger around `command` in bash; `finish` adds the normal-end lines. */
function wrapper(base: string, command: string, finish: boolean): string {
  return [...startLogLines(base), command, ...(finish ? finishLogLines(base) : [])].join('\n');
}

test('the remote logger keeps what a killed command printed, and removes its log after a normal end', async () => {
  const killedBase = shellQuote(path.join(directory, 'killed.log'));
  const child = spawn('bash', ['-c', wrapper(killedBase, 'for i in $(seq 1 10); do echo line-$i; done; sleep 30', true)], { detached: true, stdio: ['ignore', 'pipe', 'ignore'] });
  let passed = '';
  child.stdout.on('data', (data: Buffer) => (passed += data.toString()));
  const deadline = Date.now() + 5000;
  while (!passed.includes('line-10') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  process.kill(-child.pid!, 'SIGTERM');
  await new Promise((resolve) => child.once('close', resolve));
  // The logger ignored TERM and wrote everything once its input ended.
  const printed = spawnSync('bash', ['-c', readLogScript(killedBase)], { encoding: 'utf8' }).stdout;
  expect(parseLog(printed)).toBe(Array.from({ length: 10 }, (_, index) => `line-${index + 1}\n`).join(''));
  expect(readdirSync(directory).filter((name) => name.startsWith('killed.log'))).toEqual([]);

  const normalBase = shellQuote(path.join(directory, 'normal.log'));
  const normal = spawnSync('bash', ['-c', wrapper(normalBase, 'seq 1 3; echo err >&2', true)], { encoding: 'utf8' });
  expect(normal.stdout).toBe('1\n2\n3\nerr\n');
  const until = Date.now() + 2000;
  while (readdirSync(directory).some((name) => name.startsWith('normal.log')) && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
  expect(readdirSync(directory).filter((name) => name.startsWith('normal.log'))).toEqual([]);
});

test('the remote log of a chatty command keeps its head and its last lines', () => {
  const base = shellQuote(path.join(directory, 'chatty.log'));
  spawnSync('bash', ['-c', wrapper(base, 'seq 1 50000', false)], { encoding: 'utf8' });
  const text = parseLog(spawnSync('bash', ['-c', readLogScript(base)], { encoding: 'utf8' }).stdout)!;
  expect(text.startsWith('1\n2\n3\n')).toBe(true);
  expect(text.endsWith('49999\n50000\n')).toBe(true);
  expect(text).toContain('OUTPUT TRUNCATED');
  expect(text.length).toBeLessThan(25_000);
});
