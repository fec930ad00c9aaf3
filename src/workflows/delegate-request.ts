// Reads a delegate_task call's arguments into the children to start, with the original's error
// strings. Pure: the workflow applies it to the arguments recorded in its history.
import type { DelegationSettings, SubagentRole } from './delegation-types';

export interface ChildTask {
  goal: string;
  context?: string;
  role: SubagentRole;
}

export type DelegateRequest = { ok: true; tasks: ChildTask[] } | { ok: false; error: string };

/** Goals and contexts travel in the children's workflow input: bounded so history stays small. */
export const MAX_GOAL_CHARS = 10_000;
export const MAX_CONTEXT_CHARS = 50_000;

export function parseDelegateRequest(args: Record<string, unknown>, settings: DelegationSettings, depth: number): DelegateRequest {
  const fail = (error: string): DelegateRequest => ({ ok: false, error });
  if (depth >= settings.maxSpawnDepth) {
    return fail(
      `Delegation depth limit reached (depth=${depth}, max_spawn_depth=${settings.maxSpawnDepth}). ` +
        'Raise delegation.max_spawn_depth in config.yaml if deeper nesting is required (no hard ceiling, but each level multiplies API cost).',
    );
  }
  let tasks: unknown = args.tasks;
  if (typeof tasks === 'string' && tasks.trim()) {
    try {
      tasks = JSON.parse(tasks);
    } catch {
      return fail("'tasks' must be an array of task objects (a JSON string that did not parse was given).");
    }
  }
  const childDepth = depth + 1;
  const roleFor = (requested: unknown): SubagentRole =>
    requested === 'orchestrator' && settings.orchestratorEnabled && childDepth < settings.maxSpawnDepth ? 'orchestrator' : 'leaf';

  let raw: unknown[];
  if (Array.isArray(tasks) && tasks.length) {
    if (tasks.length > settings.maxConcurrentChildren) {
      return fail(
        `Too many tasks: ${tasks.length} provided, but max_concurrent_children is ${settings.maxConcurrentChildren}. ` +
          'Either reduce the task count, split into multiple delegate_task calls, or increase delegation.max_concurrent_children in config.yaml.',
      );
    }
    raw = tasks;
  } else if (typeof args.goal === 'string' && args.goal.trim()) {
    raw = [{ goal: args.goal, context: args.context, role: args.role }];
  } else {
    return fail("Provide either 'goal' (single task) or 'tasks' (batch).");
  }

  const children: ChildTask[] = [];
  for (const [index, task] of raw.entries()) {
    if (typeof task !== 'object' || task === null || Array.isArray(task)) return fail(`Task ${index} must be an object, got ${typeName(task)}.`);
    const { goal, context, role } = task as Record<string, unknown>;
    if (typeof goal !== 'string' || !goal.trim()) return fail(`Task ${index} is missing a 'goal'.`);
    if (goal.length > MAX_GOAL_CHARS) return fail(`Task ${index}: 'goal' is ${goal.length} characters; at most ${MAX_GOAL_CHARS} are allowed. Put details in 'context'.`);
    // In batch mode the top-level goal and context are ignored, as in the original; a role is inherited.
    const taskContext = typeof context === 'string' && context.trim() ? context : undefined;
    if (taskContext !== undefined && taskContext.length > MAX_CONTEXT_CHARS) {
      return fail(`Task ${index}: 'context' is ${taskContext.length} characters; at most ${MAX_CONTEXT_CHARS} are allowed.`);
    }
    children.push({
      goal: goal.trim(),
      ...(taskContext?.trim() ? { context: taskContext.trim() } : {}),
      role: roleFor(role ?? args.role),
    });
  }
  return { ok: true, tasks: children };
}

/** The result the model gets at once: the children run in the background. */
export function dispatchedResult(delegationId: string, tasks: readonly ChildTask[], sessionIds: readonly string[], queued: number): string {
  const count = tasks.length;
  const note =
    count === 1
      ? 'Subagent is running in the background. You and the user can keep working; its full result re-enters the conversation as a new message when it finishes. Do not wait or poll — just continue.'
      : `${count} subagents are running in parallel in the background. You and the user can keep working; each one's result re-enters the conversation as a new message when it finishes. Do not wait or poll — just continue.`;
  return JSON.stringify({
    status: 'dispatched',
    mode: 'background',
    count,
    delegation_id: delegationId,
    goals: tasks.map((task) => task.goal),
    session_ids: sessionIds,
    ...(queued ? { queued, queue_note: `${queued} of them wait for a free slot (delegation.max_concurrent_children running at once).` } : {}),
    note,
  });
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'list';
  return typeof value;
}
