// The second error layer: from the model's raw tool call (name + JSON text) to a result string.
// Whatever happens, the model receives a well-formed string; only cancellation propagates.
import { isPlainObject } from './arguments';
import { registry as defaultRegistry, type ToolRegistry } from './registry';
import { isCancellation, toolError } from './results';
import type { ToolContext } from './tool-entry';

export const INVALID_ARGUMENTS_RESULT = JSON.stringify({
  error: 'Invalid tool arguments',
  message: 'Tool arguments must be a valid JSON object; tool was not executed.',
});

/** Parses the model's argument text; undefined when it is not a JSON object. Empty text means `{}`. */
export function parseToolArguments(text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined || text.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(text);
    return isPlainObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

export async function handleFunctionCall(
  name: string,
  argumentsText: string | undefined,
  context: ToolContext,
  registry: ToolRegistry = defaultRegistry,
): Promise<string> {
  try {
    const args = parseToolArguments(argumentsText);
    if (!args) return INVALID_ARGUMENTS_RESULT;
    // todo and delegate_task change session state: the workflow runs them, never the registry.
    if (registry.get(name)?.runsInWorkflow) return toolError(`${name} must be handled by the agent loop`);
    return await registry.dispatch(name, args, context);
  } catch (error) {
    if (isCancellation(error, context.signal)) throw error;
    const message = error instanceof Error ? error.message : String(error);
    return toolError(`Error executing ${name}: ${message}`);
  }
}
