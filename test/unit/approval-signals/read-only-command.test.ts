// Which terminal calls of one turn may run side by side: the detector's parse decides whether a
// command only reads, and session.parallel_terminal widens or narrows that.
import '../../../src/tools/terminal';
import { loadCommandClassifier } from '../../../src/approval-signals/classify-command';
import { isReadOnlyCommand } from '../../../src/approval-signals/read-only-command';
import { registry } from '../../../src/registry/registry';
import { DEFAULT_TOOL_SETTINGS, type ToolSettings } from '../../../src/registry/tool-entry';

beforeAll(() => loadCommandClassifier());

test.each([
  'ls',
  'ls -la src',
  'ls "src dir"',
  "cat 'notes with spaces.txt'",
  'seq $((2*8))',
  'grep -rn TODO src | head -20',
  'wc -l < notes.txt',
  'git status && git log --oneline -5',
  'find . -name "*.ts"',
  'ls missing 2>/dev/null || echo none',
  // A lower-case variable is the shell's own: no program takes its orders from one.
  'for f in src/*; do wc -l "$f"; done',
  'dir=src; ls "$dir"',
])('%s only reads', (command) => {
  expect(isReadOnlyCommand(command)).toBe(true);
});

test.each([
  'rm -rf build',
  'echo hi > notes.txt',
  'cat a | tee b',
  'ls $(rm -rf x)',
  'sleep 5 &',
  'sudo ls',
  'git commit -m x',
  'find . -delete',
  'find . -exec rm {} \\;',
  'git log -p --output=changes.patch',
  'git diff --output changes.patch',
  // What an option makes them run is a command of its own (`rg --pre rm x .` deletes what it searches).
  'rg --pre rm -l x .',
  'rg --pre=cat x src',
  'rg --hostname-bin ./name.sh x',
  'xargs cat',
  // An upper-case name set earlier in the text reaches the reading program's environment.
  'export GIT_EXTERNAL_DIFF=./differ; git diff',
  'set -a; GIT_EXTERNAL_DIFF=./differ; git diff',
  'PATH=.:$PATH; cat notes.txt',
  'printf -v LD_PRELOAD %s ./hook.so; cat notes.txt',
  'read GIT_PAGER < pager.txt; git log',
  '$PROGRAM list',
  'f() { ls; }; f',
  'mytool --list',
  'ls "unterminated',
  '',
])('%s is not read-only', (command) => {
  expect(isReadOnlyCommand(command)).toBe(false);
});

function settings(parallel: 'read_only' | 'always' | 'never'): ToolSettings {
  return { terminal: { ...DEFAULT_TOOL_SETTINGS.terminal, parallel } };
}

const BESIDE = { mode: 'path', path: '/', access: 'read' };
const ALONE = { mode: 'exclusive' };

test('parallel_terminal: read_only (default) lets reads run side by side, anything else alone', () => {
  const terminal = registry.get('terminal')!;
  expect(terminal.concurrency({ command: 'ls "src dir"' })).toEqual(BESIDE);
  expect(terminal.concurrency({ command: 'make build' }, settings('read_only'))).toEqual(ALONE);
});

test('parallel_terminal: always lets every foreground command run side by side; never runs each alone', () => {
  const terminal = registry.get('terminal')!;
  expect(terminal.concurrency({ command: 'make build' }, settings('always'))).toEqual(BESIDE);
  expect(terminal.concurrency({ command: 'make build', background: true }, settings('always'))).toEqual(ALONE);
  expect(terminal.concurrency({ command: 'ls' }, settings('never'))).toEqual(ALONE);
});
