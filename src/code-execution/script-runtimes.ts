// The code that runs around a model's script inside the sandbox: it defines the tool functions,
// which ask the worker over stdout (a line starting with the record separator, \x1e) and read
// the answer from stdin, then runs the script. Printed text is everything else on stdout.
import { CODE_TOOL_PARAMETERS } from './callable-tools';

export type ScriptLanguage = 'javascript' | 'python';

/** Where the runtime finds the script and the callable tool names (environment variables). */
export const SOURCE_VARIABLE = 'HERMES_CODE_SOURCE';
export const TOOLS_VARIABLE = 'HERMES_CODE_TOOLS';
export const PRELUDE_VARIABLE = 'HERMES_CODE_PRELUDE';
export const REQUEST_MARK = '\u001e';

const PARAMETERS = JSON.stringify(CODE_TOOL_PARAMETERS);

const JAVASCRIPT_PRELUDE = String.raw`'use strict';
const readline = require('node:readline');
const parameters = ${PARAMETERS};
const allowed = JSON.parse(process.env.HERMES_CODE_TOOLS || '[]');
const source = process.env.HERMES_CODE_SOURCE || '';
delete process.env.HERMES_CODE_SOURCE; delete process.env.HERMES_CODE_TOOLS; delete process.env.HERMES_CODE_PRELUDE;
let nextId = 0;
const waiting = new Map();
const lines = readline.createInterface({ input: process.stdin });
lines.on('line', (line) => {
  let message; try { message = JSON.parse(line); } catch { return; }
  const resolve = waiting.get(message.id); if (resolve) { waiting.delete(message.id); resolve(message.result); }
});
const parse = (text) => { try { return JSON.parse(text); } catch { return text; } };
function callTool(name, ...rest) {
  let args = {};
  if (rest.length === 1 && rest[0] && typeof rest[0] === 'object' && !Array.isArray(rest[0])) args = rest[0];
  else (parameters[name] || []).forEach((parameter, index) => { if (rest[index] !== undefined) args[parameter] = rest[index]; });
  const id = nextId++;
  return new Promise((resolve) => { waiting.set(id, (result) => resolve(parse(result))); process.stdout.write('\u001e' + JSON.stringify({ id, name, args }) + '\n'); });
}
const tools = {};
for (const name of allowed) tools[name] = (...rest) => callTool(name, ...rest);
const finish = (code) => { lines.close(); process.stdin.destroy(); process.exitCode = code; };
const AsyncFunction = (async () => undefined).constructor;
let script;
try { script = new AsyncFunction('tools', 'require', ...allowed, source); } catch (error) { process.stderr.write(String(error && error.stack || error) + '\n'); finish(1); }
if (script) script(tools, require, ...allowed.map((name) => tools[name])).then(() => finish(0), (error) => { process.stderr.write(String(error && error.stack || error) + '\n'); finish(1); });
`;

const PYTHON_PRELUDE = String.raw`import json, os, shlex, sys, types
_parameters = json.loads(${JSON.stringify(PARAMETERS)})
_allowed = json.loads(os.environ.pop('HERMES_CODE_TOOLS', '[]'))
_source = os.environ.pop('HERMES_CODE_SOURCE', '')
os.environ.pop('HERMES_CODE_PRELUDE', None)
_next = [0]
_out = sys.stdout
def _call(name, *args, **kwargs):
    payload = dict(kwargs)
    names = _parameters.get(name, [])
    for index, value in enumerate(args):
        if index < len(names):
            payload[names[index]] = value
    _next[0] += 1
    ident = _next[0]
    _out.write('\x1e' + json.dumps({'id': ident, 'name': name, 'args': payload}) + '\n')
    _out.flush()
    while True:
        line = sys.stdin.readline()
        if not line:
            raise RuntimeError('the tool channel closed')
        message = json.loads(line)
        if message.get('id') == ident:
            break
    result = message.get('result')
    try:
        return json.loads(result)
    except Exception:
        return result
_module = types.ModuleType('hermes_tools')
for _name in _allowed:
    setattr(_module, _name, (lambda bound: lambda *a, **k: _call(bound, *a, **k))(_name))
_module.json_parse = lambda text: json.loads(text, strict=False)
_module.shell_quote = shlex.quote
sys.modules['hermes_tools'] = _module
exec(compile(_source, '<execute_code>', 'exec'), {'__name__': '__main__'})
`;

/** Shell text (run by the sandbox's bash) that starts the runtime, and what it reads from the environment. */
export function runtimeFor(language: ScriptLanguage, nodePath: string): { shell: string; prelude: string } {
  if (language === 'python') return { shell: `exec python3 -u -c "$${PRELUDE_VARIABLE}"`, prelude: PYTHON_PRELUDE };
  return { shell: `exec ${shellWord(nodePath)} -e "$${PRELUDE_VARIABLE}"`, prelude: JAVASCRIPT_PRELUDE };
}

function shellWord(text: string): string {
  return /^[\w./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}
