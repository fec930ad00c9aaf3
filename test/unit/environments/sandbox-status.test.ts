// `hermes-temporal tools` says what the local sandbox is on this machine, and the terminal is
// unavailable, with the reason, when no sandbox can start and the user did not turn it off.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { registerToolsCommand } from '../../../src/cli/commands/tools';

let home: string;
const saved: Record<string, string | undefined> = {};

function setEnv(values: Record<string, string | undefined>): void {
  for (const [name, value] of Object.entries(values)) {
    if (!(name in saved)) saved[name] = process.env[name];
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
}

beforeEach(() => {
  home = mkdtempSync(path.join(os.tmpdir(), 'hermes-sandbox-status-'));
  setEnv({ HERMES_TEMPORAL_HOME: home, TERMINAL_ENV: undefined });
});

afterEach(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
    delete saved[name];
  }
  rmSync(home, { recursive: true, force: true });
});

async function tools(...args: string[]): Promise<string[]> {
  const lines: string[] = [];
  const log = jest.spyOn(console, 'log').mockImplementation((line: unknown) => void lines.push(String(line)));
  try {
    const program = new Command('hermes-temporal').exitOverride();
    registerToolsCommand(program);
    await program.parseAsync(['tools', ...args], { from: 'user' });
  } finally {
    log.mockRestore();
  }
  return lines.join('\n').split('\n');
}

const terminalRow = (lines: string[]) => lines.find((line) => / terminal +terminal /.test(line)) ?? '';
const executeCodeRow = (lines: string[]) => lines.find((line) => / execute_code +code_execution /.test(line)) ?? '';

describe('hermes-temporal tools and the local sandbox', () => {
  it('opens with the sandbox line when bubblewrap works', async () => {
    const lines = await tools();
    expect(lines[0]).toMatch(/^local sandbox: bubblewrap \(network none, 512 processes/);
    expect(terminalRow(lines)).toContain('available  ');
    expect(executeCodeRow(lines)).toContain('available  ');
  });

  it('keeps the state column aligned, however long a tool or toolset name is', async () => {
    const lines = await tools();
    const rows = lines.filter((line) => / (?:available|unavailable) /.test(line) && !line.startsWith('local sandbox'));
    expect(rows.length).toBeGreaterThan(5);
    // Emoji differ in UTF-16 length: measure from the end of the emoji, the first space.
    const stateColumns = new Set(rows.map((row) => row.search(/ (?:available|unavailable) /) - row.indexOf(' ')));
    expect([...stateColumns]).toHaveLength(1);
  });

  it('says the sandbox is unavailable and why, and so is the terminal', async () => {
    setEnv({ HERMES__TERMINAL__LOCAL__BWRAP_PATH: path.join(home, 'no-bwrap') });
    const lines = await tools();
    expect(lines[0]).toMatch(/^local sandbox: unavailable \(bubblewrap .* is not installed/);
    expect(terminalRow(lines)).toMatch(/unavailable +terminal backend unavailable: bubblewrap .* not installed.*terminal\.local\.sandbox: off/);
    // Scripts run in the same sandbox: no sandbox, no scripts either.
    expect(executeCodeRow(lines)).toMatch(/unavailable +terminal backend unavailable: bubblewrap/);
  });

  it('says commands run unsandboxed when the user turned the sandbox off', async () => {
    setEnv({ HERMES__TERMINAL__LOCAL__SANDBOX: 'off', HERMES__TERMINAL__LOCAL__BWRAP_PATH: path.join(home, 'no-bwrap') });
    const lines = await tools();
    expect(lines[0]).toMatch(/^local sandbox: off \(.*unsandboxed/);
    expect(terminalRow(lines)).toContain('available  ');
  });
});
