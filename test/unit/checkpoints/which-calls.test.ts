// Which calls get a checkpoint of the workspace before them: those that may change it. A command
// the detector parses as only reading does not; any other command, a file write or a script does.
import '../../../src/tools/terminal';
import '../../../src/tools/read-file';
import '../../../src/tools/write-file';
import '../../../src/tools/patch';
import '../../../src/tools/execute-code';
import '../../../src/tools/process';
import '../../../src/tools/memory';
import { loadCommandClassifier } from '../../../src/approval-signals/classify-command';
import { registry } from '../../../src/registry/registry';
import { mayChangeWorkspace } from '../../../src/registry/tool-entry';

beforeAll(() => loadCommandClassifier());

const changes = (tool: string, args: Record<string, unknown>) => mayChangeWorkspace(registry.get(tool), args);

test('commands that only read take no checkpoint; every other command does', () => {
  for (const command of ['ls -la', 'git status && git log -3', 'grep -rn TODO src | head']) expect(changes('terminal', { command })).toBe(false);
  for (const command of ['python3 tools/tidy.py', 'mv src build && rm -rf build', 'echo x > notes.txt', 'ls $(rm -rf x)']) expect(changes('terminal', { command })).toBe(true);
  // In the background even a read is not judged: it runs alongside what follows.
  expect(changes('terminal', { command: 'ls', background: true })).toBe(true);
});

test('file writes, scripts and process input take one; reads and memory do not', () => {
  expect(changes('write_file', { path: 'a.txt', content: 'x' })).toBe(true);
  expect(changes('patch', { path: 'a.txt', old_string: 'x', new_string: 'y' })).toBe(true);
  expect(changes('execute_code', { code: 'print(1)' })).toBe(true);
  expect(changes('process', { action: 'submit', session_id: 'p1', data: 'rm -rf src' })).toBe(true);
  expect(changes('process', { action: 'poll', session_id: 'p1' })).toBe(false);
  expect(changes('read_file', { path: 'a.txt' })).toBe(false);
  expect(changes('memory', { action: 'add', target: 'memory', content: 'note' })).toBe(false);
});
