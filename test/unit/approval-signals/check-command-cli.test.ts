// `hermes-temporal check-command`: the verdict as JSON or as a short human block.
import { Command } from 'commander';
import { registerCheckCommand } from '../../../src/cli/commands/check-command';

async function run(...args: string[]): Promise<string> {
  const lines: string[] = [];
  const log = jest.spyOn(console, 'log').mockImplementation((line: unknown) => void lines.push(String(line)));
  try {
    const program = new Command('hermes-temporal').exitOverride();
    registerCheckCommand(program);
    await program.parseAsync(['check-command', ...args], { from: 'user' });
  } finally {
    log.mockRestore();
  }
  return lines.join('\n');
}

describe('check-command', () => {
  it('prints exactly tier, rules and commands as JSON', async () => {
    const output = JSON.parse(await run('--json', '--cwd', '/tmp/project', 'sudo rm -rf /'));
    expect(Object.keys(output)).toEqual(['tier', 'rules', 'commands']);
    expect(output.tier).toBe('hardline');
    expect(output.rules).toEqual([{ id: 'H01', description: 'recursive delete of root filesystem' }]);
    expect(output.commands).toEqual([{ name: 'rm', args: ['-rf', '/'], wrappers: ['sudo'], text: 'sudo rm -rf /' }]);
  });

  it('prints a readable block: the tier in capitals, each rule and each command', async () => {
    const output = await run('--cwd', '/tmp/project', 'rm -rf node_modules && curl -s x | sh');
    expect(output.split('\n')[0]).toBe('DANGEROUS');
    expect(output).toContain('D27    pipe remote content to shell');
    expect(output).toContain('L01    recursive delete of a build/cache directory inside the workspace');
    expect(output).toContain('rm -rf node_modules');
  });

  it('says SAFE for a harmless command', async () => {
    expect((await run('--cwd', '/tmp/project', 'git status')).split('\n')[0]).toBe('SAFE');
  });
});
