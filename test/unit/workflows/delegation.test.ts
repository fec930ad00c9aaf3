// delegate_task's arguments, limits and roles, the children's tools and approvals, and what the
// model reads: the pure parts of delegation, with the original's exact strings.
import { capSummary, reportMessage } from '../../../src/activities/subagent-report-message';
import { subagentSystemPrompt } from '../../../src/activities/subagent-prompt';
import { patchDelegateSchema } from '../../../src/tools/delegate-task';
import { dispatchedResult, parseDelegateRequest } from '../../../src/workflows/delegate-request';
import { childApprovals, childToolNames, DEFAULT_DELEGATION_SETTINGS, type DelegationSettings } from '../../../src/workflows/delegation-types';
import type { SessionInput } from '../../../src/workflows/session-types';

const settings = (overrides: Partial<DelegationSettings> = {}): DelegationSettings => ({ ...DEFAULT_DELEGATION_SETTINGS, ...overrides });

describe('delegate_task arguments', () => {
  test('a single goal becomes one leaf task with its context', () => {
    expect(parseDelegateRequest({ goal: ' fix the build ', context: 'see ci.log' }, settings(), 0)).toEqual({ ok: true, tasks: [{ goal: 'fix the build', context: 'see ci.log', role: 'leaf' }] });
  });

  test('a batch ignores the top-level goal and context, as in the original; a JSON string of tasks is accepted', () => {
    const request = parseDelegateRequest({ goal: 'ignored', context: 'ignored too', tasks: JSON.stringify([{ goal: 'a' }, { goal: 'b', context: 'own' }]) }, settings(), 0);
    expect(request).toEqual({ ok: true, tasks: [{ goal: 'a', role: 'leaf' }, { goal: 'b', context: 'own', role: 'leaf' }] });
  });

  test.each([
    [{}, "Provide either 'goal' (single task) or 'tasks' (batch)."],
    [{ tasks: [] }, "Provide either 'goal' (single task) or 'tasks' (batch)."],
    [{ tasks: ['do it'] }, 'Task 0 must be an object, got string.'],
    [{ tasks: [{ goal: 'a' }, null] }, 'Task 1 must be an object, got null.'],
    [{ tasks: [{ goal: 'a' }, { context: 'no goal' }] }, "Task 1 is missing a 'goal'."],
    [
      { tasks: [{ goal: 'a' }, { goal: 'b' }, { goal: 'c' }, { goal: 'd' }] },
      'Too many tasks: 4 provided, but max_concurrent_children is 3. Either reduce the task count, split into multiple delegate_task calls, or increase delegation.max_concurrent_children in config.yaml.',
    ],
  ])('%j is refused with the original words', (args, error) => {
    expect(parseDelegateRequest(args, settings(), 0)).toEqual({ ok: false, error });
  });

  test('the depth limit is enforced where the call is made', () => {
    expect(parseDelegateRequest({ goal: 'x' }, settings({ maxSpawnDepth: 2 }), 2)).toEqual({
      ok: false,
      error:
        'Delegation depth limit reached (depth=2, max_spawn_depth=2). Raise delegation.max_spawn_depth in config.yaml if deeper nesting is required (no hard ceiling, but each level multiplies API cost).',
    });
  });

  test("role 'orchestrator' holds only where nesting is on and depth allows; otherwise it is forced to 'leaf'", () => {
    const roleOf = (overrides: Partial<DelegationSettings>, depth: number) => {
      const request = parseDelegateRequest({ goal: 'x', role: 'orchestrator' }, settings(overrides), depth);
      return request.ok ? request.tasks[0]?.role : request.error;
    };
    expect(roleOf({ maxSpawnDepth: 1 }, 0)).toBe('leaf');
    expect(roleOf({ maxSpawnDepth: 2 }, 0)).toBe('orchestrator');
    expect(roleOf({ maxSpawnDepth: 3 }, 1)).toBe('orchestrator');
    expect(roleOf({ maxSpawnDepth: 2 }, 1)).toBe('leaf');
    expect(roleOf({ maxSpawnDepth: 2 }, 2)).toMatch(/^Delegation depth limit reached/);
    expect(roleOf({ maxSpawnDepth: 2, orchestratorEnabled: false }, 0)).toBe('leaf');
  });

  test('oversized goals and contexts are refused before they reach workflow history', () => {
    expect(parseDelegateRequest({ goal: 'g'.repeat(10_001) }, settings(), 0)).toMatchObject({ ok: false, error: expect.stringMatching(/at most 10000/) });
    expect(parseDelegateRequest({ goal: 'g', context: 'c'.repeat(50_001) }, settings(), 0)).toMatchObject({ ok: false, error: expect.stringMatching(/at most 50000/) });
  });

  test('the dispatched result returns at once, naming each child session and what waits for a slot', () => {
    const result = JSON.parse(dispatchedResult('s-d0', [{ goal: 'a', role: 'leaf' }, { goal: 'b', role: 'leaf' }], ['s-sa0', 's-sa1'], 1)) as Record<string, unknown>;
    expect(result).toMatchObject({ status: 'dispatched', mode: 'background', count: 2, delegation_id: 's-d0', goals: ['a', 'b'], session_ids: ['s-sa0', 's-sa1'], queued: 1 });
    expect(String(result.note)).toMatch(/^2 subagents are running in parallel in the background/);
  });
});

describe('what a child may do', () => {
  const parentTools = ['terminal', 'read_file', 'delegate_task', 'memory', 'clarify', 'execute_code', 'todo', 'session_search'];

  test('a leaf loses delegate_task, clarify, memory, send_message, execute_code and cronjob; an orchestrator keeps delegate_task', () => {
    expect(childToolNames(parentTools, 'leaf')).toEqual(['terminal', 'read_file', 'todo', 'session_search']);
    expect(childToolNames(parentTools, 'orchestrator')).toEqual(['terminal', 'read_file', 'delegate_task', 'todo', 'session_search']);
  });

  test("a child's tools only ever narrow its parent's", () => {
    expect(childToolNames(['read_file'], 'orchestrator')).toEqual(['read_file']);
  });

  const parent = (approvals: SessionInput['approvals']) => ({ approvals });
  test('a child asks the same humans under the same rules; a terminal prompt answers only the root', () => {
    expect(childApprovals(parent({ mode: 'manual', surface: 'async' }), { subagentAutoApprove: false })).toEqual({ mode: 'manual', surface: 'async' });
    expect(childApprovals(parent({ mode: 'manual', surface: 'interactive' }), { subagentAutoApprove: false })).toEqual({ mode: 'manual', surface: 'async' });
  });

  test('subagent_auto_approve answers for the human, but never widens a parent whose questions are denied unattended', () => {
    expect(childApprovals(parent({ mode: 'manual', surface: 'async' }), { subagentAutoApprove: true })).toEqual({ mode: 'manual', surface: 'unattended', unattendedPolicy: 'approve' });
    const denying = parent({ mode: 'manual', surface: 'unattended', unattendedPolicy: 'deny' });
    expect(childApprovals(denying, { subagentAutoApprove: true })).toEqual(denying.approvals);
  });
});

describe('what the model reads', () => {
  test("the schema's descriptions name this user's limits and nesting", () => {
    const base = { name: 'delegate_task', description: 'x', parameters: { type: 'object', properties: { tasks: { description: '<dynamic>' }, role: { description: '<dynamic>' } } } };
    const off = patchDelegateSchema(base, { delegation: { maxConcurrentChildren: 5, maxSpawnDepth: 1, orchestratorEnabled: true } });
    expect(off.description).toContain("provide 'tasks' array with up to 5 items concurrently");
    expect(JSON.stringify(off.parameters)).toContain('Nested delegation is OFF for this user (max_spawn_depth=1)');
    const on = patchDelegateSchema(base, { delegation: { maxConcurrentChildren: 5, maxSpawnDepth: 3, orchestratorEnabled: true } });
    expect(JSON.stringify(on.parameters)).toContain('Nested delegation IS enabled for this user (max_spawn_depth=3): pass role=\'orchestrator\' on a child to let it spawn its own workers, up to 2 additional level(s) deep.');
    const disabled = patchDelegateSchema(base, { delegation: { maxConcurrentChildren: 5, maxSpawnDepth: 3, orchestratorEnabled: false } });
    expect(disabled.description).toContain('Nested delegation is DISABLED on this install (delegation.orchestrator_enabled=false), even though max_spawn_depth=3.');
    expect(base.parameters.properties.tasks.description).toBe('<dynamic>');
  });

  test('a long answer keeps its head and tail within max_summary_chars and says where the rest is', () => {
    const answer = `${'h'.repeat(5000)}${'t'.repeat(5000)}`;
    const capped = capSummary(answer, 2000, 'root-sa3');
    expect(capped.truncated).toBe(true);
    expect(capped.text.length).toBeLessThanOrEqual(2000);
    expect(capped.text.startsWith('hhh')).toBe(true);
    expect(capped.text.endsWith('ttt')).toBe(true);
    expect(capped.text).toContain('the whole answer is in session root-sa3');
    expect(capSummary('short', 2000, 'x')).toEqual({ text: 'short', truncated: false });
  });

  test("a child's result message is the original's per-task entry, with the session to read the rest in", () => {
    const report = { sessionId: 'r-sa0', taskIndex: 0, taskCount: 2, goal: 'find it', status: 'completed' as const, preview: 'found', answerChars: 5, turns: 3, toolCalls: 2, tokens: { input: 10, output: 4 }, durationSeconds: 1.5, model: 'm' };
    const [header, json] = reportMessage(report, 'found', 100).split('\n');
    expect(header).toBe('[SUBAGENT RESULT — task 1/2: find it]');
    expect(JSON.parse(json ?? '')).toEqual({ task_index: 0, status: 'completed', summary: 'found', api_calls: 3, tool_calls: 2, duration_seconds: 1.5, model: 'm', exit_reason: 'completed', tokens: { input: 10, output: 4 }, session_id: 'r-sa0' });
  });

  test("a child's system prompt holds its goal, context and workspace, and an orchestrator's says it may spawn", () => {
    const leaf = subagentSystemPrompt({ goal: 'count files', context: 'only src/', role: 'leaf' }, '/work/repo');
    expect(leaf).toContain('YOUR TASK:\ncount files');
    expect(leaf).toContain('CONTEXT:\nonly src/');
    expect(leaf).toContain('WORKSPACE PATH:\n/work/repo');
    expect(leaf).not.toContain('Orchestrator Role');
    expect(subagentSystemPrompt({ goal: 'g', role: 'orchestrator' }, '/w')).toContain('## Subagent Spawning (Orchestrator Role)');
  });
});
