// The memory tool: durable notes (MEMORY.md) and a user profile (USER.md) that every later session
// sees in its system prompt. Runs in the executeTool activity against the worker's MemoryStore.
import { z } from 'zod';
import type { MemoryResponse, MemoryStore } from '../memory/memory-store';
import { register } from '../registry/registry';
import { toolError, toolResult } from '../registry/results';
import type { ToolContext } from '../registry/tool-entry';
import { MEMORY_DESCRIPTION } from './memory-description';
import { capConsolidationFailures, consolidationFailureStreak, isConsolidationFailure } from './memory-failure-streak';

const ACTIONS = ['add', 'replace', 'remove'] as const;
const UNAVAILABLE = 'Memory is not available. It may be disabled in config or this environment.';
/** Entries are bounded by the char limits; this only stops an absurd payload early. */
const MAX_OPERATIONS = 100;

const memoryArguments = z.object({
  // Plain strings with the enum in the JSON schema only, so a wrong value gets the original's answer.
  action: z
    .string()
    .optional()
    .meta({ enum: [...ACTIONS] })
    .describe("The action to perform (single-op shape). Omit when using 'operations'."),
  target: z
    .preprocess((value) => value ?? 'memory', z.string())
    .meta({ enum: ['memory', 'user'] })
    .describe("Which memory store: 'memory' for personal notes, 'user' for user profile."),
  content: z.string().optional().describe("The entry content. Required for 'add' and 'replace' (single-op shape)."),
  old_text: z
    .string()
    .optional()
    .describe(
      "REQUIRED for 'replace' and 'remove' (single-op shape): a short unique substring identifying the existing entry to modify. Omit only for 'add'.",
    ),
  operations: z
    .array(
      z.object({
        action: z.string().meta({ enum: [...ACTIONS] }),
        content: z.string().optional().describe('Entry content for add/replace.'),
        old_text: z.string().optional().describe('Substring identifying the entry for replace/remove.'),
      }),
    )
    .max(MAX_OPERATIONS)
    .optional()
    .describe(
      'Batch shape: a list of operations applied atomically in one call against the final char budget. Preferred when making multiple changes or consolidating to make room. Each item is {action, content?, old_text?}.',
    ),
});

register({
  name: 'memory',
  toolset: 'memory',
  emoji: '🧠',
  schema: memoryArguments,
  description: MEMORY_DESCRIPTION,
  // A write to shared state: alone in its turn, and never re-run blindly after a crash.
  concurrency: () => ({ mode: 'exclusive' }),
  retrySafe: false,
  // Its files live in the hermes home, never in the workspace.
  changesWorkspace: () => false,
  // Every later session reads what is kept: the gate sees it (memory-gate in assess-tool-call.ts).
  assess: (args) => {
    const text = keptText(args as z.infer<typeof memoryArguments>);
    return text ? { remembers: text } : {};
  },
  handler: async ({ action, target, content, old_text: oldText, operations }, context) => {
    const memory = await memoryFor(context);
    if (!memory) return unavailable();
    if (target !== 'memory' && target !== 'user') return failure(`Invalid target '${target}'. Use 'memory' or 'user'.`);
    if (!memory.isEnabled(target)) return unavailable();

    if (operations?.length) return answer(await memory.applyBatch(target, operations), context);

    if (action === 'add' && !content) return failure("Content is required for 'add' action.");
    if (action === 'replace' && !oldText) return toolResult(await memory.missingOldText(target, 'replace'));
    if (action === 'replace' && !content) return failure("content is required for 'replace' action.");
    if (action === 'remove' && !oldText) return toolResult(await memory.missingOldText(target, 'remove'));
    switch (action) {
      case 'add':
        return answer(await memory.add(target, content!), context);
      case 'replace':
        return answer(await memory.replace(target, oldText!, content!), context);
      case 'remove':
        return answer(await memory.remove(target, oldText!), context);
      default:
        return failure(`Unknown action '${action}'. Use: add, replace, remove`);
    }
  },
});

/** What a call would add to memory (a batch is applied whole, or a single operation). */
function keptText({ action, content, operations }: z.infer<typeof memoryArguments>): string {
  const operationsKept = operations?.length ? operations : [{ action: action ?? '', content }];
  return operationsKept
    .filter((operation) => operation.action !== 'remove' && operation.content)
    .map((operation) => operation.content)
    .join('\n');
}

/** A write's answer; past three failed consolidations in a row, the instruction to stop trying. */
async function answer(result: MemoryResponse, context: ToolContext): Promise<string> {
  const sessions = context.services?.sessions;
  if (!isConsolidationFailure(result) || !sessions) return toolResult(result);
  return toolResult(capConsolidationFailures(result, await consolidationFailureStreak(sessions, context.sessionId)));
}

/** Sub-agents work on a delegated task: like the original's skip_memory, they leave memory alone. */
async function memoryFor(context: ToolContext): Promise<MemoryStore | undefined> {
  const memory = context.services?.memory;
  if (!memory) return undefined;
  const session = await context.services?.sessions?.getSession(context.sessionId);
  return session?.parentSessionId ? undefined : memory;
}

function failure(message: string): string {
  return toolError(message, { success: false });
}

function unavailable(): string {
  return failure(UNAVAILABLE);
}
