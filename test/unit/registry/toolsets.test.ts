// Toolset resolution and the disabled-toolset semantics of the definitions the model sees, ported
// from the vectors of hermes-runtime.md §12.3 (tests/test_toolsets.py, tests/test_model_tools.py).
//
// Vectors deliberately not ported (they do not apply to this project):
// - `get_all_toolsets()` returning a dict of definitions: this project has `getToolsetNames()` +
//   `getToolset()`; the "plugin_bundle" vector is ported against those two instead.
// - plugin platform bundles (`hermes-<platform>` resolved through `platform_registry` when no static
//   entry exists): there is no plugin platform registry here.
// - the once-per-name INFO advisory when a `hermes-*` preset is disabled: not part of our SPEC.
// - `_expand_parent_toolsets` / `_strip_blocked_tools` (test_delegate_*): they belong to the
//   delegate_task tool, which lives outside src/registry.
// - execute_code / discord / browser_navigate schema patches (§2.1 steps 5–7): those tools do not
//   exist yet; the generic patch mechanism is tested in registry.test.ts (stand-in tool + terminal).
// - quiet-mode memoisation of get_tool_definitions and the HERMES_KANBAN_TASK auto-include: not in
//   this project's getToolDefinitions.
import { getToolDefinitions, selectToolNames } from '../../../src/registry/definitions';
import { discoverBuiltinTools } from '../../../src/registry/discovery';
import { registry as processRegistry, ToolRegistry } from '../../../src/registry/registry';
import { CORE_TOOLS, LEGACY_TOOLSETS, TOOLSETS, WEBHOOK_SAFE_TOOLS } from '../../../src/registry/toolset-table';
import {
  bundleNonCoreTools,
  getToolset,
  getToolsetInfo,
  getToolsetNames,
  isPresetOrPosture,
  resolveMultipleToolsets,
  resolveToolset,
  validateToolset,
} from '../../../src/registry/toolsets';
import { captureLogger, namesOf, registerStandIns, registerStaticUniverse } from './support';

let registry: ToolRegistry;
beforeEach(() => {
  registry = new ToolRegistry();
});

const sorted = (values: Iterable<string>) => [...values].sort();

describe('static toolset table', () => {
  it.each(Object.entries(TOOLSETS))('toolset %s has a description, a tool list and an include list', (_name, definition) => {
    expect(typeof definition.description).toBe('string');
    expect(Array.isArray(definition.tools)).toBe(true);
    expect(Array.isArray(definition.includes)).toBe(true);
  });

  it.each(Object.entries(TOOLSETS).filter(([, definition]) => definition.includes.length > 0))(
    'every toolset included by %s exists',
    (_name, definition) => {
      for (const included of definition.includes) expect(Object.keys(TOOLSETS)).toContain(included);
    },
  );

  const corePlatforms = [
    'hermes-cli', 'hermes-cron', 'hermes-telegram', 'hermes-whatsapp', 'hermes-slack', 'hermes-signal',
    'hermes-bluebubbles', 'hermes-homeassistant', 'hermes-email', 'hermes-mattermost', 'hermes-matrix',
    'hermes-dingtalk', 'hermes-weixin', 'hermes-qqbot', 'hermes-wecom', 'hermes-wecom-callback', 'hermes-sms',
  ];
  it.each(corePlatforms)('platform preset %s is exactly the core tools', (preset) => {
    expect(sorted(resolveToolset(preset, { registry }))).toEqual(sorted(new Set(CORE_TOOLS)));
  });

  it.each([
    ['hermes-discord', ['discord', 'discord_admin']],
    ['hermes-feishu', ['feishu_doc_read', 'feishu_drive_list_comments', 'feishu_drive_list_comment_replies', 'feishu_drive_reply_comment', 'feishu_drive_add_comment']],
    ['hermes-yuanbao', ['yb_query_group_info', 'yb_query_group_members', 'yb_send_dm', 'yb_search_sticker', 'yb_send_sticker']],
  ])('platform preset %s is the core tools plus its own tools', (preset, extra) => {
    expect(resolveToolset(preset, { registry })).toEqual(sorted(new Set([...CORE_TOOLS, ...extra])));
  });

  it('the webhook preset offers only the four webhook-safe tools (no files, no terminal)', () => {
    expect(resolveToolset('hermes-webhook', { registry })).toEqual(sorted(WEBHOOK_SAFE_TOOLS));
    expect(sorted(WEBHOOK_SAFE_TOOLS)).toEqual(['clarify', 'vision_analyze', 'web_extract', 'web_search']);
  });

  it('the core shared by the main messaging presets has more than 20 tools and is part of each of them', () => {
    const presets = ['hermes-cli', 'hermes-telegram', 'hermes-discord', 'hermes-whatsapp', 'hermes-slack', 'hermes-signal', 'hermes-homeassistant'];
    const resolved = presets.map((preset) => new Set(resolveToolset(preset, { registry })));
    const common = [...resolved[0]!].filter((tool) => resolved.every((tools) => tools.has(tool)));
    expect(common.length).toBeGreaterThan(20);
    for (const tools of resolved) for (const tool of common) expect(tools.has(tool)).toBe(true);
  });

  it.each(['hermes-whatsapp', 'hermes-api-server'])('%s offers web_search', (preset) => {
    expect(resolveToolset(preset, { registry })).toContain('web_search');
  });

  it('hermes-gateway includes every messaging preset', () => {
    const info = getToolsetInfo('hermes-gateway', { registry })!;
    expect(info.isComposite).toBe(true);
    expect(info.includes).toHaveLength(19);
    expect(info.resolvedTools).toEqual(expect.arrayContaining(['discord', 'yb_send_dm', 'feishu_doc_read', 'terminal']));
  });
});

describe('getToolset', () => {
  it('returns the static tools of a known toolset', () => {
    expect(getToolset('web', { registry })?.tools).toContain('web_search');
  });

  it('merges tools registered under a static toolset name into its tool list, sorted', () => {
    registerStandIns(registry, 'web', ['web_search_plus']);
    expect(getToolset('web', { registry })?.tools).toEqual(['web_extract', 'web_search', 'web_search_plus']);
  });

  it('returns nothing for an unknown toolset', () => {
    expect(getToolset('nonexistent', { registry })).toBeUndefined();
  });

  it('describes a registry-only toolset as a plugin toolset', () => {
    registerStandIns(registry, 'plugin_bundle', ['plugin_tool']);
    expect(getToolset('plugin_bundle', { registry })).toEqual({
      description: 'Plugin toolset: plugin_bundle',
      tools: ['plugin_tool'],
      includes: [],
    });
    expect(getToolsetNames({ registry })).toContain('plugin_bundle');
  });

  it('with includeRegistry false, returns a copy of the static definition only', () => {
    registerStandIns(registry, 'delegation', ['delegate_extra']);
    const copy = getToolset('delegation', { registry, includeRegistry: false })!;
    expect(copy.tools).toEqual(['delegate_task']);
    (copy.tools as string[]).push('mutated');
    expect(TOOLSETS.delegation!.tools).toEqual(['delegate_task']);
  });

  it('with includeRegistry false, a registry-only toolset does not exist', () => {
    registerStandIns(registry, 'plugin_bundle', ['plugin_tool']);
    expect(getToolset('plugin_bundle', { registry, includeRegistry: false })).toBeUndefined();
    expect(getToolsetNames({ registry, includeRegistry: false })).not.toContain('plugin_bundle');
  });
});

describe('resolveToolset', () => {
  it.each([
    ['web', ['web_extract', 'web_search']],
    ['search', ['web_search']],
    ['terminal', ['process', 'terminal']],
    ['nonexistent', []],
    ['context_engine', []],
  ])('resolves %s to exactly %j', (name, tools) => {
    expect(resolveToolset(name, { registry })).toEqual(tools);
  });

  it.each([
    ['debugging', ['terminal', 'process', 'web_search', 'web_extract', 'read_file', 'write_file', 'patch', 'search_files']],
    ['safe', ['web_search', 'web_extract', 'vision_analyze', 'image_generate']],
  ])('expands the composite toolset %s through its includes', (name, tools) => {
    const resolved = resolveToolset(name, { registry });
    expect(resolved).toEqual(expect.arrayContaining(tools));
    expect(resolved).toEqual(sorted(new Set(resolved)));
  });

  it('terminates on an include cycle and returns the tools of both toolsets', () => {
    registry.createCustomToolset('_cycle_a', { tools: ['t1'], includes: ['_cycle_b'] });
    registry.createCustomToolset('_cycle_b', { tools: ['t2'], includes: ['_cycle_a'] });
    expect(resolveToolset('_cycle_a', { registry })).toEqual(['t1', 't2']);
    expect(resolveToolset('_cycle_b', { registry })).toEqual(['t1', 't2']);
  });

  it('terminates on a toolset that includes itself', () => {
    registry.createCustomToolset('_selfish', { tools: ['t1'], includes: ['_selfish'] });
    expect(resolveToolset('_selfish', { registry })).toEqual(['t1']);
  });

  it('resolves a diamond (two includes sharing a toolset) without duplicates', () => {
    registry.createCustomToolset('_top', { tools: [], includes: ['_left', '_right'] });
    registry.createCustomToolset('_left', { tools: ['l'], includes: ['_base'] });
    registry.createCustomToolset('_right', { tools: ['r'], includes: ['_base'] });
    registry.createCustomToolset('_base', { tools: ['b'], includes: [] });
    expect(resolveToolset('_top', { registry })).toEqual(['b', 'l', 'r']);
  });

  it('sorts the tools of a registry-only (plugin) toolset', () => {
    registerStandIns(registry, 'plugin_example', ['plugin_b', 'plugin_a']);
    expect(resolveToolset('plugin_example', { registry })).toEqual(['plugin_a', 'plugin_b']);
  });

  it('resolves a toolset that exists only because a tool registered into it', () => {
    registerStandIns(registry, 'test-live-toolset', ['test_live_toolset_tool']);
    expect(validateToolset('test-live-toolset', { registry })).toBe(true);
    expect(getToolset('test-live-toolset', { registry })?.tools).toEqual(['test_live_toolset_tool']);
    expect(resolveToolset('test-live-toolset', { registry })).toEqual(['test_live_toolset_tool']);
  });

  it.each(['all', '*'])('%s resolves to every tool of every toolset, registry-only toolsets included', (name) => {
    registerStandIns(registry, 'plugin_example', ['plugin_a']);
    const all = resolveToolset(name, { registry });
    expect(all.length).toBeGreaterThan(10);
    expect(all).toEqual(expect.arrayContaining(['plugin_a', 'terminal', 'web_search', 'discord', 'yb_send_dm']));
    expect(all).toEqual(sorted(new Set(all)));
  });

  it("'all' and '*' are the same set", () => {
    expect(resolveToolset('*', { registry })).toEqual(resolveToolset('all', { registry }));
  });

  it('with includeRegistry false, ignores tools registered under a static toolset', () => {
    registerStandIns(registry, 'terminal', ['read_terminal']);
    expect(resolveToolset('terminal', { registry, includeRegistry: false })).toEqual(['process', 'terminal']);
    expect(resolveToolset('terminal', { registry })).toEqual(['process', 'read_terminal', 'terminal']);
  });

  it('with includeRegistry false, still expands static includes', () => {
    expect(resolveToolset('debugging', { registry, includeRegistry: false })).toEqual(
      expect.arrayContaining(['terminal', 'process', 'web_search', 'read_file']),
    );
  });

  it("with includeRegistry false, 'all' is a subset of 'all' with the registry", () => {
    registerStandIns(registry, 'plugin_example', ['plugin_a']);
    const withRegistry = new Set(resolveToolset('all', { registry }));
    const staticOnly = resolveToolset('all', { registry, includeRegistry: false });
    for (const tool of staticOnly) expect(withRegistry.has(tool)).toBe(true);
    expect(staticOnly).not.toContain('plugin_a');
  });

  it('with includeRegistry false, an unknown toolset resolves to nothing', () => {
    expect(resolveToolset('__definitely_not_a_real_toolset__', { registry, includeRegistry: false })).toEqual([]);
  });

  it('after built-in discovery, the static view of terminal is still terminal + process', () => {
    discoverBuiltinTools();
    expect(processRegistry.has('terminal')).toBe(true);
    expect(resolveToolset('terminal', { includeRegistry: false })).toEqual(['process', 'terminal']);
    expect(resolveToolset('terminal')).toEqual(expect.arrayContaining(['process', 'terminal']));
  });
});

describe('resolveMultipleToolsets', () => {
  it('returns the sorted union without duplicates', () => {
    const tools = resolveMultipleToolsets(['web', 'terminal', 'search'], { registry });
    expect(tools).toEqual(['process', 'terminal', 'web_extract', 'web_search']);
  });

  it('returns nothing for no toolsets', () => {
    expect(resolveMultipleToolsets([], { registry })).toEqual([]);
  });
});

describe('validateToolset', () => {
  it.each([
    ['web', true],
    ['terminal', true],
    ['hermes-cli', true],
    ['all', true],
    ['*', true],
    ['nonexistent', false],
    ['web_tools', false], // legacy names are not toolsets; they are consulted only when validation fails
    ['', false],
  ])('validateToolset(%j) is %s', (name, valid) => {
    expect(validateToolset(name, { registry })).toBe(valid);
  });

  it('accepts a toolset created at runtime, only in the registry that created it', () => {
    registry.createCustomToolset('_test_custom', { description: 'custom', tools: ['web_search'], includes: ['terminal'] });
    expect(validateToolset('_test_custom', { registry })).toBe(true);
    expect(resolveToolset('_test_custom', { registry })).toEqual(expect.arrayContaining(['web_search', 'terminal', 'process']));
    expect(validateToolset('_test_custom', { registry: new ToolRegistry() })).toBe(false);
  });
});

describe('MCP-like toolsets and aliases', () => {
  beforeEach(() => {
    registerStandIns(registry, 'mcp-dynserver', ['mcp__dynserver__ping', 'mcp__dynserver__echo']);
    registry.registerToolsetAlias('dynserver', 'mcp-dynserver');
  });

  it.each(['dynserver', 'mcp-dynserver'])('%s is a valid toolset', (name) => {
    expect(validateToolset(name, { registry })).toBe(true);
  });

  it.each(['dynserver', 'mcp-dynserver'])('%s resolves to the server tools', (name) => {
    expect(resolveToolset(name, { registry })).toEqual(['mcp__dynserver__echo', 'mcp__dynserver__ping']);
  });

  it.each(['dynserver', 'mcp-dynserver'])('%s is described as the MCP server tools', (name) => {
    expect(getToolset(name, { registry })?.description).toBe("MCP server 'dynserver' tools");
  });

  it('lists the alias among the toolset names', () => {
    expect(getToolsetNames({ registry })).toEqual(expect.arrayContaining(['dynserver', 'mcp-dynserver']));
  });

  it('can be enabled by its alias for the model', async () => {
    expect(namesOf(await getToolDefinitions(['dynserver'], undefined, { registry }))).toEqual([
      'mcp__dynserver__echo',
      'mcp__dynserver__ping',
    ]);
  });

  it('warns when an alias is pointed at another toolset, and the new target wins', () => {
    const { logger, warnings } = captureLogger();
    registry.setLogger(logger);
    registerStandIns(registry, 'mcp-other', ['mcp__other__pong']);
    registry.registerToolsetAlias('dynserver', 'mcp-other');
    expect(warnings()).toEqual(["Toolset alias collision: 'dynserver' (mcp-dynserver) overwritten by mcp-other"]);
    expect(resolveToolset('dynserver', { registry })).toEqual(['mcp__other__pong']);
  });

  it('drops the alias when the last tool of its toolset is deregistered', () => {
    registry.deregister('mcp__dynserver__ping');
    expect(validateToolset('dynserver', { registry })).toBe(true);
    registry.deregister('mcp__dynserver__echo');
    expect(validateToolset('dynserver', { registry })).toBe(false);
    expect(validateToolset('mcp-dynserver', { registry })).toBe(false);
  });
});

describe('getToolsetInfo', () => {
  it('describes a leaf toolset', () => {
    expect(getToolsetInfo('web', { registry })).toEqual({
      name: 'web',
      description: TOOLSETS.web!.description,
      directTools: ['web_extract', 'web_search'],
      includes: [],
      resolvedTools: ['web_extract', 'web_search'],
      toolCount: 2,
      isComposite: false,
    });
  });

  it('describes a composite toolset, whose resolved tools outnumber its direct tools', () => {
    const info = getToolsetInfo('debugging', { registry })!;
    expect(info.isComposite).toBe(true);
    expect(info.includes).toEqual(['web', 'file']);
    expect(info.toolCount).toBe(info.resolvedTools.length);
    expect(info.toolCount).toBeGreaterThan(info.directTools.length);
  });

  it('returns nothing for an unknown toolset', () => {
    expect(getToolsetInfo('nonexistent', { registry })).toBeUndefined();
  });
});

describe('bundleNonCoreTools and presets/postures', () => {
  const core = new Set(CORE_TOOLS);

  it.each([
    ['hermes-yuanbao', ['yb_query_group_info', 'yb_query_group_members', 'yb_search_sticker', 'yb_send_dm', 'yb_send_sticker']],
    ['hermes-discord', ['discord', 'discord_admin']],
    ['hermes-cli', []],
    ['hermes-telegram', []],
    ['coding', []],
    ['hermes-does-not-exist', []],
    ['hermes-acp', []],
    ['web', []],
    ['video_gen', ['video_generate', 'xai_video_edit', 'xai_video_extend']],
  ])('the non-core tools of %s are %j', (name, tools) => {
    const delta = bundleNonCoreTools(name, { registry });
    expect(sorted(delta)).toEqual(tools);
    for (const tool of delta) expect(core.has(tool)).toBe(false);
  });

  it('looks one level into includes (hermes-gateway yields the messaging extras, never core tools)', () => {
    expect(sorted(bundleNonCoreTools('hermes-gateway', { registry }))).toEqual(
      sorted([
        'discord', 'discord_admin', 'feishu_doc_read', 'feishu_drive_list_comments', 'feishu_drive_list_comment_replies',
        'feishu_drive_reply_comment', 'feishu_drive_add_comment', 'yb_query_group_info', 'yb_query_group_members',
        'yb_send_dm', 'yb_search_sticker', 'yb_send_sticker',
      ]),
    );
  });

  it('counts tools registered into a preset-named toolset', () => {
    registerStandIns(registry, 'hermes-acp', ['acp_only_tool']);
    expect(sorted(bundleNonCoreTools('hermes-acp', { registry }))).toEqual(['acp_only_tool']);
  });

  it.each([
    ['hermes-cli', true],
    ['hermes-anything', true],
    ['coding', true],
    ['web', false],
    ['debugging', false],
    ['terminal', false],
  ])('isPresetOrPosture(%j) is %s', (name, expected) => {
    expect(isPresetOrPosture(name, { registry })).toBe(expected);
  });
});

describe('which tools the model sees for enabled/disabled toolsets', () => {
  beforeEach(() => registerStaticUniverse(registry));

  const definitionNames = async (enabled?: string[], disabled?: string[]) =>
    namesOf(await getToolDefinitions(enabled, disabled, { registry }));

  it('disabling a preset the enabled preset does not overlap changes nothing (hermes-telegram minus hermes-yuanbao)', async () => {
    expect(await definitionNames(['hermes-telegram'], ['hermes-yuanbao'])).toEqual(await definitionNames(['hermes-telegram']));
  });

  it('disabling hermes-discord while it is enabled removes discord tools but keeps the core tools', async () => {
    const names = await definitionNames(['hermes-discord'], ['hermes-discord']);
    expect(names).not.toContain('discord');
    expect(names).not.toContain('discord_admin');
    expect(names).toEqual(sorted(new Set(CORE_TOOLS)));
  });

  it('disabling web removes web_search and web_extract from hermes-telegram', async () => {
    const names = await definitionNames(['hermes-telegram'], ['web']);
    expect(names).not.toContain('web_search');
    expect(names).not.toContain('web_extract');
    expect(names).toContain('terminal');
  });

  it('disabling the coding posture keeps the core tools it lists', async () => {
    const names = await definitionNames(undefined, ['coding']);
    expect(names).toEqual(expect.arrayContaining(['terminal', 'read_file', 'write_file', 'web_search', 'execute_code']));
  });

  it('disabling the plain terminal toolset removes terminal', async () => {
    const names = await definitionNames(undefined, ['terminal']);
    expect(names).not.toContain('terminal');
    expect(names).not.toContain('process');
    expect(names).toContain('read_file');
  });

  it('disabling hermes-gateway removes the messaging extras and keeps every core tool', async () => {
    const names = new Set(await definitionNames(undefined, ['hermes-gateway']));
    for (const tool of ['discord', 'discord_admin', 'yb_send_dm', 'feishu_doc_read']) expect(names.has(tool)).toBe(false);
    for (const tool of CORE_TOOLS) expect(names.has(tool)).toBe(true);
  });

  it('with no enabled toolsets, starts from every toolset (registry-only ones too)', async () => {
    registerStandIns(registry, 'plugin_example', ['plugin_a']);
    expect(await definitionNames()).toEqual(registry.getAllToolNames());
  });

  it('with only disabled toolsets, starts from every toolset and subtracts those', async () => {
    const names = await definitionNames(undefined, ['web', 'discord']);
    expect(names).toEqual(registry.getAllToolNames().filter((tool) => !['web_search', 'web_extract', 'discord'].includes(tool)));
  });

  it('subtraction wins over a later toolset that lists the same tool (browser lists web_search)', async () => {
    const names = await definitionNames(['browser', 'web'], ['search']);
    expect(names).not.toContain('web_search');
    expect(names).toContain('web_extract');
    expect(names).toContain('browser_navigate');
  });

  it('an empty enabled list selects nothing', async () => {
    expect(await definitionNames([])).toEqual([]);
  });

  it('the result is sorted by tool name', async () => {
    const names = await definitionNames(['hermes-cli']);
    expect(names).toEqual(sorted(names));
  });

  it.each(Object.entries(LEGACY_TOOLSETS))('the legacy name %s enables %j', async (legacy, tools) => {
    expect(await definitionNames([legacy])).toEqual(sorted(tools));
  });

  it.each([
    ['terminal_tools', ['terminal'], ['process']],
    ['web_tools', ['web_search', 'web_extract'], ['terminal']],
  ])('the legacy name %s can be disabled, removing %j and keeping %j', async (legacy, removed, kept) => {
    const names = await definitionNames(['hermes-cli'], [legacy]);
    for (const tool of removed) expect(names).not.toContain(tool);
    for (const tool of kept) expect(names).toContain(tool);
  });

  it('an unknown enabled or disabled toolset is skipped with a warning', () => {
    const { logger, warnings } = captureLogger();
    const names = selectToolNames(['web', 'no_such_toolset'], ['also_unknown'], { registry, logger });
    expect(sorted(names)).toEqual(['web_extract', 'web_search']);
    expect(warnings()).toEqual(['Unknown toolset: no_such_toolset', 'Unknown toolset: also_unknown']);
  });

  it('a tool whose check fails is selected but not shown to the model', async () => {
    registerStandIns(registry, 'gated', ['gated_tool'], { checkFn: () => false });
    registry.createCustomToolset('_with_gated', { tools: ['gated_tool', 'web_search'], includes: [] });
    expect(sorted(selectToolNames(['_with_gated'], undefined, { registry }))).toEqual(['gated_tool', 'web_search']);
    expect(await definitionNames(['_with_gated'])).toEqual(['web_search']);
  });

  it('names listed by a toolset but registered nowhere are left out', async () => {
    const fresh = new ToolRegistry();
    registerStandIns(fresh, 'web', ['web_search']);
    expect(namesOf(await getToolDefinitions(['web'], undefined, { registry: fresh }))).toEqual(['web_search']);
  });
});
