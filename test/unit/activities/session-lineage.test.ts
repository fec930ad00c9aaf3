import { verifyLineage, type RunFacts } from '../../../src/activities/session-lineage';

const QUEUE = 'hermes';
const runs = (facts: RunFacts | undefined) => async () => facts;
const session = (status: string): RunFacts => ({ workflowType: 'agentSession', taskQueue: QUEUE, status });

describe('where a child or continued session came from', () => {
  test('a child of a session on its own task queue runs', async () => {
    expect(await verifyLineage({ kind: 'parent', workflowId: 'p', runId: 'r' }, QUEUE, runs(session('RUNNING')))).toMatchObject({ ok: true });
  });

  test("a child of another workflow type, or of a session on another queue (the agent's own worker), is refused", async () => {
    for (const facts of [{ ...session('RUNNING'), workflowType: 'rogueParent' }, { ...session('RUNNING'), taskQueue: 'rogue' }]) {
      const verdict = await verifyLineage({ kind: 'parent', workflowId: 'p', runId: 'r' }, QUEUE, runs(facts));
      expect(verdict).toMatchObject({ ok: false, reason: expect.stringContaining('not a session on hermes') });
    }
  });

  test('a run continues a session only after that session continued as new (not after a failed or completed cron run)', async () => {
    const lineage = { kind: 'continued' as const, workflowId: 'w', runId: 'r' };
    expect(await verifyLineage(lineage, QUEUE, runs(session('CONTINUED_AS_NEW')))).toMatchObject({ ok: true });
    for (const status of ['FAILED', 'COMPLETED', 'TERMINATED']) {
      expect(await verifyLineage(lineage, QUEUE, runs(session(status)))).toMatchObject({ ok: false, reason: expect.stringContaining('not by continuing as new') });
    }
  });

  test('an origin the server does not know is refused', async () => {
    expect(await verifyLineage({ kind: 'parent', workflowId: 'p', runId: 'r' }, QUEUE, runs(undefined))).toMatchObject({ ok: false, reason: expect.stringContaining('not known') });
  });
});
