// The tool registry: every tool declares itself once with `register(...)`; the registry answers
// which tools exist, which are usable here, and runs them. Plain TypeScript, no Temporal.
import { z } from 'zod';
import { silentLogger, type Logger } from '../logging';
import { argumentIssues, coerceArguments } from './arguments';
import { isCancellation, toolError } from './results';
import {
  DEFAULT_TOOL_EMOJI,
  type CheckContext,
  type CheckFn,
  type FunctionSchema,
  type RegisterOptions,
  type ToolContext,
  type ToolDefinition,
  type ToolEntry,
} from './tool-entry';
import type { ToolsetDefinition } from './toolset-table';

export class ToolRegistry {
  private readonly tools = new Map<string, ToolEntry>();
  private readonly toolsetChecks = new Map<string, CheckFn>();
  private readonly aliases = new Map<string, string>();
  private readonly customToolsets = new Map<string, ToolsetDefinition>();
  private readonly defaultToolsets = new Set<string>();
  /** Bumped on every change, so callers can cache what they derive from the registry. */
  generation = 0;

  constructor(private logger: Logger = silentLogger) {}

  setLogger(logger: Logger): void {
    this.logger = logger;
  }

  register<Schema extends z.ZodObject>(options: RegisterOptions<Schema>): ToolEntry {
    const entry = createEntry(options);
    const existing = this.tools.get(entry.name);
    if (existing && existing.toolset !== entry.toolset) {
      this.logger.warn(
        { tool: entry.name, previousToolset: existing.toolset, toolset: entry.toolset },
        `Tool '${entry.name}' registered by toolset '${entry.toolset}' replaces the one from toolset '${existing.toolset}'`,
      );
    }
    this.tools.set(entry.name, entry);
    if (entry.checkFn && !this.toolsetChecks.has(entry.toolset)) this.toolsetChecks.set(entry.toolset, entry.checkFn);
    this.generation += 1;
    return entry;
  }

  deregister(name: string): void {
    const entry = this.tools.get(name);
    if (!entry) return;
    this.tools.delete(name);
    if (!this.getToolNamesForToolset(entry.toolset).length) {
      this.toolsetChecks.delete(entry.toolset);
      for (const [alias, target] of this.aliases) if (target === entry.toolset) this.aliases.delete(alias);
    }
    this.generation += 1;
  }

  get(name: string): ToolEntry | undefined {
    return this.tools.get(name);
  }

  has(name: string): boolean {
    return this.tools.has(name);
  }

  getAllToolNames(): string[] {
    return [...this.tools.keys()].sort();
  }

  getRegisteredToolsetNames(): string[] {
    return [...new Set([...this.tools.values()].map((entry) => entry.toolset))].sort();
  }

  getToolNamesForToolset(toolset: string): string[] {
    return [...this.tools.values()]
      .filter((entry) => entry.toolset === toolset)
      .map((entry) => entry.name)
      .sort();
  }

  getToolsetForTool(name: string): string | undefined {
    return this.tools.get(name)?.toolset;
  }

  getEmoji(name: string, fallback = DEFAULT_TOOL_EMOJI): string {
    return this.tools.get(name)?.emoji || fallback;
  }

  registerToolsetAlias(alias: string, toolset: string): void {
    const previous = this.aliases.get(alias);
    if (previous && previous !== toolset) {
      this.logger.warn(`Toolset alias collision: '${alias}' (${previous}) overwritten by ${toolset}`);
    }
    this.aliases.set(alias, toolset);
    this.generation += 1;
  }

  getToolsetAlias(alias: string): string | undefined {
    return this.aliases.get(alias);
  }

  getAliases(): ReadonlyMap<string, string> {
    return this.aliases;
  }

  /** Adds a toolset at runtime (kept per registry, not in the static table). */
  createCustomToolset(name: string, definition: Omit<ToolsetDefinition, 'description'> & { description?: string }): void {
    this.customToolsets.set(name, { description: definition.description ?? '', ...definition });
    this.generation += 1;
  }

  getCustomToolset(name: string): ToolsetDefinition | undefined {
    return this.customToolsets.get(name);
  }

  getCustomToolsetNames(): string[] {
    return [...this.customToolsets.keys()];
  }

  /** Removes a toolset added at runtime (a plugin that failed half-way through loading). */
  removeCustomToolset(name: string): void {
    if (this.customToolsets.delete(name)) this.generation += 1;
    this.defaultToolsets.delete(name);
  }

  /**
   * Toolsets every session gets, whatever toolsets it enables, unless it disables them: an
   * enabled plugin's tools (enabling the plugin was the choice to use them).
   */
  includeByDefault(toolset: string): void {
    this.defaultToolsets.add(toolset);
    this.generation += 1;
  }

  getDefaultToolsets(): string[] {
    return [...this.defaultToolsets].sort();
  }

  /**
   * OpenAI-format definitions of the named tools that pass their `checkFn`, sorted by name.
   * Unknown names are skipped. A check that throws means "unavailable". Each check function
   * runs at most once per call, even when several tools share it.
   */
  async getDefinitions(names: Iterable<string>, context: CheckContext = {}): Promise<ToolDefinition[]> {
    const checks = new CheckCache(this.logger, context);
    const definitions: ToolDefinition[] = [];
    for (const name of [...new Set(names)].sort()) {
      const entry = this.tools.get(name);
      if (!entry) continue;
      if (entry.checkFn && !(await checks.passes(entry.checkFn))) continue;
      definitions.push({ type: 'function', function: { ...entry.schema, name: entry.name } });
    }
    return definitions;
  }

  /** True when at least one tool of the toolset has no check or a passing one. */
  async isToolsetAvailable(toolset: string, checks = new CheckCache(this.logger)): Promise<boolean> {
    for (const entry of this.tools.values()) {
      if (entry.toolset !== toolset) continue;
      if (!entry.checkFn || (await checks.passes(entry.checkFn))) return true;
    }
    return false;
  }

  /** `{toolset: available}` for every registered toolset. */
  async checkToolsetRequirements(context: CheckContext = {}): Promise<Record<string, boolean>> {
    const checks = new CheckCache(this.logger, context);
    const result: Record<string, boolean> = {};
    for (const toolset of this.getRegisteredToolsetNames()) result[toolset] = await this.isToolsetAvailable(toolset, checks);
    return result;
  }

  /**
   * Runs a tool. Never throws for tool problems: an unknown tool, invalid arguments or a handler
   * exception all come back as a JSON error string the model can read. Cancellation propagates.
   */
  async dispatch(name: string, args: Record<string, unknown>, context: ToolContext): Promise<string> {
    const entry = this.tools.get(name);
    if (!entry) return toolError(`Unknown tool: ${name}`);
    const parsed = entry.argumentsSchema.safeParse(coerceArguments(entry.schema.parameters, args));
    if (!parsed.success) {
      return toolError(`Invalid arguments for ${name}: ${argumentIssues(parsed.error)}`, { tool: name });
    }
    try {
      const result: unknown = await entry.handler(parsed.data, context);
      if (typeof result === 'string') return result;
      const resultType = describeType(result);
      return JSON.stringify({
        error: `Tool handler returned unsupported result type: ${resultType}`,
        error_type: 'tool_result_contract',
        tool: name,
        result_type: resultType,
      });
    } catch (error) {
      if (isCancellation(error, context.signal)) throw error;
      const err = error instanceof Error ? error : new Error(String(error));
      return toolError(`Tool execution failed: ${err.name}: ${err.message}`);
    }
  }
}

/** Runs each check function at most once (per instance); a throw counts as unavailable. */
export class CheckCache {
  private readonly results = new Map<CheckFn, Promise<string | undefined>>();

  constructor(
    private readonly logger: Logger = silentLogger,
    private readonly context: CheckContext = {},
  ) {}

  async passes(check: CheckFn): Promise<boolean> {
    return (await this.unavailableReason(check)) === undefined;
  }

  /** Why the check fails (undefined when it passes). */
  unavailableReason(check: CheckFn): Promise<string | undefined> {
    let result = this.results.get(check);
    if (!result) {
      result = this.run(check);
      this.results.set(check, result);
    }
    return result;
  }

  private async run(check: CheckFn): Promise<string | undefined> {
    try {
      const outcome = await check(this.context);
      if (outcome === true) return undefined;
      const reason = typeof outcome === 'string' && outcome ? outcome : 'its check failed';
      this.logger.debug({ check: check.name, reason }, 'tool unavailable');
      return reason;
    } catch (error) {
      this.logger.warn({ check: check.name, err: error }, 'check function raised; dependent tools are unavailable');
      return `its check raised: ${error instanceof Error ? error.message : String(error)}`;
    }
  }
}

function createEntry<Schema extends z.ZodObject>(options: RegisterOptions<Schema>): ToolEntry {
  if (!options.name || !/^[A-Za-z0-9_-]{1,64}$/.test(options.name)) {
    throw new Error(`Tool name '${options.name}' must be 1-64 letters, digits, '_' or '-'`);
  }
  if (!(options.schema instanceof z.ZodObject)) throw new Error(`Tool '${options.name}': schema must be a zod object`);
  const parameters = z.toJSONSchema(options.schema, { target: 'draft-7', io: 'input' }) as Record<string, unknown>;
  delete parameters.$schema;
  const schema: FunctionSchema = { name: options.name, description: options.description, parameters };
  return Object.freeze({
    name: options.name,
    toolset: options.toolset,
    schema,
    argumentsSchema: options.schema,
    handler: options.handler as ToolEntry['handler'],
    checkFn: options.checkFn,
    requiresEnv: Object.freeze([...(options.requiresEnv ?? [])]),
    isAsync: options.isAsync ?? true,
    description: options.description,
    emoji: options.emoji ?? '',
    maxResultChars: options.maxResultChars,
    concurrency: (options.concurrency as ToolEntry['concurrency'] | undefined) ?? (() => ({ mode: 'exclusive' })),
    retrySafe: options.retrySafe ?? false,
    retrySafeFor: options.retrySafeFor,
    changesWorkspace: options.changesWorkspace,
    patchSchema: options.patchSchema,
    runsInWorkflow: options.runsInWorkflow ?? false,
    assess: options.assess,
  });
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'object') return value.constructor?.name ?? 'object';
  return typeof value;
}

/** The process-wide registry that tool modules register into (the one allowed singleton). */
export const registry = new ToolRegistry();

/** Declares a tool in the process-wide registry. Call it at the top level of a module in src/tools/. */
export function register<Schema extends z.ZodObject>(options: RegisterOptions<Schema>): ToolEntry {
  return registry.register(options);
}
