// Dynamic schema patching (SPEC §3 step 5) by toolset combinations: execute_code documents only
// the tools that survived filtering, and no definition names a tool the session cannot call.
import { executeCodeDescription } from '../../../src/code-execution/execute-code-schema';
import { getToolDefinitions } from '../../../src/registry/definitions';
import { discoverBuiltinTools } from '../../../src/registry/discovery';
import { registry } from '../../../src/registry/registry';

beforeAll(() => {
  discoverBuiltinTools();
});

const COMBINATIONS: string[][] = [
  ['code_execution'],
  ['code_execution', 'file'],
  ['code_execution', 'terminal'],
  ['code_execution', 'file', 'terminal'],
  ['code_execution', 'web'],
  ['code_execution', 'delegation', 'todo'],
  ['file', 'terminal'],
  ['delegation'],
  ['terminal', 'delegation'],
  ['hermes-cli'],
  ['coding'],
];

/** Tool names that read as names, not English words ("patch", "process" and "todo" do not). */
const distinctive = () => registry.getAllToolNames().filter((name) => name.includes('_') || name === 'terminal');
/** "the terminal" is English; `terminal(`, \`terminal\` and "terminal tool" name the tool. */
const mentionPattern = (name: string) => (name === 'terminal' ? /\bterminal\(|`terminal`|terminal tool/ : new RegExp(`\\b${name}\\b`));

describe.each(COMBINATIONS.map((combination) => [combination.join('+'), combination]))('toolsets %s', (_label, toolsets) => {
  it('no definition names a tool the session cannot call', async () => {
    const definitions = await getToolDefinitions(toolsets);
    const available = new Set(definitions.map((definition) => definition.function.name));
    for (const definition of definitions) {
      // delegate_task names tools its children may NOT call: a prohibition, not an offer.
      const text = JSON.stringify(definition.function)
        .replace(`"name":"${definition.function.name}"`, '')
        .replace(/CANNOT call: [^.]*\.|cannot use [^.]*\./g, '');
      const mentioned = distinctive().filter((name) => !available.has(name) && mentionPattern(name).test(text));
      expect({ tool: definition.function.name, mentions: mentioned }).toEqual({ tool: definition.function.name, mentions: [] });
    }
  });

  it('execute_code documents exactly the callable tools that survived', async () => {
    const definitions = await getToolDefinitions(toolsets);
    const available = new Set(definitions.map((definition) => definition.function.name));
    const executeCode = definitions.find((definition) => definition.function.name === 'execute_code');
    if (!available.has('execute_code')) return expect(executeCode).toBeUndefined();
    const documented = ['web_search', 'web_extract', 'read_file', 'write_file', 'search_files', 'patch', 'terminal'].filter((name) =>
      new RegExp(`^  ${name}\\(`, 'm').test(executeCode!.function.description),
    );
    expect(documented).toEqual(['read_file', 'write_file', 'search_files', 'patch', 'terminal'].filter((name) => available.has(name)));
  });
});

it('with no callable tools, execute_code says so instead of listing any', () => {
  const description = executeCodeDescription(new Set(['execute_code']));
  expect(description).toContain('(none: this session has no tools a script may call)');
  expect(description).not.toMatch(/^ {2}\w+\(/m);
});

it('a session on a backend scripts cannot run on never hears of execute_code', async () => {
  const onDocker = await registry.getDefinitions(['execute_code', 'read_file'], { backend: 'docker' });
  expect(onDocker.map((definition) => definition.function.name)).toEqual(['read_file']);
  const onLocal = await registry.getDefinitions(['execute_code'], { backend: 'local' });
  expect(onLocal.map((definition) => definition.function.name)).toEqual(['execute_code']);
});
