// `hermes-temporal demo` (npm run demo): a real session on an embedded Temporal dev server, with
// the configured model when OPENAI_API_KEY is set and the scripted model server otherwise.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline/promises';
import type { Command } from 'commander';
import { loadApproverKey, signDecision } from '../../approval-signals/approver-key';
import { decideApprovalUpdate } from '../../approval-signals/definitions';
import { shadowRepositoryFor } from '../../checkpoints/shadow-repository';
import { loadConfig } from '../../config/load';
import { localSandbox } from '../../environments/drivers';
import { DEMO_SCRIPT, DEMO_TASK } from '../../model/demo-script';
import { startScriptedModelServer, type ScriptedModelServer } from '../../model/scripted-model-server';
import { exitCodeFor, runSession } from '../run-session';

export function registerDemoCommand(program: Command): void {
  program
    .command('demo')
    .description('Run a demo session on an embedded Temporal dev server (scripted model unless OPENAI_API_KEY is set)')
    .option('--json', 'print newline-delimited JSON events')
    .option('--keep', 'keep the dev server and Web UI up after the session until Enter is pressed')
    .option('--save', 'record the session in your session store (default: a temporary one, removed at the end)')
    .action(async (flags: { json?: boolean; keep?: boolean; save?: boolean }) => {
      const workdir = mkdtempSync(path.join(os.tmpdir(), 'hermes-demo-'));
      mkdirSync(path.join(workdir, 'old-reports'));
      writeFileSync(path.join(workdir, 'old-reports', 'q1.txt'), 'stale numbers\n');
      let model: ScriptedModelServer | undefined;
      const live = Boolean(process.env.OPENAI_API_KEY);
      if (!live) model = await startScriptedModelServer({ script: DEMO_SCRIPT });
      const loaded = loadConfig({
        env: { ...process.env, TEMPORAL_ADDRESS: '' },
        flags: {
          session: { cwd: workdir, max_turns: 10 },
          ...(model ? { model: { name: 'scripted-demo', base_url: model.url, api_key: 'no-key-needed' } } : {}),
        },
      });
      // A demo is not one of the user's sessions: its record lives and dies with the demo (in a
      // folder of its own: a store inside the workspace would be a protected file there).
      const storeDir = flags.save ? undefined : mkdtempSync(path.join(os.tmpdir(), 'hermes-demo-store-'));
      const config = storeDir ? { ...loaded, store: { ...loaded.store, path: path.join(storeDir, 'sessions.db'), postgres_url: undefined } } : loaded;
      // The snapshots taken of the demo's folder (in the home's checkpoints) go with the folder.
      const demoCheckpoints = shadowRepositoryFor(config.home, workdir).gitDirectory;
      const say = (message: string) => (flags.json ? process.stderr : process.stdout).write(`${message}\n`);
      // The demo's whole point is commands that run: stop at once, saying why, if they cannot.
      const sandbox = config.terminal.backend === 'local' ? localSandbox(config).state() : undefined;
      if (sandbox?.unavailableReason) {
        await model?.close();
        rmSync(workdir, { recursive: true, force: true });
        if (storeDir) rmSync(storeDir, { recursive: true, force: true });
        say(`The demo runs shell commands in the local sandbox, which cannot start here: ${sandbox.unavailableReason}. Install bubblewrap (apt-get install bubblewrap).`);
        process.exitCode = 1;
        return;
      }
      say(
        live
          ? `Using the model ${config.model.name}${config.model.base_url ? ` at ${config.model.base_url}` : ''} (OPENAI_API_KEY is set).`
          : `No OPENAI_API_KEY set: using the project's scripted model server at ${model?.url} — an OpenAI-compatible ` +
              'HTTP server that replays a fixed script of responses.',
      );
      say(`Working directory: ${workdir}\nTask: ${DEMO_TASK}\n`);
      const keep = flags.keep ?? (Boolean(process.stdin.isTTY && process.stdout.isTTY) && !process.env.CI);
      try {
        const outcome = await runSession({
          task: DEMO_TASK,
          config,
          json: flags.json,
          // With nobody at a terminal, the demo plays the operator and approves (once).
          onApprovalPending: (approval, handle, printer) => {
            setTimeout(() => {
              printer.note(`  (demo: no terminal to ask, so approving ${approval.approvalId} once, as \`hermes-temporal approve\` would)`);
              const decision = signDecision(loadApproverKey(config.home, { create: true }), { workflowId: handle.workflowId, pending: approval, choice: 'once', via: 'demo' });
              handle.executeUpdate(decideApprovalUpdate, { args: [decision] }).catch(() => undefined);
            }, 1000);
          },
          keepServerUntil: keep
            ? async (connection, _printer, stop) => {
                const prompt = createInterface({ input: process.stdin, output: process.stdout });
                // Enter, the end of input (nobody can press Enter then) or Ctrl+C/SIGTERM ends the wait.
                const closed = new Promise<void>((resolve) => prompt.once('close', resolve));
                const answered = prompt.question(`\nThe Web UI stays up at ${connection.uiUrl ?? '(headless)'} — press Enter to stop it. `, { signal: stop });
                await Promise.race([answered, closed]).catch(() => undefined);
                prompt.close();
              }
            : undefined,
        });
        process.exitCode = outcome.stopExitCode ?? exitCodeFor(outcome.final);
      } finally {
        await model?.close();
        rmSync(demoCheckpoints, { recursive: true, force: true });
        rmSync(workdir, { recursive: true, force: true });
        if (storeDir) rmSync(storeDir, { recursive: true, force: true });
        say(`\n(demo: removed its folder ${workdir} and its checkpoints${flags.save ? '' : ', and its session store; --save records the session in yours'})`);
      }
    });
}
