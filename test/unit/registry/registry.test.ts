// The tool registry: registration, queries, availability checks, dispatch and its error strings,
// handleFunctionCall's second error layer, and dynamic schema patching.
//
// Vectors of tests/tools/test_registry.py deliberately not ported:
// - plugin ownership of deregistration (PermissionError, opt-in, deregister-then-register bypass):
//   this project has no plugin modules or ownership model yet.
// - the multimodal envelope (`{_multimodal: true, content: [...]}`) passing through dispatch:
//   handlers here return strings only, so anything else is a result-contract error.
// - the process-wide 30 s TTL / 60 s failure-grace check cache: our SPEC caches check results per
//   call only (tested below: a second call runs the check again).
import { CancelledFailure } from '@temporalio/common';
import { z } from 'zod';
import { definitionsForTools, getToolDefinitions } from '../../../src/registry/definitions';
import { discoverBuiltinTools } from '../../../src/registry/discovery';
import {
  handleFunctionCall,
  INVALID_ARGUMENTS_RESULT,
  parseToolArguments,
} from '../../../src/registry/handle-function-call';
import { registry as processRegistry, ToolRegistry } from '../../../src/registry/registry';
import type { FunctionSchema } from '../../../src/registry/tool-entry';
import { createToolContext } from '../../helpers/tool-context';
import { captureLogger, LOG_LEVEL, namesOf, registerStandIns } from './support';

let registry: ToolRegistry;
beforeEach(() => {
  registry = new ToolRegistry();
});

const context = createToolContext();
const error = (message: string) => JSON.stringify({ error: message });

/** A tool that answers with the arguments it received. */
function registerEcho(target: ToolRegistry, name = 'echo', toolset = 'testing') {
  const handler = jest.fn((args: Record<string, unknown>) => JSON.stringify(args));
  target.register({
    name,
    toolset,
    description: 'Echo the arguments',
    schema: z.object({
      text: z.string().optional(),
      count: z.number().int().optional(),
      ratio: z.number().optional(),
      flag: z.boolean().optional(),
      tags: z.array(z.string()).optional(),
      options: z.object({ deep: z.boolean() }).optional(),
      note: z.string().nullable().optional(),
      limit: z.number().int().nullable().optional(),
    }),
    handler,
  });
  return handler;
}

/** A tool whose handler is `handler`. */
function registerTool(target: ToolRegistry, name: string, handler: () => unknown, toolset = 'testing') {
  target.register({ name, toolset, description: name, schema: z.object({}), handler: handler as () => string });
}

describe('register', () => {
  it('stores the tool under its name and toolset', () => {
    registerEcho(registry);
    expect(registry.has('echo')).toBe(true);
    expect(registry.getToolsetForTool('echo')).toBe('testing');
    expect(registry.get('echo')?.description).toBe('Echo the arguments');
  });

  it('derives the model-facing JSON schema from the zod schema', () => {
    registerEcho(registry);
    const parameters = registry.get('echo')!.schema.parameters;
    expect(parameters).toMatchObject({
      type: 'object',
      properties: { text: { type: 'string' }, count: { type: 'integer' }, flag: { type: 'boolean' }, tags: { type: 'array' } },
    });
    expect(parameters).not.toHaveProperty('$schema');
  });

  it('a tool registered again by another toolset replaces the first, with a warning naming both toolsets', async () => {
    const { logger, records } = captureLogger();
    registry.setLogger(logger);
    registerTool(registry, 'search', () => 'from builtin', 'web');
    registerTool(registry, 'search', () => 'from plugin', 'my-plugin');

    const warnings = records.filter((record) => record.level === LOG_LEVEL.warn);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({
      msg: "Tool 'search' registered by toolset 'my-plugin' replaces the one from toolset 'web'",
      tool: 'search',
      previousToolset: 'web',
      toolset: 'my-plugin',
    });
    expect(registry.getToolsetForTool('search')).toBe('my-plugin');
    expect(registry.getToolNamesForToolset('web')).toEqual([]);
    expect(await registry.dispatch('search', {}, context)).toBe('from plugin');
  });

  it('re-registering a tool in the same toolset replaces it silently', async () => {
    const { logger, records } = captureLogger();
    registry.setLogger(logger);
    registerTool(registry, 'search', () => 'v1', 'web');
    registerTool(registry, 'search', () => 'v2', 'web');
    expect(records.filter((record) => record.level >= LOG_LEVEL.warn)).toEqual([]);
    expect(await registry.dispatch('search', {}, context)).toBe('v2');
  });

  it.each(['', 'has space', 'dots.not.allowed', 'x'.repeat(65)])('rejects the invalid tool name %j', (name) => {
    expect(() => registerTool(registry, name, () => '')).toThrow(/must be 1-64 letters/);
  });

  it('rejects a schema that is not a zod object', () => {
    expect(() =>
      registry.register({ name: 'bad', toolset: 't', description: '', schema: {} as z.ZodObject, handler: () => '' }),
    ).toThrow("Tool 'bad': schema must be a zod object");
  });

  it('defaults: async, not retry-safe, exclusive concurrency, no emoji', () => {
    const entry = registry.register({ name: 'plain', toolset: 't', description: 'd', schema: z.object({}), handler: () => '' });
    expect(entry).toMatchObject({ isAsync: true, retrySafe: false, emoji: '', requiresEnv: [] });
    expect(entry.concurrency({})).toEqual({ mode: 'exclusive' });
  });

  it('every change bumps the generation, so derived caches can notice', () => {
    const seen = [registry.generation];
    registerTool(registry, 'a', () => '');
    seen.push(registry.generation);
    registry.registerToolsetAlias('alias', 'testing');
    seen.push(registry.generation);
    registry.createCustomToolset('custom', { tools: [], includes: [] });
    seen.push(registry.generation);
    registry.deregister('a');
    seen.push(registry.generation);
    expect(new Set(seen).size).toBe(seen.length);
  });
});

describe('deregister', () => {
  it('removes the tool', async () => {
    registerTool(registry, 'gone', () => 'x');
    registry.deregister('gone');
    expect(registry.has('gone')).toBe(false);
    expect(await registry.dispatch('gone', {}, context)).toBe(error('Unknown tool: gone'));
  });

  it('an unknown name is a no-op', () => {
    registerTool(registry, 'kept', () => 'x');
    const generation = registry.generation;
    registry.deregister('never-registered');
    expect(registry.getAllToolNames()).toEqual(['kept']);
    expect(registry.generation).toBe(generation);
  });

  it('removing the last tool of a toolset drops the toolset and the aliases pointing at it', () => {
    registerStandIns(registry, 'mcp-srv', ['mcp__srv__a', 'mcp__srv__b']);
    registry.registerToolsetAlias('srv', 'mcp-srv');
    registry.deregister('mcp__srv__a');
    expect(registry.getToolsetAlias('srv')).toBe('mcp-srv');
    registry.deregister('mcp__srv__b');
    expect(registry.getToolsetAlias('srv')).toBeUndefined();
    expect(registry.getRegisteredToolsetNames()).toEqual([]);
  });
});

describe('name queries', () => {
  beforeEach(() => {
    registerStandIns(registry, 'zeta', ['zz_tool', 'aa_tool']);
    registerStandIns(registry, 'alpha', ['mm_tool', 'bb_tool']);
  });

  it.each([
    ['getAllToolNames', () => registry.getAllToolNames(), ['aa_tool', 'bb_tool', 'mm_tool', 'zz_tool']],
    ['getRegisteredToolsetNames', () => registry.getRegisteredToolsetNames(), ['alpha', 'zeta']],
    ['getToolNamesForToolset(zeta)', () => registry.getToolNamesForToolset('zeta'), ['aa_tool', 'zz_tool']],
    ['getToolNamesForToolset(none)', () => registry.getToolNamesForToolset('none'), []],
  ])('%s is sorted', (_query, run, expected) => {
    expect(run()).toEqual(expected);
  });

  it('getToolsetForTool of an unknown tool is undefined', () => {
    expect(registry.getToolsetForTool('nope')).toBeUndefined();
  });
});

describe('getEmoji', () => {
  beforeEach(() => {
    registry.register({ name: 'with_emoji', toolset: 't', description: '', schema: z.object({}), emoji: '🔍', handler: () => '' });
    registry.register({ name: 'empty_emoji', toolset: 't', description: '', schema: z.object({}), emoji: '', handler: () => '' });
    registry.register({ name: 'no_emoji', toolset: 't', description: '', schema: z.object({}), handler: () => '' });
  });

  it.each([
    ['with_emoji', undefined, '🔍'],
    ['empty_emoji', undefined, '⚡'],
    ['no_emoji', undefined, '⚡'],
    ['unknown_tool', undefined, '⚡'],
    ['with_emoji', '🛠', '🔍'],
    ['no_emoji', '🛠', '🛠'],
    ['unknown_tool', '🛠', '🛠'],
  ])('getEmoji(%j, default %j) is %j', (name, fallback, expected) => {
    expect(fallback === undefined ? registry.getEmoji(name) : registry.getEmoji(name, fallback)).toBe(expected);
  });
});

describe('getDefinitions', () => {
  it('returns OpenAI function definitions sorted by name, with the registered name', async () => {
    registerStandIns(registry, 't', ['charlie', 'alpha', 'bravo']);
    const definitions = await registry.getDefinitions(['charlie', 'alpha', 'bravo']);
    expect(namesOf(definitions)).toEqual(['alpha', 'bravo', 'charlie']);
    expect(definitions[0]).toEqual({
      type: 'function',
      function: { name: 'alpha', description: 'Stand-in for alpha', parameters: registry.get('alpha')!.schema.parameters },
    });
  });

  it('skips unknown names and lists a repeated name once', async () => {
    registerStandIns(registry, 't', ['known']);
    expect(namesOf(await registry.getDefinitions(['ghost', 'known', 'known']))).toEqual(['known']);
  });

  it.each([
    ['returns true', () => true, true],
    ['returns false', () => false, false],
    ['resolves true', async () => true, true],
    ['resolves false', async () => false, false],
    ['throws', () => { throw new Error('no API key'); }, false],
    ['rejects', async () => { throw new Error('service unreachable'); }, false],
  ])('a tool whose check %s is %s', async (_label, checkFn, shown) => {
    registerStandIns(registry, 't', ['gated'], { checkFn });
    registerStandIns(registry, 't', ['open']);
    expect(namesOf(await registry.getDefinitions(['gated', 'open']))).toEqual(shown ? ['gated', 'open'] : ['open']);
  });

  it('a check shared by several tools runs once per call, and again on the next call', async () => {
    const check = jest.fn(() => true);
    registerStandIns(registry, 'shared', ['one', 'two', 'three'], { checkFn: check });
    expect(namesOf(await registry.getDefinitions(['one', 'two', 'three']))).toEqual(['one', 'three', 'two']);
    expect(check).toHaveBeenCalledTimes(1);
    await registry.getDefinitions(['one', 'two']);
    expect(check).toHaveBeenCalledTimes(2);
  });

  it('a check that throws is logged as a warning and its tools are left out', async () => {
    const { logger, warnings } = captureLogger();
    registry.setLogger(logger);
    registerStandIns(registry, 't', ['flaky'], { checkFn: () => { throw new Error('boom'); } });
    expect(await registry.getDefinitions(['flaky'])).toEqual([]);
    expect(warnings()).toEqual(['check function raised; dependent tools are unavailable']);
  });
});

describe('toolset availability', () => {
  beforeEach(() => {
    registerStandIns(registry, 'open', ['open_tool']);
    registerStandIns(registry, 'failing', ['failing_tool'], { checkFn: () => false });
    registerStandIns(registry, 'throwing', ['throwing_tool'], { checkFn: () => { throw new Error('x'); } });
    registerStandIns(registry, 'passing', ['passing_tool'], { checkFn: async () => true });
    registerStandIns(registry, 'mixed', ['mixed_gated'], { checkFn: () => false });
    registerStandIns(registry, 'mixed', ['mixed_open']);
    registerStandIns(registry, 'all_gated', ['gated_a'], { checkFn: () => false });
    registerStandIns(registry, 'all_gated', ['gated_b'], { checkFn: () => false });
  });

  it.each([
    ['open', 'has no check', true],
    ['failing', 'has a failing check', false],
    ['throwing', 'has a throwing check', false],
    ['passing', 'has a passing check', true],
    ['mixed', 'has one gated and one ungated tool', true],
    ['all_gated', 'has only failing tools', false],
    ['unknown', 'does not exist', false],
  ])('toolset %s (which %s) is available: %s', async (toolset, _why, available) => {
    expect(await registry.isToolsetAvailable(toolset)).toBe(available);
  });

  it('checkToolsetRequirements answers for every registered toolset', async () => {
    expect(await registry.checkToolsetRequirements()).toEqual({
      all_gated: false,
      failing: false,
      mixed: true,
      open: true,
      passing: true,
      throwing: false,
    });
  });

  it('checkToolsetRequirements runs a check shared across toolsets once', async () => {
    const fresh = new ToolRegistry();
    const check = jest.fn(() => true);
    registerStandIns(fresh, 'first', ['f1'], { checkFn: check });
    registerStandIns(fresh, 'second', ['s1'], { checkFn: check });
    expect(await fresh.checkToolsetRequirements()).toEqual({ first: true, second: true });
    expect(check).toHaveBeenCalledTimes(1);
  });
});

describe('dispatch', () => {
  it('returns the handler result and passes it the arguments and the context', async () => {
    const handler = jest.fn((args: { text?: string }, ctx: { taskId: string }) => JSON.stringify({ ok: true, text: args.text, task: ctx.taskId }));
    registry.register({ name: 'greet', toolset: 't', description: '', schema: z.object({ text: z.string() }), handler });
    const result = await registry.dispatch('greet', { text: 'hi' }, context);
    expect(JSON.parse(result)).toEqual({ ok: true, text: 'hi', task: 't' });
    expect(handler).toHaveBeenCalledWith({ text: 'hi' }, context);
  });

  it.each([
    ['an integer from a numeric string', { count: '5' }, { count: 5 }],
    ['a number from a decimal string', { ratio: '2.5' }, { ratio: 2.5 }],
    ['a boolean from "true"', { flag: 'true' }, { flag: true }],
    ['a boolean from "FALSE" (case-insensitive)', { flag: 'FALSE' }, { flag: false }],
    ['an array from a JSON-string array', { tags: '["a","b"]' }, { tags: ['a', 'b'] }],
    ['an array from a bare value', { tags: 'solo' }, { tags: ['solo'] }],
    ['an object from a JSON-string object', { options: '{"deep":true}' }, { options: { deep: true } }],
    ['null from "null" for a nullable number', { limit: 'null' }, { limit: null }],
    ['a number for a nullable number', { limit: '10' }, { limit: 10 }],
    ['nothing for a nullable string, where "null" is a valid string', { note: 'null' }, { note: 'null' }],
    ['values already of the right type, unchanged', { count: 3, flag: false, tags: ['x'] }, { count: 3, flag: false, tags: ['x'] }],
    ['a string that looks like a number, for a string field', { text: '42' }, { text: '42' }],
  ])('coerces %s before validation', async (_label, args, expected) => {
    const handler = registerEcho(registry);
    expect(JSON.parse(await registry.dispatch('echo', args, context))).toEqual(expected);
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it.each([
    ['a non-numeric string for an integer', { count: 'five' }, 'count'],
    ['a decimal for an integer', { count: '2.5' }, 'count'],
    ['a word for a boolean', { flag: 'yes' }, 'flag'],
    ['a number for a string', { text: 7 }, 'text'],
    ['an object with a wrong nested field', { options: { deep: 'very' } }, 'options.deep'],
  ])('rejects %s with a JSON error naming the field, without running the tool', async (_label, args, field) => {
    const handler = registerEcho(registry);
    const result = JSON.parse(await registry.dispatch('echo', args, context)) as { error: string; tool: string };
    expect(result.error).toMatch(new RegExp(`^Invalid arguments for echo: ${field.replace('.', '\\.')}: `));
    expect(result.tool).toBe('echo');
    expect(handler).not.toHaveBeenCalled();
  });

  it('names every missing required field', async () => {
    registry.register({
      name: 'needs_two',
      toolset: 't',
      description: '',
      schema: z.object({ path: z.string(), content: z.string() }),
      handler: () => 'ran',
    });
    const result = JSON.parse(await registry.dispatch('needs_two', {}, context)) as { error: string };
    expect(result.error).toBe('Invalid arguments for needs_two: path: expected string, received undefined; content: expected string, received undefined');
  });

  it('an unknown tool gives exactly {"error": "Unknown tool: <name>"}', async () => {
    expect(await registry.dispatch('foo', {}, context)).toBe('{"error":"Unknown tool: foo"}');
  });

  it.each([
    ['a TypeError', () => { throw new TypeError("Cannot read properties of undefined (reading 'x')"); }, "Tool execution failed: TypeError: Cannot read properties of undefined (reading 'x')"],
    ['a RuntimeError-like custom error', () => { throw Object.assign(new Error('boom'), { name: 'RuntimeError' }); }, 'Tool execution failed: RuntimeError: boom'],
    ['a rejected promise', async () => { throw new RangeError('too far'); }, 'Tool execution failed: RangeError: too far'],
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- a careless handler may throw a non-Error
    ['a thrown string', () => { throw 'plain string'; }, 'Tool execution failed: Error: plain string'],
  ])('a handler throwing %s becomes exactly the tool-execution error string', async (_label, handler, message) => {
    registerTool(registry, 'explodes', handler);
    expect(await registry.dispatch('explodes', {}, context)).toBe(JSON.stringify({ error: message }));
  });

  it.each([
    ['undefined', undefined, 'undefined'],
    ['null', null, 'null'],
    ['a number', 42, 'number'],
    ['a plain object', { ok: true }, 'Object'],
    ['an array', ['a'], 'array'],
    ['a Map', new Map(), 'Map'],
    ['a Buffer', Buffer.from('x'), 'Buffer'],
  ])('a handler returning %s gets the tool_result_contract error', async (_label, value, resultType) => {
    registerTool(registry, 'wrong_type', () => value);
    expect(JSON.parse(await registry.dispatch('wrong_type', {}, context))).toEqual({
      error: `Tool handler returned unsupported result type: ${resultType}`,
      error_type: 'tool_result_contract',
      tool: 'wrong_type',
      result_type: resultType,
    });
  });

  it('an empty string is a valid result', async () => {
    registerTool(registry, 'quiet', () => '');
    expect(await registry.dispatch('quiet', {}, context)).toBe('');
  });

  it('a Temporal cancellation thrown by the handler propagates instead of becoming a tool error', async () => {
    registerTool(registry, 'cancelled', () => { throw new CancelledFailure('cancelled'); });
    await expect(registry.dispatch('cancelled', {}, context)).rejects.toBeInstanceOf(CancelledFailure);
  });

  it.each([
    ['an Error reason', () => new Error('activity cancelled')],
    ['the default DOMException reason', undefined],
    ['a string reason', () => 'worker shutting down'],
  ])('a handler rethrowing the abort reason of a cancelled call (%s) propagates', async (_label, makeReason) => {
    const controller = new AbortController();
    controller.abort(makeReason?.());
    const reason: unknown = controller.signal.reason;
    registerTool(registry, 'aborted', () => { throw reason; });
    const cancelledContext = createToolContext(undefined, { signal: controller.signal });
    await expect(registry.dispatch('aborted', {}, cancelledContext)).rejects.toBe(reason);
    await expect(handleFunctionCall('aborted', '{}', cancelledContext, registry)).rejects.toBe(reason);
  });

  it('an AbortError from a call that was not cancelled is reported as a tool failure', async () => {
    registerTool(registry, 'timed_out', () => { throw Object.assign(new Error('The operation was aborted'), { name: 'AbortError' }); });
    expect(await registry.dispatch('timed_out', {}, context)).toBe(
      JSON.stringify({ error: 'Tool execution failed: AbortError: The operation was aborted' }),
    );
  });
});

describe('handleFunctionCall', () => {
  it.each([
    ['a JSON object', '{"text":"hi"}', { text: 'hi' }],
    ['an empty string (no arguments)', '', {}],
    ['whitespace only', '   \n', {}],
    ['no argument text at all', undefined, {}],
  ])('runs the tool for %s', async (_label, text, args) => {
    const handler = registerEcho(registry);
    expect(JSON.parse(await handleFunctionCall('echo', text, context, registry))).toEqual(args);
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it.each([
    ['invalid JSON', '{"text": "hi"'],
    ['a JSON array', '[1, 2]'],
    ['a JSON string', '"text"'],
    ['a JSON number', '42'],
    ['JSON null', 'null'],
    ['plain words', 'please search for cats'],
  ])('refuses %s as arguments without running the tool', async (_label, text) => {
    const handler = registerEcho(registry);
    const result = await handleFunctionCall('echo', text, context, registry);
    expect(result).toBe('{"error":"Invalid tool arguments","message":"Tool arguments must be a valid JSON object; tool was not executed."}');
    expect(result).toBe(INVALID_ARGUMENTS_RESULT);
    expect(handler).not.toHaveBeenCalled();
  });

  it('refuses a tool the session workflow handles itself: it must be handled by the agent loop', async () => {
    const reached = jest.fn(() => 'the registry stub ran');
    registry.register({ name: 'plan_things', toolset: 'test', schema: z.object({}), description: 'x', runsInWorkflow: true, handler: reached });
    expect(await handleFunctionCall('plan_things', '{}', context, registry)).toBe(JSON.stringify({ error: 'plan_things must be handled by the agent loop' }));
    expect(reached).not.toHaveBeenCalled();
  });

  it('the workflow-handled built-ins are exactly todo and delegate_task (memory and session_search run in the registry)', () => {
    discoverBuiltinTools();
    const names = processRegistry.getAllToolNames().filter((name) => processRegistry.get(name)?.runsInWorkflow);
    expect(names.sort()).toEqual(['delegate_task', 'todo']);
  });

  it('names an unknown tool in the error', async () => {
    expect(await handleFunctionCall('totally_fake_tool_xyz', '{}', context, registry)).toBe(
      '{"error":"Unknown tool: totally_fake_tool_xyz"}',
    );
  });

  it('passes a handler failure through unchanged (one error layer, not two)', async () => {
    registerTool(registry, 'explodes', () => { throw new TypeError('bad thing'); });
    expect(await handleFunctionCall('explodes', '{}', context, registry)).toBe('{"error":"Tool execution failed: TypeError: bad thing"}');
  });

  it('turns a failure outside the handler into "Error executing <tool>: <message>"', async () => {
    registerEcho(registry);
    jest.spyOn(registry, 'dispatch').mockRejectedValueOnce(new Error('registry unavailable'));
    expect(await handleFunctionCall('echo', '{}', context, registry)).toBe('{"error":"Error executing echo: registry unavailable"}');
  });

  it('turns a throwing argument validator into "Error executing <tool>: <message>"', async () => {
    registry.register({
      name: 'strict',
      toolset: 't',
      description: '',
      schema: z.object({ value: z.string().refine(() => { throw new Error('validator crashed'); }) }),
      handler: () => 'ran',
    });
    expect(await handleFunctionCall('strict', '{"value":"x"}', context, registry)).toBe(
      '{"error":"Error executing strict: validator crashed"}',
    );
  });

  it('lets a Temporal cancellation propagate', async () => {
    registerTool(registry, 'cancelled', () => { throw new CancelledFailure('cancelled'); });
    await expect(handleFunctionCall('cancelled', '{}', context, registry)).rejects.toBeInstanceOf(CancelledFailure);
  });

  it.each([
    ['{"a":1}', { a: 1 }],
    ['', {}],
    [undefined, {}],
    ['[]', undefined],
    ['nope', undefined],
  ])('parseToolArguments(%j) is %j', (text, expected) => {
    expect(parseToolArguments(text)).toEqual(expected);
  });
});

describe('dynamic schema patching', () => {
  const MENTIONED = ['alpha', 'beta', 'gamma'];

  /** A tool whose description lists the other tools it can call, rebuilt for what is available. */
  function registerOrchestrator(target: ToolRegistry, patch = jest.fn((schema: FunctionSchema, available: ReadonlySet<string>) => ({
    ...schema,
    description: `Can call: ${MENTIONED.filter((tool) => available.has(tool)).join(', ') || 'nothing'}`,
  }))) {
    target.register({
      name: 'orchestrator',
      toolset: 'orchestration',
      description: `Can call: ${MENTIONED.join(', ')}`,
      schema: z.object({}),
      handler: () => '',
      patchSchema: patch,
    });
    return patch;
  }

  beforeEach(() => {
    registerStandIns(registry, 'greek', ['alpha']);
    registerStandIns(registry, 'greek', ['beta'], { checkFn: () => false });
    registerStandIns(registry, 'greek', ['gamma']);
  });

  it('mentions only tools that are selected and pass their checks', async () => {
    const patch = registerOrchestrator(registry);
    const definitions = await definitionsForTools(['orchestrator', 'alpha', 'beta'], { registry });
    expect(namesOf(definitions)).toEqual(['alpha', 'orchestrator']);
    expect(definitions[1]!.function.description).toBe('Can call: alpha');
    expect(patch).toHaveBeenCalledWith(expect.objectContaining({ name: 'orchestrator' }), new Set(['alpha', 'orchestrator']), {});
  });

  it('is applied through getToolDefinitions for the resolved toolsets', async () => {
    registerOrchestrator(registry);
    const definitions = await getToolDefinitions(['orchestration', 'greek'], undefined, { registry });
    expect(definitions.find((definition) => definition.function.name === 'orchestrator')?.function.description).toBe(
      'Can call: alpha, gamma',
    );
    const alone = await getToolDefinitions(['orchestration'], undefined, { registry });
    expect(alone[0]!.function.description).toBe('Can call: nothing');
  });

  it('leaves the registered schema untouched', async () => {
    registerOrchestrator(registry);
    await definitionsForTools(['orchestrator'], { registry });
    expect(registry.get('orchestrator')!.schema.description).toBe('Can call: alpha, beta, gamma');
  });

  it('is not called for a tool that was filtered out', async () => {
    const patch = registerOrchestrator(registry);
    await definitionsForTools(['alpha', 'gamma'], { registry });
    expect(patch).not.toHaveBeenCalled();
  });

  describe('the real terminal tool, after discovery', () => {
    beforeAll(() => {
      discoverBuiltinTools();
    });

    const terminalDescription = async (names: string[]) =>
      (await definitionsForTools(names, { registry: processRegistry })).find((definition) => definition.function.name === 'terminal')!
        .function.description;

    it('is registered, and its unpatched description mentions every file tool', () => {
      expect(processRegistry.has('terminal')).toBe(true);
      expect(processRegistry.get('terminal')!.schema.description).toContain('use read_file instead');
    });

    it('does not mention read_file when read_file is not selected', async () => {
      const description = await terminalDescription(['terminal']);
      expect(description).not.toContain('read_file');
      expect(description).toContain('Execute shell commands');
    });

    it('mentions read_file when read_file is selected, and not the file tools that are not', async () => {
      expect(processRegistry.has('read_file')).toBe(true);
      const description = await terminalDescription(['terminal', 'read_file']);
      expect(description).toContain('use read_file instead');
      expect(description).not.toContain('write_file');
    });

    it('getToolDefinitions with the terminal toolset alone hides the file-tool hints', async () => {
      const definitions = await getToolDefinitions(['terminal'], undefined, { registry: processRegistry });
      const terminal = definitions.find((definition) => definition.function.name === 'terminal');
      expect(terminal!.function.name).toBe('terminal');
      expect(terminal!.function.description).not.toMatch(/read_file|search_files|write_file|\bpatch\b/);
    });
  });
});
