// The hooks a worker runs: callbacks per event in registration order (plugins first, then shell
// hooks), each bounded by a timeout and isolated from the others. A throw or a timeout is logged;
// for pre_tool_call it blocks the call (fail closed), since a broken guard must not let calls by.
import { silentLogger, type Logger } from '../logging';
import { isValidHook, type HookCallback, type HookName, type HookPayloads } from './hook-names';

export interface RegisteredHook {
  event: string;
  /** Who registered it: `plugin:<name>` or `shell:<command>`. */
  source: string;
  callback: HookCallback;
  timeoutMs: number;
  /** Tool events only: the callback runs for tool names this accepts. */
  matches?: (toolName: string) => boolean;
}

/** One callback's answer, or why there is none. */
export type HookOutcome = { source: string; value: unknown } | { source: string; failure: string };

/** What the pre_tool_call hooks decided. */
export type PreToolCallDecision = { action: 'allow' } | { action: 'block'; message: string; source: string };

export const DEFAULT_HOOK_TIMEOUT_MS = 30_000;

export class HookRegistry {
  private readonly hooks: RegisteredHook[] = [];

  constructor(private readonly logger: Logger = silentLogger) {}

  register(hook: Omit<RegisteredHook, 'timeoutMs'> & { timeoutMs?: number }): RegisteredHook {
    if (!isValidHook(hook.event)) this.logger.warn({ event: hook.event, source: hook.source }, `Unknown hook event '${hook.event}': it is kept but never fires`);
    const registered = { ...hook, timeoutMs: hook.timeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS };
    this.hooks.push(registered);
    return registered;
  }

  /** Removes hooks (a plugin that failed half-way through loading). */
  remove(hooks: readonly RegisteredHook[]): void {
    for (const hook of hooks) {
      const index = this.hooks.indexOf(hook);
      if (index !== -1) this.hooks.splice(index, 1);
    }
  }

  has(event: HookName): boolean {
    return this.hooks.some((hook) => hook.event === event);
  }

  list(): readonly RegisteredHook[] {
    return this.hooks;
  }

  /** Runs every callback of the event in order; failures are logged and reported, never thrown. */
  async invoke<Event extends HookName>(event: Event, payload: HookPayloads[Event]): Promise<HookOutcome[]> {
    const toolName = (payload as { tool_name?: unknown }).tool_name;
    const outcomes: HookOutcome[] = [];
    for (const hook of this.hooks) {
      if (hook.event !== event) continue;
      if (hook.matches && typeof toolName === 'string' && !hook.matches(toolName)) continue;
      try {
        // Each callback gets its own copy: one cannot change what the next one sees.
        const value = await withTimeout(Promise.resolve().then(() => hook.callback(structuredClone(payload) as unknown as Record<string, unknown>)), hook.timeoutMs);
        if (value !== undefined && value !== null) outcomes.push({ source: hook.source, value });
      } catch (error) {
        const failure = error instanceof Error ? error.message : String(error);
        this.logger.warn({ event, source: hook.source, err: error }, `Hook ${event} from ${hook.source} failed: ${failure}`);
        outcomes.push({ source: hook.source, failure });
      }
    }
    return outcomes;
  }

  /**
   * The first block decides (`{action: "block", message}`); a failed hook blocks too. A hook
   * asking for `{action: "approve"}` blocks as well: the gate's questions come from the tools'
   * own `assess`, so a hook cannot add a call to it, and failing closed is the safe reading.
   */
  async preToolCall(payload: HookPayloads['pre_tool_call']): Promise<PreToolCallDecision> {
    for (const outcome of await this.invoke('pre_tool_call', payload)) {
      if ('failure' in outcome) {
        return { action: 'block', source: outcome.source, message: `Blocked: the pre_tool_call hook from ${outcome.source} failed (${outcome.failure}), so the call was not run.` };
      }
      const decision = outcome.value as { action?: unknown; message?: unknown; decision?: unknown; reason?: unknown };
      const message = typeof decision.message === 'string' ? decision.message : typeof decision.reason === 'string' ? decision.reason : undefined;
      if ((decision.action === 'block' || decision.decision === 'block') && message) return { action: 'block', message, source: outcome.source };
      if (decision.action === 'approve') {
        return { action: 'block', source: outcome.source, message: message ?? `Blocked: ${outcome.source} asked for an approval that a hook cannot request here.` };
      }
    }
    return { action: 'allow' };
  }

  /** The first string a transform hook returns replaces the text; otherwise it stays. */
  async transform<Event extends 'transform_tool_result' | 'transform_terminal_output'>(event: Event, payload: HookPayloads[Event], text: string): Promise<string> {
    if (!this.has(event)) return text;
    const replacement = (await this.invoke(event, payload)).find((outcome) => 'value' in outcome && typeof outcome.value === 'string');
    return replacement && 'value' in replacement ? (replacement.value as string) : text;
  }

  /** Observers: run them, log failures, ignore answers. */
  async notify<Event extends 'post_tool_call' | 'on_session_start' | 'on_session_end'>(event: Event, payload: HookPayloads[Event]): Promise<void> {
    if (this.has(event)) await this.invoke(event, payload);
  }
}

function withTimeout<T>(promise: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs / 1000} s`)), timeoutMs);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
