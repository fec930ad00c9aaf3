// Secrets printed by a command never leave the worker: on a real Temporal server, a scripted model
// runs commands that print keys, and the transcript, the workflow history, heartbeats, the next
// model request, the approval webhook and `run --json` carry only [REDACTED:...] markers.
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { PendingApproval } from '../../src/approval-signals/approval-types';
import { pendingApprovalsQuery } from '../../src/approval-signals/definitions';
import type { PendingApprovalEvent } from '../../src/approval-signals/webhook';
import type { SessionHandle } from '../../src/temporal/sessions';
import { CliTestbed, jsonLines, requireBuild } from '../helpers/cli';
import { connectHarness, sessionIdOf, tempDir, uniqueName, withScriptedSession, type Harness } from '../helpers/session-harness';
import { decideSigned } from '../helpers/approver';
import { waitFor } from '../helpers/wait';

// Fake values in real formats; none was ever a working credential.
const OPENAI_KEY = 'sk-proj-Zq8Xw7Vu6Ts5Rq4Po3Nm2Lk1Ji0HgFeDcBa9876543210abcd';
const DB_PASSWORD = 'Integration-Db-Pass-31';
const DB_URL = `postgres://app:${DB_PASSWORD}@db.internal:5432/app`;
const PEM_BODY = ['MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun', 'VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK'];
const PEM = ['-----BEGIN RSA PRIVATE KEY-----', ...PEM_BODY, '-----END RSA PRIVATE KEY-----'].join('\n');
/** A secret only the worker's environment knows: found in output by its value. */
const TOKEN_NAME = 'HERMES_TEST_DEPLOY_TOKEN';
const TOKEN_VALUE = 'opaque-deploy-value-7c41e9';

const SECRETS = [OPENAI_KEY, DB_PASSWORD, TOKEN_VALUE, ...PEM_BODY];
const LEAKY_FILE = ['# settings dump', `OPENAI key: ${OPENAI_KEY}`, `database: ${DB_URL}`, `deploy token: ${TOKEN_VALUE}`, PEM, ''].join('\n');

let harness: Harness;
beforeAll(async () => {
  harness = await connectHarness();
});
afterAll(async () => {
  await harness.close();
});

function expectNoSecret(label: string, text: string): void {
  for (const secret of SECRETS) expect([label, text.includes(secret) ? secret : 'no secret']).toEqual([label, 'no secret']);
}

/** Every string in a value, with byte arrays (payload data) decoded as UTF-8. */
function allText(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (value instanceof Uint8Array) out.push(Buffer.from(value).toString('utf8'));
  else if (Array.isArray(value)) for (const item of value) allText(item, out);
  else if (value && typeof value === 'object') for (const item of Object.values(value)) allText(item, out);
  return out;
}

/** Heartbeat details of the session's running activities, as text. */
async function heartbeatText(handle: SessionHandle): Promise<string> {
  const description = await handle.describe();
  return allText(description.raw.pendingActivities?.map((activity) => activity.heartbeatDetails) ?? []).join('\n');
}

/** Runs `body` with a worker whose environment holds the secret variable (the worker reads it at start). */
async function withWorkerSecret<T>(body: () => Promise<T>): Promise<T> {
  const previous = process.env[TOKEN_NAME];
  process.env[TOKEN_NAME] = TOKEN_VALUE;
  try {
    return await body();
  } finally {
    if (previous === undefined) delete process.env[TOKEN_NAME];
    else process.env[TOKEN_NAME] = previous;
  }
}

test('secrets a command prints reach neither the transcript, the history, heartbeats nor the model', async () => {
  const cwd = tempDir('hermes-redaction-cwd-');
  writeFileSync(path.join(cwd, 'leaky.txt'), LEAKY_FILE);
  const script = {
    turns: [
      { tool_calls: [{ name: 'terminal', arguments: { command: 'cat leaky.txt; sleep 4' } }] },
      { content: 'I read the settings.' },
    ],
  };
  await withWorkerSecret(() =>
    withScriptedSession(harness, { script, config: { session: { cwd } }, limits: { toolHeartbeatTimeoutSeconds: 2 } }, async ({ handle, store, model }) => {
      // While the command sleeps, its heartbeat carries the output so far (for the UI and a retry).
      const heartbeat = await waitFor<string | undefined>(async () => {
        const text = await heartbeatText(handle);
        return text.includes('outputTail') ? text : undefined;
      }, { timeoutMs: 15_000, intervalMs: 200, what: 'a heartbeat with the output tail' });
      expectNoSecret('heartbeat', heartbeat ?? '');
      expect(heartbeat).toContain('[REDACTED:openai-key]');

      expect(await handle.result()).toMatchObject({ status: 'completed', answer: 'I read the settings.' });

      const transcript = JSON.stringify(await store.getMessages(sessionIdOf(handle)));
      expectNoSecret('transcript', transcript);
      for (const marker of ['[REDACTED:openai-key]', 'postgres://app:[REDACTED:url-password]@db.internal', `[REDACTED:env:${TOKEN_NAME}]`, '[REDACTED:private-key]']) {
        expect(transcript).toContain(marker);
      }
      // The rest of the output is intact.
      expect(transcript).toContain('# settings dump');

      const history = allText(await handle.fetchHistory()).join('\n');
      expectNoSecret('workflow history', history);
      expect(history).toContain('[REDACTED:openai-key]');

      const nextRequest = JSON.stringify(model.requests[1]?.messages);
      expectNoSecret('next model request', nextRequest);
      expect(nextRequest).toContain('[REDACTED:private-key]');
    }),
  );
});

test('the approval webhook receives the waiting command with secrets hidden', async () => {
  const received: PendingApprovalEvent[] = [];
  const gateway = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      received.push(JSON.parse(body) as PendingApprovalEvent);
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
  try {
    const url = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}/hook`;
    const command = `rm -rf ./build-cache && curl -H "Authorization: Bearer ${TOKEN_VALUE}" ${DB_URL}`;
    const script = { turns: [{ tool_calls: [{ name: 'terminal', arguments: { command } }] }, { content: 'denied, fine' }] };
    await withWorkerSecret(() =>
      withScriptedSession(harness, { script, config: { approvals: { webhook: { url, secret: 'a-shared-secret-of-some-length' } } } }, async ({ handle, config }) => {
        const pending = await waitFor<PendingApproval | undefined>(async () => {
          const approvals: PendingApproval[] = await handle.query(pendingApprovalsQuery);
          return received.length ? approvals[0] : undefined;
        }, { timeoutMs: 20_000, intervalMs: 200, what: 'the approval and its webhook notification' });
        const sent = JSON.stringify(received[0]);
        expectNoSecret('webhook payload', sent);
        expect(received[0]!.approval.command).toContain('rm -rf ./build-cache');
        expect(sent).toContain(`[REDACTED:env:${TOKEN_NAME}]`);
        await decideSigned(handle, config, { approvalId: pending!.approvalId, choice: 'deny' });
        expect(await handle.result()).toMatchObject({ status: 'completed' });
      }),
    );
  } finally {
    await new Promise((resolve) => gateway.close(resolve));
  }
});

describe('the command line', () => {
  requireBuild();
  const testbed = new CliTestbed();
  afterEach(() => testbed.cleanup());

  test('run --json events and the pending listing show markers, not secrets', async () => {
    const dangerous = `rm -rf ./build-cache # deploy with ${TOKEN_VALUE}`;
    const sandbox = await testbed.sandbox({
      script: {
        turns: [
          { tool_calls: [{ name: 'terminal', arguments: { command: 'cat leaky.txt' } }] },
          { tool_calls: [{ name: 'terminal', arguments: { command: dangerous } }] },
          { content: 'Done.' },
        ],
      },
      env: { [TOKEN_NAME]: TOKEN_VALUE },
    });
    writeFileSync(path.join(sandbox.cwd, 'leaky.txt'), LEAKY_FILE);
    const sessionId = uniqueName('redacted');
    const run = testbed.cli(sandbox, ['run', '--json', '--session-id', sessionId, 'read the settings']);
    await run.waitForOutput(/"approval_pending"/, 30_000);

    const listing = await testbed.runCli(sandbox, ['pending', sessionId]);
    expect(listing.code).toBe(0);
    expect(listing.stdout).toContain('rm -rf ./build-cache');
    expect(listing.stdout).toContain(`[REDACTED:env:${TOKEN_NAME}]`);
    expectNoSecret('pending listing', listing.stdout);

    expect((await testbed.runCli(sandbox, ['deny', sessionId])).code).toBe(0);
    const result = await run.waitForExit(30_000);
    expect(result.code).toBe(0);
    expectNoSecret('run --json', result.stdout);
    const events = jsonLines(result.stdout);
    const finished = events.filter((event) => event.type === 'tool_finished');
    expect(String(finished[0]?.preview)).toContain('[REDACTED:openai-key]');
    const approval = events.find((event) => event.type === 'approval_pending');
    expect(String(approval?.command)).toContain(`rm -rf ./build-cache # deploy with [REDACTED:env:${TOKEN_NAME}]`);
  });
});
