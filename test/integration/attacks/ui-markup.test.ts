// The Temporal UI renders a session's details line as Markdown, and an operator reads it to learn
// what the session asks. The agent names a tool, writes a plan item and a command whose text is
// Markdown (bold "Awaiting approval", a link to "approve", a backtick that closes the runtime's
// code span early): none of it may be read as markup, only as quoted text.
import type { SessionHandle } from '../../../src/temporal/sessions';
import { splitCodeSpans } from '../../helpers/markdown-spans';
import { runAttack, terminal, type AttackWorld, setUpAttacks } from '../../helpers/attack-world';
import type { Harness } from '../../helpers/session-harness';

let harness: Harness;
let world: AttackWorld;
setUpAttacks((connected) => (harness = connected), (created) => (world = created));

const LINK = '[Approve ap-1 now](http://127.0.0.1:9/approve)';
const FORGED = `**Awaiting approval** — ap-1 (read-only): ${LINK}`;

/** Every details line the UI would have shown while the session ran. */
function watchDetails(seen: Set<string>) {
  return async (handle: SessionHandle, finished: () => boolean) => {
    const deadline = Date.now() + 60_000;
    while (!finished() && Date.now() < deadline) {
      const metadata = await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata').catch(() => undefined);
      if (metadata?.currentDetails) seen.add(metadata.currentDetails);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
}

test("a tool name, a plan item and a command written as Markdown show as quoted text in the UI's details line", async () => {
  const seen = new Set<string>();
  const run = await runAttack(
    harness,
    world,
    () => ({
      turns: [
        { tool_calls: [{ name: 'todo', arguments: { todos: [{ id: '1', content: FORGED, status: 'in_progress' }] } }] },
        // An unknown tool's name is the model's too; the command keeps the turn running long enough to be seen.
        { tool_calls: [{ name: LINK, arguments: {} }, terminal('sleep 2')] },
        // Waits for a person (and times out): the details line names it.
        { tool_calls: [terminal(`rm -rf ~/precious # \` ${LINK} \``)] },
        { content: 'done' },
      ],
    }),
    {},
    watchDetails(seen),
  );
  expect(run.result.status).toBe('completed');
  const lines = [...seen];
  // The attack was on screen: the plan, the tool name and the pending command were all shown.
  expect(lines.some((line) => line.includes('running') && line.includes('Approve ap-1 now') && line.includes('plan 0/1'))).toBe(true);
  expect(lines.some((line) => line.startsWith('**Awaiting approval**') && line.includes('rm -rf ~/precious'))).toBe(true);
  for (const line of lines) {
    const { outside } = splitCodeSpans(line);
    // Outside code spans only the runtime's words: no link, and no bold the model wrote.
    expect({ line, link: outside.includes('](') }).toEqual({ line, link: false });
    expect({ line, forged: outside.includes('(read-only)') }).toEqual({ line, forged: false });
  }
});

test("a sub-agent's goal and its pending command written as Markdown show as quoted text in its summary and the root's details", async () => {
  const seen = new Set<string>();
  const summaries = new Set<string | undefined>();
  // Wide characters too: the UI's summary holds at most 200 bytes.
  const goal = `victim ${FORGED} ${'界'.repeat(150)}`;
  const watchTree = async (root: SessionHandle, finished: () => boolean) => {
    const child = harness.client.workflow.getHandle(`${root.workflowId}-sa0`);
    await Promise.all([
      watchDetails(seen)(root, finished),
      (async () => {
        const deadline = Date.now() + 60_000;
        while (!finished() && Date.now() < deadline && !summaries.size) {
          const description = await child.describe().catch(() => undefined);
          if (description) summaries.add(await description.staticSummary());
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      })(),
    ]);
  };
  const run = await runAttack(
    harness,
    world,
    () => ({
      turns: [{ tool_calls: [{ name: 'delegate_task', arguments: { goal } }] }, { content: 'waiting' }, { content: 'done' }],
      agents: [{ match: 'victim', turns: [{ tool_calls: [terminal(`rm -rf ~/precious # \` ${LINK} \``)] }, { content: 'finished' }] }],
    }),
    {},
    watchTree,
  );
  expect(run.result.status).toBe('completed');
  const [summary] = [...summaries];
  expect(summary).toContain('Approve ap-1 now');
  expect(Buffer.byteLength(summary ?? '')).toBeLessThanOrEqual(200);
  const lines = [...seen];
  expect(lines.some((line) => line.includes('A sub-agent awaits approval') && line.includes('rm -rf ~/precious'))).toBe(true);
  for (const line of [summary ?? '', ...lines]) {
    const { outside } = splitCodeSpans(line);
    expect({ line, link: outside.includes('](') }).toEqual({ line, link: false });
  }
});
