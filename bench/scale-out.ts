// Benchmark: sessions/s and tool calls/s with 1 and 3 worker processes (dist/worker.js), on the
// multi-service Temporal server on PostgreSQL (scripts/services/temporal-server.sh) and on the
// dev server, all workers sharing the PostgreSQL session store. Prints numbers; never fails.
//   eval "$(scripts/services/temporal-server.sh start)"; eval "$(scripts/services/postgres.sh env)"
//   npm run build && npx tsx bench/scale-out.ts        (SESSIONS=40 TURNS=2 TOOLS_PER_TURN=4)
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { loadApproverKey } from '../src/approval-signals/approver-key';
import { loadConfig } from '../src/config/load';
import { silentLogger } from '../src/logging';
import { startScriptedModelServer } from '../src/model/scripted-model-server';
import { startDevServer } from '../src/temporal/dev-server';
import { installTemporalRuntime } from '../src/temporal/runtime';
import { startSession } from '../src/temporal/sessions';

const SESSIONS = Number(process.env.SESSIONS ?? 40);
const TURNS = Number(process.env.TURNS ?? 2);
const TOOLS_PER_TURN = Number(process.env.TOOLS_PER_TURN ?? 4);
const WORKER_COUNTS = (process.env.WORKERS ?? '1,3').split(',').map(Number);
const ROOT = path.resolve(__dirname, '..');
const WORKER_START_TIMEOUT_MS = 120_000;
const RUN_TIMEOUT_MS = 600_000;

interface Target {
  name: string;
  address: string;
}

function startWorker(env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  const child = spawn(process.execPath, [path.join(ROOT, 'dist/worker.js')], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`worker did not poll within ${WORKER_START_TIMEOUT_MS} ms: ${output.slice(-500)}`)), WORKER_START_TIMEOUT_MS);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (/worker polling/i.test(output)) {
        clearTimeout(timer);
        resolve(child);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', () => reject(new Error(`worker exited at start-up: ${output.slice(-500)}`)));
  });
}

async function stopWorker(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
}

async function measure(target: Target, workerCount: number, modelUrl: string, postgresUrl: string): Promise<string> {
  const taskQueue = `hermes-bench-${process.pid}-${target.name}-${workerCount}`;
  const home = mkdtempSync(path.join(os.tmpdir(), 'hermes-bench-home-'));
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'hermes-bench-cwd-'));
  writeFileSync(path.join(cwd, 'data.txt'), 'line\n'.repeat(100));
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    TEMPORAL_ADDRESS: target.address,
    HERMES_TASK_QUEUE: taskQueue,
    HERMES_STORE_POSTGRES_URL: postgresUrl,
    OPENAI_BASE_URL: modelUrl,
    OPENAI_API_KEY: 'bench',
    HERMES_MODEL: 'bench',
    // Workers have homes of their own: they run the sessions the bench's key starts because they trust it.
    HERMES__APPROVALS__APPROVERS: `bench:${loadApproverKey(home, { create: true }).publicKey}`,
  };
  const workers = await Promise.all(Array.from({ length: workerCount }, () => startWorker({ ...env, HERMES_TEMPORAL_HOME: mkdtempSync(path.join(os.tmpdir(), 'hermes-bench-worker-')) })));
  const connection = await Connection.connect({ address: target.address });
  try {
    const client = new Client({ connection });
    const config = loadConfig({
      env: { HERMES_TEMPORAL_HOME: home, PATH: process.env.PATH },
      projectDir: cwd,
      flags: { model: { name: 'bench' }, temporal: { task_queue: taskQueue }, session: { max_turns: TURNS + 2 } },
    });
    const started = Date.now();
    const handles = await Promise.all(Array.from({ length: SESSIONS }, (_, index) => startSession(client, { config, task: `bench ${index}` })));
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('bench run timed out')), RUN_TIMEOUT_MS)));
    const results = await Promise.race([Promise.all(handles.map((handle) => handle.result())), timeout]).finally(() => clearTimeout(timer));
    const seconds = (Date.now() - started) / 1000;
    const completed = results.filter((result) => result.status === 'completed').length;
    const toolCalls = results.reduce((sum, result) => sum + result.toolCalls, 0);
    return `${target.name.padEnd(28)} ${String(workerCount).padStart(7)}  ${(completed / seconds).toFixed(2).padStart(10)}  ${(toolCalls / seconds).toFixed(1).padStart(12)}  ${seconds.toFixed(1).padStart(6)} s  (${completed}/${SESSIONS} completed)`;
  } finally {
    await connection.close();
    await Promise.all(workers.map(stopWorker));
  }
}

async function main(): Promise<void> {
  installTemporalRuntime(silentLogger);
  const postgresUrl = process.env.HERMES_TEST_POSTGRES_URL;
  const clusterAddress = process.env.HERMES_TEST_TEMPORAL_SERVER_ADDRESS;
  if (!postgresUrl || !clusterAddress) {
    throw new Error('needs HERMES_TEST_POSTGRES_URL and HERMES_TEST_TEMPORAL_SERVER_ADDRESS: eval "$(scripts/services/temporal-server.sh start)"; eval "$(scripts/services/postgres.sh env)"');
  }
  const toolTurn = {
    tool_calls: Array.from({ length: TOOLS_PER_TURN }, (_, index) =>
      index % 2 ? { name: 'terminal', arguments: { command: 'echo ok' } } : { name: 'read_file', arguments: { path: 'data.txt', limit: 10 } },
    ),
  };
  const model = await startScriptedModelServer({ script: { turns: [...Array.from({ length: TURNS }, () => toolTurn), { content: 'done' }] } });
  const devServer = await startDevServer({ headless: true });
  const targets: Target[] = [
    { name: 'Temporal server on PostgreSQL', address: clusterAddress },
    { name: 'dev server (SQLite, memory)', address: devServer.address },
  ];
  console.log(`${SESSIONS} sessions started at once, ${TURNS} turns x ${TOOLS_PER_TURN} parallel tool calls each; ${os.cpus().length} CPUs; PostgreSQL session store`);
  console.log(`${'server'.padEnd(28)} workers  sessions/s  tool calls/s    wall`);
  try {
    for (const target of targets) {
      for (const workerCount of WORKER_COUNTS) console.log(await measure(target, workerCount, model.url, postgresUrl));
    }
  } finally {
    await devServer.stop();
    await model.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
