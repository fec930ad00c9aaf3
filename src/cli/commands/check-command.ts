// `hermes-temporal check-command "<cmd>"`: what the dangerous-command detector says about a
// command, without running it. Always exits 0: the verdict is the output.
import path from 'node:path';
import type { Command } from 'commander';
import { classifyCommand, defaultClassifyContext, loadCommandClassifier } from '../../approval-signals/classify-command';
import { failureVerdict } from '../../approval-signals/detector/verdict-builder';
import type { CommandVerdict, ParsedCommand } from '../../approval-signals/verdict';
import { hermesHome, loadConfig, PROJECT_CONFIG_FILE } from '../../config/load';

interface CheckFlags {
  cwd?: string;
  json?: boolean;
}

export function registerCheckCommand(program: Command): void {
  program
    .command('check-command')
    .description('Classify a shell command the way the approval gate would (nothing is run)')
    .argument('<command>', 'the shell command to check (quote it)')
    .option('--cwd <dir>', 'directory the command would run in (also the workspace root)', process.cwd())
    .option('--json', 'print {tier, rules, commands} as JSON')
    .action(async (command: string, flags: CheckFlags) => {
      const cwd = path.resolve(flags.cwd ?? process.cwd());
      let verdict: CommandVerdict;
      try {
        await loadCommandClassifier();
        verdict = classifyCommand(command, defaultClassifyContext({ cwd, workspaceRoot: cwd, protectedFiles: protectedFiles(cwd) }));
      } catch (error) {
        // Exit code 0 even then: the answer is "could not tell", which is never "safe".
        verdict = failureVerdict(command, `the shell parser could not be loaded: ${error instanceof Error ? error.message : String(error)}`);
      }
      console.log(flags.json ? JSON.stringify(toJson(verdict), null, 2) : formatVerdict(verdict));
    });
}

/** This runtime's own config files: the user config and the project config. */
function protectedFiles(cwd: string): string[] {
  let home: string;
  try {
    home = loadConfig().home;
  } catch {
    home = hermesHome();
  }
  const projectFiles = [process.cwd(), cwd].map((directory) => path.join(directory, PROJECT_CONFIG_FILE));
  return [...new Set([path.join(home, 'config.yaml'), ...projectFiles])];
}

export function toJson(verdict: CommandVerdict): { tier: string; rules: { id: string; description: string }[]; commands: ParsedCommand[] } {
  return {
    tier: verdict.tier,
    rules: verdict.rules.map((rule) => ({ id: rule.id, description: rule.description })),
    commands: verdict.commands,
  };
}

export function formatVerdict(verdict: CommandVerdict): string {
  const lines = [verdict.tier.toUpperCase()];
  if (verdict.parseError) lines.push(`  (${verdict.parseError})`);
  for (const rule of verdict.rules) lines.push(`  ${rule.id.padEnd(7)}${rule.description}`);
  if (verdict.commands.length) lines.push('commands:');
  for (const command of verdict.commands) {
    const shown = [command.name ?? '<dynamic>', ...command.args].join(' ');
    lines.push(`  ${shown}${command.wrappers.length ? `   (via ${command.wrappers.join(' > ')})` : ''}`);
  }
  return lines.join('\n');
}
