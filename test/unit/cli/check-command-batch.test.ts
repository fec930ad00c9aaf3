// `hermes-temporal check-command` run as a user runs it (the built CLI in its own process): the
// batch mode streams one JSON verdict per stdin line, and both modes honour `approvals.deny`
// from the loaded config, as the gate does.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readProjectFile, trustProjectFile } from '../../../src/config/project-trust';
import { CLI_ENTRY, requireBuild } from '../../helpers/cli';

requireBuild();

const TIMEOUT_MS = 15_000;
let directory: string;

beforeEach(() => {
  directory = path.join(os.tmpdir(), `check-command-${process.pid}-${Date.now()}-${Math.random().toString(16).slice(2)}`);
  mkdirSync(path.join(directory, 'home'), { recursive: true });
  const project = path.join(directory, 'hermes-temporal.yaml');
  writeFileSync(project, 'approvals:\n  deny:\n    - "rm -rf *"\n');
  trustProjectFile(path.join(directory, 'home'), readProjectFile(project)!);
});
afterEach(() => rmSync(directory, { recursive: true, force: true }));

function startCli(args: string[]): ChildProcessWithoutNullStreams {
  const env = { ...process.env, HERMES_TEMPORAL_HOME: path.join(directory, 'home') };
  return spawn(process.execPath, [CLI_ENTRY, 'check-command', ...args], { cwd: directory, env, stdio: ['pipe', 'pipe', 'pipe'] });
}

/** Collects stdout lines; `next()` resolves with the next complete line (bounded wait). */
function lineReader(child: ChildProcessWithoutNullStreams) {
  const lines: string[] = [];
  const waiters: ((line: string) => void)[] = [];
  let buffer = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    buffer += chunk;
    for (let newline = buffer.indexOf('\n'); newline !== -1; newline = buffer.indexOf('\n')) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      const waiter = waiters.shift();
      if (waiter) waiter(line);
      else lines.push(line);
    }
  });
  return {
    next: () =>
      new Promise<string>((resolve, reject) => {
        const queued = lines.shift();
        if (queued !== undefined) return resolve(queued);
        const timer = setTimeout(() => reject(new Error('no output line within the time limit')), TIMEOUT_MS);
        waiters.push((line) => {
          clearTimeout(timer);
          resolve(line);
        });
      }),
  };
}

function exited(child: ChildProcessWithoutNullStreams): Promise<{ code: number | null; stderr: string }> {
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('check-command did not exit in time'));
    }, TIMEOUT_MS);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

describe('check-command --batch', () => {
  it('answers each line as soon as it is written, skips blank lines, and names the deny rule', async () => {
    const child = startCli(['--batch']);
    const done = exited(child);
    const reader = lineReader(child);
    child.stdin.write('git status\n');
    // The first verdict arrives while stdin is still open: the batch streams.
    expect(JSON.parse(await reader.next())).toEqual({ command: 'git status', tier: 'safe', rules: [] });
    child.stdin.write('\n   \nflock /tmp/lock rm -rf /\r\n');
    const wrapped = JSON.parse(await reader.next());
    expect(wrapped).toMatchObject({ command: 'flock /tmp/lock rm -rf /', tier: 'hardline', deniedBy: 'rm -rf *' });
    expect(wrapped.rules).toContainEqual({ id: 'H01', description: 'recursive delete of root filesystem' });
    child.stdin.end('cat ~/.ssh/id_rsa');
    const secret = JSON.parse(await reader.next());
    expect(secret).toMatchObject({ command: 'cat ~/.ssh/id_rsa', tier: 'dangerous' });
    expect(secret.rules.map((rule: { id: string }) => rule.id)).toContain('N19');
    expect(secret.deniedBy).toBeUndefined();
    expect((await done).code).toBe(0);
  });

  it('cuts a line longer than the bound, says so, and never calls it safe', async () => {
    const child = startCli(['--batch']);
    const done = exited(child);
    const reader = lineReader(child);
    child.stdin.end(`echo ${'a'.repeat(150_000)}\nls\n`);
    const cut = JSON.parse(await reader.next());
    expect(cut.cut).toBe(true);
    expect(cut.command).toHaveLength(100_000);
    expect(cut.tier).toBe('unknown');
    expect(cut.rules[0].description).toMatch(/line longer than 100000 characters: cut/);
    expect(JSON.parse(await reader.next())).toEqual({ command: 'ls', tier: 'safe', rules: [] });
    expect((await done).code).toBe(0);
  });
});

describe('check-command with approvals.deny in the config', () => {
  it('prints DENIED with the glob in text, and deniedBy in JSON', async () => {
    const text = startCli(['rm -rf build']);
    let output = '';
    text.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    expect((await exited(text)).code).toBe(0);
    expect(output.split('\n').slice(0, 2)).toEqual(['LOW_RISK', "DENIED by approvals.deny rule 'rm -rf *'"]);

    const json = startCli(['--json', 'rm -rf build']);
    let jsonOutput = '';
    json.stdout.on('data', (chunk: Buffer) => (jsonOutput += chunk.toString()));
    expect((await exited(json)).code).toBe(0);
    expect(JSON.parse(jsonOutput)).toMatchObject({ tier: 'low_risk', deniedBy: 'rm -rf *' });
  });

  it('refuses a command together with --batch, with a clear error', async () => {
    const child = startCli(['--batch', 'ls']);
    child.stdin.end();
    const result = await exited(child);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/either a command or --batch/);
  });
});
