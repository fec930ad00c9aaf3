// `hermes-temporal check-command "<cmd>"`: what the approval gate would say about a command,
// without running it: the detector's verdict and the `approvals.deny` rules of the loaded config
// (the same `assessCommandText` the gate uses), then, as the gate does on the local backend, where
// the paths it names really lead (a `notes.md` that is a link to ~/.bashrc, a `node_modules` that
// is a link). `--batch` reads one command per line from stdin
// and prints one JSON verdict per line as it goes. Exits 0 whatever the verdict: it is the output.
import os from 'node:os';
import path from 'node:path';
import { setFlagsFromString } from 'node:v8';
import type { Command } from 'commander';
import { assessCommandText, hermesProtectedFiles, type CommandTextAssessment } from '../../approval-signals/command-assessment';
import { loadCommandClassifier } from '../../approval-signals/classify-command';
import { failureVerdict } from '../../approval-signals/detector/verdict-builder';
import { followDeleteTargets } from '../../approval-signals/delete-targets';
import { confirmLinkFreePaths } from '../../approval-signals/link-free-paths';
import { followNamedPaths } from '../../approval-signals/linked-paths';
import { LocalWorkspace } from '../../environments/local-workspace';
import { realPathsOn } from '../../environments/workspace';
import type { CommandVerdict, ParsedCommand } from '../../approval-signals/verdict';
import { loadConfig, type LoadedConfig } from '../../config/load';
import { readBoundedLines } from '../bounded-lines';

interface CheckFlags {
  cwd?: string;
  json?: boolean;
  batch?: boolean;
}

/** Longest command line read in batch mode; the detector itself stops at the same length. */
export const MAX_BATCH_LINE = 100_000;

export function registerCheckCommand(program: Command): void {
  program
    .command('check-command')
    .description('Classify a shell command the way the approval gate would (nothing is run)')
    .argument('[command]', 'the shell command to check (quote it); omit with --batch')
    .option('--cwd <dir>', 'directory the command would run in (also the workspace root)', process.cwd())
    .option('--json', 'print {tier, rules, commands, deniedBy?} as JSON')
    .option('--batch', 'read commands from stdin, one per line, and print one JSON verdict per line')
    .action(async (command: string | undefined, flags: CheckFlags) => {
      if (flags.batch && command !== undefined) throw new Error('check-command: give either a command or --batch (commands on stdin), not both');
      if (!flags.batch && command === undefined) throw new Error('check-command: missing command (quote it), or use --batch to read commands from stdin');
      const cwd = path.resolve(flags.cwd ?? process.cwd());
      // The gate judges with the loaded config; a config that does not load would give a different answer.
      let config: LoadedConfig;
      try {
        config = loadConfig();
      } catch (error) {
        throw new Error(`check-command: the config could not be loaded, so approvals.deny is unknown: ${error instanceof Error ? error.message : String(error)}`);
      }
      const assess = await assessorFor(config, cwd);
      if (flags.batch) {
        await runBatch(assess);
        return;
      }
      const assessment = await assess(command!);
      console.log(flags.json ? JSON.stringify(toJson(assessment), null, 2) : formatAssessment(assessment));
    });
}

type Assessor = (command: string) => Promise<CommandTextAssessment>;

async function assessorFor(config: LoadedConfig, cwd: string): Promise<Assessor> {
  const workspace = new LocalWorkspace(cwd);
  const realPathOf = (target: string) => workspace.realpath(target);
  // The gate judges in the workspace's real folder, as here.
  const workspaceRoot = await realPathOf(cwd).catch(() => cwd);
  const home = os.homedir();
  const context = { backend: 'local' as const, cwd: workspaceRoot, workspaceRoot, home, protectedFiles: hermesProtectedFiles(config, cwd) };
  // A one-shot process: V8's optimising compile of the grammar's WebAssembly runs in the
  // background, and the exit waits for it (a second here) although its code is never used.
  setFlagsFromString('--liftoff-only');
  try {
    await loadCommandClassifier();
  } catch (error) {
    // The answer is then "could not tell", which is never "safe".
    const reason = `the shell parser could not be loaded: ${error instanceof Error ? error.message : String(error)}`;
    return (command) => Promise.resolve({ verdict: failureVerdict(command, reason) });
  }
  return async (command) => {
    const assessed = assessCommandText(command, { ...context, deny: config.approvals.deny });
    // The gate's steps outside a container: a low-risk delete only through no link, delete targets
    // and every other named path judged where they lead now.
    const confirmed = await confirmLinkFreePaths(assessed.verdict, realPathOf);
    const followed = await followDeleteTargets(confirmed.verdict, realPathOf, workspaceRoot, (target) => tildify(target, home));
    return { ...assessed, verdict: await followNamedPaths(command, context, followed.verdict, (targets) => realPathsOn(workspace, targets)) };
  };
}

function tildify(absolute: string, home: string): string {
  if (home !== '/' && (absolute === home || absolute.startsWith(`${home}/`))) return `~${absolute.slice(home.length)}`;
  return absolute;
}

/** One JSON line per non-blank stdin line, written as soon as it is classified. */
async function runBatch(assess: Assessor): Promise<void> {
  for await (const line of readBoundedLines(process.stdin, MAX_BATCH_LINE)) {
    const text = line.text.replace(/\r$/, '');
    if (text.trim() === '') continue;
    const result = line.cut
      ? { command: text, ...toJson({ verdict: failureVerdict(text, `line longer than ${MAX_BATCH_LINE} characters: cut, not classified`) }, false), cut: true }
      : { command: text, ...toJson(await assess(text), false) };
    if (!process.stdout.write(`${JSON.stringify(result)}\n`)) await new Promise((resolve) => process.stdout.once('drain', resolve));
  }
}

interface VerdictJson {
  tier: string;
  rules: { id: string; description: string }[];
  commands?: ParsedCommand[];
  deniedBy?: string;
}

export function toJson(assessment: CommandTextAssessment, withCommands = true): VerdictJson {
  const { verdict, deniedBy } = assessment;
  const json: VerdictJson = { tier: verdict.tier, rules: verdict.rules.map((rule) => ({ id: rule.id, description: rule.description })) };
  if (withCommands) json.commands = verdict.commands;
  if (deniedBy !== undefined) json.deniedBy = deniedBy;
  return json;
}

export function formatAssessment(assessment: CommandTextAssessment): string {
  const lines = formatVerdict(assessment.verdict).split('\n');
  if (assessment.deniedBy !== undefined) lines.splice(1, 0, `DENIED by approvals.deny rule '${assessment.deniedBy}'`);
  return lines.join('\n');
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
