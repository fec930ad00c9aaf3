// Discovery of built-in tool modules: only modules that call register(...) at top level are
// loaded; one that fails to load is logged and skipped; helpers are never required.
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BUILTIN_TOOLS_DIR, discoverBuiltinTools, registersAtTopLevel, type DiscoveryResult } from '../../../src/registry/discovery';
import { registry } from '../../../src/registry/registry';
import { loadLog } from '../../fixtures/discovery/load-log';
import { createToolContext } from '../../helpers/tool-context';
import { captureLogger, LOG_LEVEL, type LogRecord } from './support';

const FIXTURES = path.join(__dirname, '..', '..', 'fixtures', 'discovery');

describe('registersAtTopLevel', () => {
  it.each([
    ['a plain top-level call', `register({ name: 'x' });`],
    ['a call after imports', `import { register } from '../registry/registry';\n\nregister({\n  name: 'x',\n});\n`],
    ['a member call on the registry', `registry.register({ name: 'x' });`],
    ['the compiled form tsc emits', `(0, registry_1.register)({ name: 'x' });`],
    ['the compiled form with odd spacing', `( 0 , registry_1 . register ) ({});`],
    ['an exported entry', `export const entry = register({ name: 'x' });`],
    ['a void-ed call', `void register({});`],
    ['a call after a function that also registers', `function later() { register({}); }\nregister({});`],
    ['a call after a regex literal holding quotes', `const QUOTE = /['"]/g;\nregister({ name: 'x' });\n`],
    ['a call after a regex literal holding an unbalanced bracket', `const OPEN = /[(]/;\nregister({ name: 'x' });\n`],
    ['a call after a regex literal holding //', `const URL_RE = /https?:\\/\\//;\nregister({});\n`],
    ['a call after divisions', `const half = 10 / 2;\nconst q = (4 + 2) / 3;\nregister({});\n`],
    ['a call after a template literal with an expression', 'const s = `a ${`b`} c`;\nregister({});'],
    ['a call after a string holding a brace', `const brace = '{';\nregister({});`],
    ['a call after a string holding an escaped quote', `const s = 'it\\'s {';\nregister({});`],
  ])('true for %s', (_label, source) => {
    expect(registersAtTopLevel(source)).toBe(true);
  });

  it.each([
    ['an empty module', ''],
    ['a call inside a function', `export function setup() {\n  register({ name: 'x' });\n}\n`],
    ['a call inside an arrow function body', `const setup = () => { register({}); };`],
    ['a call as an arrow function expression', `const later = () => register({});`],
    ['a call inside an async arrow function', `export const later = async () => register({});`],
    ['a call inside a class method', `class Installer { install() { register({}); } }`],
    ['a call inside a block', `{\n  register({});\n}`],
    ['a call inside an object literal', `const api = { go: register({}) };`],
    ['a call inside an argument list', `setTimeout(() => register({}), 0);`],
    ['a compiled call inside a function', `function f() { (0, registry_1.register)({}); }`],
    ['a function declaration named register', `export function register(options) { return options; }`],
    ['a method definition named register', `class Registry { register(options) {} }`],
    ['a line comment', `// register({ name: 'x' })`],
    ['a block comment', `/*\nregister({ name: 'x' });\n*/`],
    ['a double-quoted string', `const usage = "register({ name })";`],
    ['a single-quoted string', `const usage = 'register(';`],
    ['a template literal', 'const usage = `register(${1})`;'],
    ['a regex literal', `const RE = /register\\(/;`],
    ['another function whose name ends in register', `unregister({});\npreregister({});`],
    ['registerToolsetAlias', `registry.registerToolsetAlias('a', 'b');`],
    ['the bare word register', `export const register = 1;`],
  ])('false for %s', (_label, source) => {
    expect(registersAtTopLevel(source)).toBe(false);
  });
});

describe('discoverBuiltinTools on a fixture folder', () => {
  const toolsDir = path.join(FIXTURES, 'tools');
  const { logger, records } = captureLogger();
  let result: DiscoveryResult;

  beforeAll(() => {
    result = discoverBuiltinTools(toolsDir, logger);
  });

  it('loads exactly the modules with a top-level register call, in file order', () => {
    expect(result.loaded).toEqual(['beta-registers.ts', 'zeta-member-call.ts']);
    expect(loadLog).toEqual(['beta-registers', 'zeta-member-call']);
  });

  it('registers their tools into the process-wide registry', () => {
    expect(registry.getToolNamesForToolset('fixture-discovery')).toEqual(['fixture_discovery_beta', 'fixture_discovery_zeta']);
  });

  it('the discovered tools run', async () => {
    const context = createToolContext();
    expect(await registry.dispatch('fixture_discovery_beta', {}, context)).toBe('beta');
    expect(JSON.parse(await registry.dispatch('fixture_discovery_zeta', { text: `"a" 'b' (` }, context))).toEqual({
      quoted: 2,
      paren: true,
    });
  });

  it('skips a module that fails to load and reports it', () => {
    expect(result.failed).toEqual([{ module: 'alpha-broken.ts', error: "Cannot find module 'fancy-sdk'" }]);
    expect(registry.has('fixture_discovery_broken')).toBe(false);
  });

  it('logs the failed module as a warning', () => {
    const warnings = records.filter((record: LogRecord) => record.level === LOG_LEVEL.warn);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({
      module: 'alpha-broken.ts',
      msg: "Could not import tool module alpha-broken.ts: Cannot find module 'fancy-sdk'",
    });
  });

  it('never requires a module that registers only inside functions (it would throw)', () => {
    expect(result.failed.map((failure) => failure.module)).not.toContain('delta-register-in-function.ts');
    for (const name of ['fixture_discovery_delta', 'fixture_discovery_delta_arrow', 'fixture_discovery_delta_method']) {
      expect(registry.has(name)).toBe(false);
    }
  });

  it('never requires a module that mentions register only in comments and strings (it would throw)', () => {
    expect(result.failed.map((failure) => failure.module)).not.toContain('gamma-comment-and-string.ts');
    expect(registry.has('fixture_discovery_gamma')).toBe(false);
  });

  it('never requires a helper module without register', () => {
    expect(loadLog).not.toContain('epsilon-helper');
  });

  it('ignores test files and declaration files in the tools folder', () => {
    const attempted = [...result.loaded, ...result.failed.map((failure) => failure.module)];
    expect(attempted).not.toContain('eta.test.ts');
    expect(attempted).not.toContain('theta.d.ts');
    expect(registry.has('fixture_discovery_eta')).toBe(false);
  });
});

describe('discoverBuiltinTools on a compiled (.js) folder', () => {
  let dir: string;
  let result: DiscoveryResult;

  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'hermes-discovery-'));
    const templates = path.join(FIXTURES, 'compiled-js');
    const replacements: [string, string][] = [
      ['__REGISTRY__', path.resolve(__dirname, '..', '..', '..', 'src', 'registry', 'registry')],
      ['__ZOD__', require.resolve('zod')],
    ];
    for (const template of readdirSync(templates).filter((file) => file.endsWith('.js.txt'))) {
      let source = readFileSync(path.join(templates, template), 'utf8');
      for (const [placeholder, value] of replacements) source = source.split(placeholder).join(value);
      writeFileSync(path.join(dir, template.replace(/\.txt$/, '')), source);
    }
    // tsc --declaration output sits next to the .js files; it must not switch discovery to .ts.
    writeFileSync(path.join(dir, 'registers-compiled.d.ts'), 'export {};\n');
    copyFileSync(path.join(templates, 'README.md'), path.join(dir, 'README.md'));
    result = discoverBuiltinTools(dir);
  });

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('loads the module whose top-level call is the compiled (0, registry_1.register)(...) form', async () => {
    expect(result.loaded).toEqual(['registers-compiled.js']);
    expect(await registry.dispatch('fixture_discovery_compiled', {}, createToolContext())).toBe('compiled');
  });

  it('never requires a compiled helper whose register call is inside a function (it would throw)', () => {
    expect(result.failed).toEqual([]);
    expect(registry.has('fixture_discovery_compiled_later')).toBe(false);
  });
});

describe('discoverBuiltinTools on the real tools folder', () => {
  let result: DiscoveryResult;

  beforeAll(() => {
    result = discoverBuiltinTools();
  });

  it('looks in src/tools', () => {
    expect(BUILTIN_TOOLS_DIR).toBe(path.resolve(__dirname, '..', '..', '..', 'src', 'tools'));
  });

  it('registers the terminal tool in the terminal toolset', () => {
    expect(result.loaded).toContain('terminal.ts');
    expect(registry.getToolsetForTool('terminal')).toBe('terminal');
    expect(registry.getEmoji('terminal')).toBe('💻');
  });

  it('does not load the terminal helper module', () => {
    expect(result.loaded).not.toContain('terminal-output.ts');
  });

  it('every built-in module loads', () => {
    expect(result.failed).toEqual([]);
  });
});
