// What `hermes-temporal run` prints while a session runs: human lines with tool emoji, or one
// JSON event per line for programs (`--json`).
import { createEventPrinter, type CliEvent } from '../../../src/cli/output';

const events: CliEvent[] = [
  { type: 'session_started', sessionId: 'sess-1', workflowId: 'agent-sess-1', uiUrl: 'http://localhost:8233/ns/default/workflows/agent-sess-1' },
  { type: 'tool_started', index: 0, turn: 1, callId: 'c1', name: 'terminal', summary: 'ls -la' },
  { type: 'tool_finished', index: 1, turn: 1, callId: 'c1', name: 'terminal', summary: 'ls -la', ok: true, preview: 'total 8', durationMs: 1234 },
  { type: 'tool_started', index: 2, turn: 2, callId: 'c2', name: 'read_file', summary: 'missing.txt' },
  { type: 'tool_finished', index: 3, turn: 2, callId: 'c2', name: 'read_file', summary: 'missing.txt', ok: false, preview: 'File not found', durationMs: 40 },
  { type: 'final', status: 'completed', answer: 'The directory has 2 files.', turns: 3, toolCalls: 2 },
];

function capture(options: { json: boolean; color?: boolean; emojiFor?: (tool: string) => string }) {
  const lines: string[] = [];
  const printer = createEventPrinter({ ...options, write: (line) => lines.push(line) });
  return { lines, printer };
}

describe('JSON mode', () => {
  it('prints one JSON object per event, with its type and without the internal index', () => {
    const { lines, printer } = capture({ json: true });
    for (const event of events) printer.print(event);
    expect(lines).toHaveLength(events.length);
    const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(parsed.map((event) => event.type)).toEqual(events.map((event) => event.type));
    for (const [index, event] of parsed.entries()) {
      expect(lines[index]).not.toContain('\n');
      expect(event).not.toHaveProperty('index');
    }
    expect(parsed[2]).toEqual({
      type: 'tool_finished',
      turn: 1,
      callId: 'c1',
      name: 'terminal',
      summary: 'ls -la',
      ok: true,
      preview: 'total 8',
      durationMs: 1234,
    });
    expect(parsed[5]).toEqual(events[5]);
  });

  it('keeps human notes off stdout so it carries only events', () => {
    const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const { lines, printer } = capture({ json: true });
      printer.note('Starting a dev server...');
      expect(lines).toEqual([]);
      expect(stderr).toHaveBeenCalledWith('Starting a dev server...\n');
    } finally {
      stderr.mockRestore();
    }
  });
});

describe('human mode', () => {
  const emojiFor = (tool: string) => ({ terminal: '💻', read_file: '📖' })[tool] ?? '⚡';

  it('shows the session, each tool with its emoji, ✓ or ✗ when it ends, and the answer', () => {
    const { lines, printer } = capture({ json: false, color: false, emojiFor });
    for (const event of events) printer.print(event);
    expect(lines).toEqual([
      '▶ Session sess-1 (workflow agent-sess-1)',
      '  Web UI: http://localhost:8233/ns/default/workflows/agent-sess-1',
      '  💻 ls -la',
      '  ✓ terminal 1.2s → total 8',
      '  📖 missing.txt',
      '  ✗ read_file 0.0s → File not found',
      '✔ completed after 3 turns and 2 tool calls',
      '\nThe directory has 2 files.',
    ]);
  });

  it('uses the default emoji for a tool it knows nothing about', () => {
    const { lines, printer } = capture({ json: false, color: false });
    printer.print({ type: 'tool_started', index: 0, turn: 1, callId: 'c', name: 'mystery', summary: 'doing things' });
    expect(lines).toEqual(['  ⚡ doing things']);
  });

  it('shows why a session did not complete', () => {
    const { lines, printer } = capture({ json: false, color: false });
    printer.print({ type: 'final', status: 'failed', answer: '', reason: 'Model API returned HTTP 401' });
    expect(lines).toEqual(['✘ failed', '  Model API returned HTTP 401']);
  });

  it('prints no escape codes without colour and colours the marks with it', () => {
    const plain = capture({ json: false, color: false });
    const coloured = capture({ json: false, color: true });
    for (const event of events) {
      plain.printer.print(event);
      coloured.printer.print(event);
    }
    expect(plain.lines.join('\n')).not.toContain('\x1b[');
    expect(coloured.lines.find((line) => line.includes('terminal'))).toContain('\x1b[32m✓\x1b[0m');
    expect(coloured.lines.find((line) => line.includes('read_file'))).toContain('\x1b[31m✗\x1b[0m');
  });

  it('prints notes as plain lines', () => {
    const { lines, printer } = capture({ json: false, color: false });
    printer.note('Connecting to localhost:7233');
    expect(lines).toEqual(['Connecting to localhost:7233']);
  });
});
