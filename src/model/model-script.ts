// The script a scripted model replays: one entry per assistant turn. Turn i answers a request
// whose transcript already holds i assistant messages, so retries and concurrent sessions
// each see the right turn.
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';

const scriptedFailure = z.object({
  status: z.number().int().min(400).max(599),
  message: z.string().default('scripted failure'),
  retry_after_seconds: z.number().min(0).optional(),
});

const scriptedToolCall = z.object({
  name: z.string(),
  /**
   * An object is sent as JSON; a string is sent as-is (to script malformed arguments). Either may
   * hold `{{last.<field>}}`: that field of the latest tool result that has it.
   */
  arguments: z.union([z.record(z.string(), z.unknown()), z.string()]).default({}),
  id: z.string().optional(),
});

export const scriptedTurnSchema = z
  .object({
    /** May hold `{{last.<field>}}` placeholders, like tool call arguments. */
    content: z.string().nullable().optional(),
    tool_calls: z.array(scriptedToolCall).optional(),
    /** Served, in order, before this turn succeeds (one per request). */
    fail_first: z.array(scriptedFailure).optional(),
    /** Served on every request for this turn: the turn never succeeds. */
    always_fail: scriptedFailure.optional(),
    delay_ms: z.number().int().min(0).max(600_000).optional(),
  })
  .strict();

/** A script of its own for the sessions whose task (first user message) contains `match`: sub-agents. */
const agentScriptSchema = z
  .object({
    match: z.string().min(1),
    turns: z.array(scriptedTurnSchema).min(1),
  })
  .strict();

export const modelScriptSchema = z.object({
  description: z.string().optional(),
  turns: z.array(scriptedTurnSchema).min(1),
  /** Checked in order; a session no entry matches plays `turns`. */
  agents: z.array(agentScriptSchema).optional(),
});

export type ScriptedTurn = z.infer<typeof scriptedTurnSchema>;
export type ModelScript = z.infer<typeof modelScriptSchema>;
export type ModelScriptInput = z.input<typeof modelScriptSchema>;

/** The turns a session plays, chosen by its task (the first user message). */
export function turnsForTask(script: ModelScript, task: string): ScriptedTurn[] {
  return script.agents?.find((agent) => task.includes(agent.match))?.turns ?? script.turns;
}

export function parseModelScript(value: unknown): ModelScript {
  const parsed = modelScriptSchema.safeParse(value);
  if (!parsed.success) throw new Error(`Invalid model script: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

/** Reads a script from a .json or .yaml file. */
export function loadModelScript(file: string): ModelScript {
  return parseModelScript(parseYaml(readFileSync(file, 'utf8')));
}
