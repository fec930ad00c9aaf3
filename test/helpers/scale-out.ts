// The pieces of a scaled-out deployment for tests: worker processes (dist/worker.js) on a real
// Temporal server sharing a PostgreSQL session store, the `approve` CLI as a separate process, and
// restarting the server through its service script.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { loadApproverKey } from '../../src/approval-signals/approver-key';
import { CLI_ENTRY, PROJECT_ROOT, SpawnedProcess, WORKER_ENTRY } from './cli';
import { waitFor } from './wait';

const execFileAsync = promisify(execFile);

export interface Deployment {
  address: string;
  postgresUrl: string;
  taskQueue: string;
  modelUrl: string;
  /** Where the approver key lives: the operator's home, not a worker's. */
  operatorHome: string;
}

/** What every worker of a deployment is told; docker-compose.yml's worker sets the same names. */
export const DEPLOYMENT_ENV_NAMES = [
  'TEMPORAL_ADDRESS',
  'TEMPORAL_NAMESPACE',
  'HERMES_TASK_QUEUE',
  'HERMES_STORE_POSTGRES_URL',
  'OPENAI_BASE_URL',
  'OPENAI_API_KEY',
  'HERMES_MODEL',
  'HERMES_TEMPORAL_HOME',
  'HERMES__WORKER__SHUTDOWN_GRACE_SECONDS',
  'HERMES__APPROVALS__APPROVERS',
] as const;

/** The environment every process of the deployment gets, as docker-compose.yml gives its worker. */
export function deploymentEnv(deployment: Deployment, home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    TEMPORAL_ADDRESS: deployment.address,
    TEMPORAL_NAMESPACE: 'default',
    HERMES_TASK_QUEUE: deployment.taskQueue,
    HERMES_STORE_POSTGRES_URL: deployment.postgresUrl,
    OPENAI_BASE_URL: deployment.modelUrl,
    OPENAI_API_KEY: 'test',
    HERMES_MODEL: 'scripted',
    HERMES_TEMPORAL_HOME: home,
    // Workers have homes of their own: they run the sessions the operator starts because they trust its key.
    HERMES__APPROVALS__APPROVERS: `operator:${loadApproverKey(deployment.operatorHome, { create: true }).publicKey}`,
    ...extra,
  };
}

/** Starts `node dist/worker.js` and resolves once it polls its task queue. */
export async function startWorkerProcess(label: string, env: NodeJS.ProcessEnv, cwd: string): Promise<SpawnedProcess> {
  const worker = new SpawnedProcess(label, [WORKER_ENTRY], { cwd, env });
  await waitFor(() => /worker polling/i.test(worker.stdout + worker.stderr) || !worker.running, {
    timeoutMs: 60_000,
    what: `${label} to poll`,
  });
  if (!worker.running) throw new Error(`${label} exited at start-up${worker.describeOutput()}`);
  return worker;
}

/** `hermes-temporal approve <session> <approval> --json` in its own process, signed with the operator's key. */
export async function approveFromCli(deployment: Deployment, sessionId: string, approvalId: string): Promise<Record<string, unknown>> {
  const { stdout } = await execFileAsync(process.execPath, [CLI_ENTRY, 'approve', sessionId, approvalId, '--json'], {
    cwd: PROJECT_ROOT,
    env: deploymentEnv(deployment, deployment.operatorHome),
    timeout: 60_000,
  });
  return JSON.parse(stdout) as Record<string, unknown>;
}

/** Stops and starts the Temporal server on the same port (bounded by the script's own waits). */
export async function restartTemporalServer(): Promise<void> {
  await execFileAsync(path.join(PROJECT_ROOT, 'scripts/services/temporal-server.sh'), ['restart'], { cwd: PROJECT_ROOT, timeout: 240_000 });
}

/** Runs `task` for every item, at most `limit` at a time. */
export async function mapLimited<T, R>(items: readonly T[], limit: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index]!);
    }
  });
  await Promise.all(lanes);
  return results;
}
