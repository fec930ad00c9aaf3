// The delegate_task tool's schema and its descriptions, which name this session's delegation
// limits. Calls are handled by the session workflow: each task becomes a child workflow.
import { z } from 'zod';
import { register } from '../registry/registry';
import { toolError } from '../registry/results';
import type { FunctionSchema, SchemaContext } from '../registry/tool-entry';
import { DEFAULT_DELEGATION_SETTINGS } from '../workflows/delegation-types';

const role = z.enum(['leaf', 'orchestrator']);

const delegateArguments = z.object({
  goal: z
    .string()
    .optional()
    .describe('What the subagent should accomplish. Be specific and self-contained -- the subagent knows nothing about your conversation history.'),
  context: z
    .string()
    .optional()
    .describe(
      'Background information the subagent needs: file paths, error messages, project structure, constraints. The more specific you are, the better the subagent performs.',
    ),
  tasks: z
    .array(
      z.object({
        goal: z.string().describe('Task goal'),
        context: z.string().optional().describe('Task-specific context'),
        role: role.optional().describe("Per-task role override. See top-level 'role' for semantics."),
      }),
    )
    .optional()
    .describe('<dynamic>'),
  role: role.optional().describe('<dynamic>'),
  background: z
    .boolean()
    .optional()
    .describe(
      'DEPRECATED / IGNORED. Delegations always run in the background: delegate_task returns immediately and each result re-enters the conversation as a new message when its subagent finishes. Setting this has no effect.',
    ),
});

register({
  name: 'delegate_task',
  toolset: 'delegation',
  emoji: '🔀',
  schema: delegateArguments,
  runsInWorkflow: true,
  description: delegateDescription(DEFAULT_DELEGATION_SETTINGS),
  patchSchema: (schema, _available, context) => patchDelegateSchema(schema, context),
  handler: () => toolError('delegate_task must be handled by the agent loop'),
});

type Limits = NonNullable<SchemaContext['delegation']>;

/** The descriptions with this session's limits in them. */
export function patchDelegateSchema(schema: FunctionSchema, context: SchemaContext = {}): FunctionSchema {
  const limits = context.delegation ?? DEFAULT_DELEGATION_SETTINGS;
  const parameters = structuredClone(schema.parameters) as { properties: { tasks: { description?: string }; role: { description?: string } } };
  parameters.properties.tasks.description =
    `Batch mode: tasks to run in parallel (up to ${limits.maxConcurrentChildren} for this user, set via delegation.max_concurrent_children). ` +
    'Each gets its own subagent with isolated context and terminal session. When provided, top-level goal/context are ignored.';
  parameters.properties.role.description =
    "Role of the child agent. 'leaf' (default) = focused worker, cannot delegate further. 'orchestrator' = can use delegate_task to spawn its own workers. " +
    nestingSentence(limits);
  return { ...schema, description: delegateDescription(limits), parameters };
}

function nestingSentence(limits: Limits): string {
  const depth = limits.maxSpawnDepth;
  if (depth >= 2 && limits.orchestratorEnabled) {
    return `Nested delegation IS enabled for this user (max_spawn_depth=${depth}): pass role='orchestrator' on a child to let it spawn its own workers, up to ${depth - 1} additional level(s) deep.`;
  }
  if (depth >= 2) {
    return `Nested delegation is DISABLED on this install (delegation.orchestrator_enabled=false), even though max_spawn_depth=${depth}. role='orchestrator' is silently forced to 'leaf'.`;
  }
  return `Nested delegation is OFF for this user (max_spawn_depth=${depth}): every child is a leaf and cannot delegate further. Raise delegation.max_spawn_depth in config.yaml to enable nesting.`;
}

function delegateDescription(limits: Limits): string {
  return [
    'Spawn one or more subagents to work on tasks in isolated contexts. Each subagent gets its own conversation, terminal session, and toolset. Only the final summary is returned -- intermediate tool results never enter your context window.',
    '',
    "TWO MODES (one of 'goal' or 'tasks' is required):",
    "1. Single task: provide 'goal' (+ optional context).",
    `2. Batch (parallel): provide 'tasks' array with up to ${limits.maxConcurrentChildren} items concurrently for this user (configured via delegation.max_concurrent_children in config.yaml). ${nestingSentence(limits)}`,
    '',
    "BOTH MODES RUN IN THE BACKGROUND. delegate_task returns immediately — you keep working, and each subagent's result re-enters the conversation as its own new message when it finishes. Do NOT wait or poll; just continue with other work after dispatching. Subagents are durable: they survive worker restarts, and your session waits for every one of them before it ends.",
    '',
    'WHEN TO USE delegate_task:',
    '- Reasoning-heavy subtasks (debugging, code review, research synthesis)',
    '- Tasks that would flood your context with intermediate data',
    '- Parallel independent workstreams (research A and B simultaneously)',
    '',
    'WHEN NOT TO USE:',
    '- Single tool call -> just call the tool directly',
    '- Tasks needing user interaction -> subagents cannot use clarify',
    '',
    'IMPORTANT:',
    "- Subagents have NO memory of your conversation. Pass all relevant info (file paths, error messages, constraints) via the 'context' field.",
    "- If the user is writing in a non-English language, or asked for output in a specific language / tone / style, say so in 'context'.",
    '- Subagent summaries are SELF-REPORTS, not verified facts. For operations with external side-effects, require the subagent to return a verifiable handle (URL, ID, absolute path) and verify it yourself before telling the user the operation succeeded.',
    "- Leaf subagents (role='leaf', the default) CANNOT call: delegate_task, clarify, memory, send_message, execute_code.",
    `- Orchestrator subagents (role='orchestrator') retain delegate_task so they can spawn their own workers, but still cannot use clarify, memory, send_message, or execute_code. Orchestrators are bounded by max_spawn_depth=${limits.maxSpawnDepth} for this user and can be disabled globally via delegation.orchestrator_enabled=false.`,
    '- Subagent model is NOT selectable per call: children use the parent model unless delegation.model is set in config.yaml.',
    '- Each subagent gets its own terminal session (separate working directory and state), starting in your current working directory.',
    '- Dangerous commands of a subagent wait for human approval like yours do.',
  ].join('\n');
}
