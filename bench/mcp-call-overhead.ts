// Benchmark: what running an MCP tool call as a Temporal activity costs over calling the same
// server directly with the SDK. Both call server-everything's `echo` over stdio; the session
// side measures each callMcpTool activity from scheduled to completed (from workflow history:
// scheduling, the store reads and writes, redaction, the pooled call). Prints numbers only.
//   npx tsx bench/mcp-call-overhead.ts            CALLS=50 SANDBOX=off npx tsx bench/mcp-call-overhead.ts
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { loadConfig } from '../src/config/load';
import { silentLogger } from '../src/logging';
import { startScriptedModelServer } from '../src/model/scripted-model-server';
import { SqliteSessionStore } from '../src/store/sqlite-session-store';
import { startDevServer } from '../src/temporal/dev-server';
import { installTemporalRuntime } from '../src/temporal/runtime';
import { startSession } from '../src/temporal/sessions';
import { bundleWorkflows, createHermesWorker, releaseWorkerEnvironments } from '../src/temporal/worker';

const CALLS = Number(process.env.CALLS ?? 30);
const SANDBOX = process.env.SANDBOX !== 'off';
const EVERYTHING = path.resolve(__dirname, '../node_modules/@modelcontextprotocol/server-everything/dist/index.js');

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};
const line = (label: string, values: number[]) =>
  console.log(`${label.padEnd(40)} p50 ${percentile(values, 50).toFixed(1).padStart(7)} ms   p95 ${percentile(values, 95).toFixed(1).padStart(7)} ms   n=${values.length}`);

async function direct(): Promise<number[]> {
  const client = new McpClient({ name: 'bench', version: '0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, 'stdio'], stderr: 'ignore' }));
  const times: number[] = [];
  for (let index = 0; index < CALLS; index += 1) {
    const started = performance.now();
    await client.callTool({ name: 'echo', arguments: { message: `call ${index}` } });
    times.push(performance.now() - started);
  }
  await client.close();
  return times;
}

async function throughTemporal(): Promise<number[]> {
  installTemporalRuntime(silentLogger);
  const home = mkdtempSync(path.join(os.tmpdir(), 'hermes-bench-'));
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'hermes-bench-cwd-'));
  const turns = Array.from({ length: CALLS }, (_, index) => ({ tool_calls: [{ name: 'mcp__everything__echo', arguments: { message: `call ${index}` } }] }));
  const model = await startScriptedModelServer({ script: { turns: [...turns, { content: 'done' }] } });
  const server = await startDevServer({ headless: true });
  const config = loadConfig({
    env: { HERMES_TEMPORAL_HOME: home, PATH: process.env.PATH },
    projectDir: cwd,
    flags: {
      model: { name: 'bench', base_url: model.url, api_key: 'bench' },
      session: { max_turns: CALLS + 2, cwd },
      mcp_servers: { everything: { command: process.execPath, args: [EVERYTHING, 'stdio'], cwd, sandbox: SANDBOX } },
    },
  });
  const store = new SqliteSessionStore(config.store.path);
  const connection = await Connection.connect({ address: server.address });
  const nativeConnection = await NativeConnection.connect({ address: server.address });
  const client = new Client({ connection });
  const worker = await createHermesWorker({ connection: nativeConnection, config, store, logger: silentLogger, workflowBundle: await bundleWorkflows() });
  try {
    const history = await worker.runUntil(async () => {
      const handle = await startSession(client, { task: 'bench', config });
      await handle.result();
      return handle.fetchHistory();
    });
    const millis = (time: { seconds?: unknown; nanos?: number | null } | null | undefined) => Number(time?.seconds ?? 0) * 1000 + (time?.nanos ?? 0) / 1e6;
    const scheduled = new Map<string, number>();
    const times: number[] = [];
    for (const event of history.events ?? []) {
      const attributes = event.activityTaskScheduledEventAttributes;
      if (attributes?.activityType?.name === 'callMcpTool') scheduled.set(String(event.eventId), millis(event.eventTime));
      const completed = event.activityTaskCompletedEventAttributes;
      const start = completed && scheduled.get(String(completed.scheduledEventId));
      if (start !== undefined && start !== null && completed) times.push(millis(event.eventTime) - start);
    }
    // The server was started and connected by listMcpTools: every call here reuses the pooled connection.
    return times;
  } finally {
    await releaseWorkerEnvironments(worker);
    await connection.close();
    await nativeConnection.close();
    await store.close();
    await model.close();
    await server.stop();
  }
}

async function main(): Promise<void> {
  console.log(`MCP call overhead: ${CALLS} echo calls to server-everything over stdio (sandbox ${SANDBOX ? 'on' : 'off'})`);
  const directTimes = await direct();
  const activityTimes = await throughTemporal();
  line('direct SDK call', directTimes);
  line('callMcpTool activity (scheduled→done)', activityTimes);
  console.log(`${'overhead (p50)'.padEnd(40)} ${(percentile(activityTimes, 50) - percentile(directTimes, 50)).toFixed(1)} ms per call`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
