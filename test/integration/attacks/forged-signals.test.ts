// The agent, on a server it reaches (`terminal.local.network: host`, as session-start.test.ts
// shows its programs do), signals its own session with what no sub-agent or human would send:
// reports and approval notes that are not objects, and decisions under huge approval ids. A
// handler that threw on one would fail the session's workflow task on every retry, and the
// session would hang for good; a refusal kept whole would grow its state a few megabytes a
// signal (one set of such signals failed it: its workflow task grew past the server's limit).
// The session must drop them and go on when the human answers.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { approvalAuditQuery, approvalDecisionSignal, pendingApprovalsQuery } from '../../../src/approval-signals/definitions';
import type { ApprovalDecision } from '../../../src/approval-signals/approval-types';
import { descendantApprovalsSignal, subagentFinishedSignal } from '../../../src/workflows/messages';
import type { SubagentReport, DescendantApprovals } from '../../../src/workflows/delegation-types';
import type { Harness } from '../../helpers/session-harness';
import { humanApproves, runAttack, setUpAttacks, terminal, type AttackWorld } from '../../helpers/attack-world';

let harness: Harness;
let world: AttackWorld;
setUpAttacks((connected) => (harness = connected), (created) => (world = created));

const HUGE = 'x'.repeat(1_000_000);

const script = () => ({ turns: [{ tool_calls: [terminal(`node -e "require('fs').writeFileSync('approved.txt', 'yes')"`)] }, { content: 'done' }] });

test('reports and approval notes that are not objects are dropped, and the session goes on when the human answers', async () => {
  const run = await runAttack(harness, world, script, {}, async (handle, finished) => {
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await handle.signal(subagentFinishedSignal, null as unknown as SubagentReport);
    await handle.signal(descendantApprovalsSignal, null as unknown as DescendantApprovals);
    await handle.signal(descendantApprovalsSignal, 'not an object' as unknown as DescendantApprovals);
    await handle.signal(descendantApprovalsSignal, { sessionId: 7, workflowId: [], count: 'many' } as unknown as DescendantApprovals);
    await humanApproves(world, 'approved.txt')(handle, finished);
  });
  expect(run.result).toMatchObject({ status: 'completed', answer: 'done' });
  expect(existsSync(path.join(world.workspace, 'approved.txt'))).toBe(true);
}, 60_000);

test('decisions refused for megabyte approval ids and choices are kept in a few hundred characters each', async () => {
  let auditChars = -1;
  const run = await runAttack(harness, world, script, {}, async (handle, finished) => {
    await new Promise((resolve) => setTimeout(resolve, 1500));
    for (let index = 0; index < 3; index += 1) {
      await handle.signal(approvalDecisionSignal, { approvalId: `${HUGE}${index}`, choice: 'once' });
      await handle.signal(approvalDecisionSignal, { approvalId: 'a1', choice: HUGE } as unknown as ApprovalDecision);
    }
    auditChars = JSON.stringify(await handle.query(approvalAuditQuery)).length;
    await humanApproves(world, 'approved.txt')(handle, finished);
  });
  expect(run.result).toMatchObject({ status: 'completed', answer: 'done' });
  // Six refusals, each a few hundred characters, not a megabyte.
  expect(auditChars).toBeGreaterThan(0);
  expect(auditChars).toBeLessThan(10_000);
}, 60_000);

test.each([
  ['started by the same run of the parent', {}],
  // The parent's next run has no handle on the child: it asks the server whether the child closed.
  ['started by an earlier run of the parent', { turnsPerRun: 1 }],
])("a report forged for a running sub-agent %s does not end it early: the parent waits until the sub-agent's workflow has closed", async (_origin, limits) => {
  const childCommand = `node -e "require('fs').writeFileSync('child.txt', 'yes')"`;
  let forged = false;
  let childWhenRootEnded = '';
  const run = await runAttack(
    harness,
    world,
    () => ({
      turns: [{ tool_calls: [{ name: 'delegate_task', arguments: { goal: 'helper: write child.txt' } }] }, { content: 'waiting for the helper' }, { content: 'root done' }, { content: 'root done' }],
      agents: [{ match: 'helper', turns: [{ tool_calls: [terminal(childCommand)] }, { content: 'child done' }] }],
    }),
    {},
    async (root, finished) => {
      const sessionId = root.workflowId.replace(/^hermes-session-/, '');
      const child = harness.client.workflow.getHandle(`hermes-session-${sessionId}-sa0`);
      const deadline = Date.now() + 30_000;
      // The sub-agent waits for its approval (nobody answers: denied after 6 s); the agent says it finished.
      while (!forged && !finished() && Date.now() < deadline) {
        const pending = await child.query(pendingApprovalsQuery).catch(() => []);
        if (pending.length) {
          await root.signal(subagentFinishedSignal, { sessionId: `${sessionId}-sa0`, taskIndex: 0, taskCount: 1, goal: 'helper', status: 'completed', preview: 'all done', answerChars: 8, turns: 1, toolCalls: 0, tokens: { input: 0, output: 0 }, durationSeconds: 1, model: 'scripted' });
          forged = true;
        }
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      await root.result().catch(() => undefined);
      childWhenRootEnded = (await child.describe()).status.name;
    },
    { limits },
  );
  expect(forged).toBe(true);
  expect(run.result).toMatchObject({ status: 'completed', answer: 'root done' });
  expect(childWhenRootEnded).not.toBe('RUNNING');
}, 90_000);
