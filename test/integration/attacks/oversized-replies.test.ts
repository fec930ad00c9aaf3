// The model's reply itself is the attack: tool names and call ids of megabytes, arguments too
// large together for one turn, two calls under one id. The reply is kept whole in the store;
// the session must go on, each call getting a result of its own, with a history that stays small.
import { historyText, type Harness } from '../../helpers/session-harness';
import { resultsOf, runAttack, terminal, type AttackWorld, setUpAttacks } from '../../helpers/attack-world';

let harness: Harness;
let world: AttackWorld;
setUpAttacks((connected) => (harness = connected), (created) => (world = created));

jest.setTimeout(120_000);

const MEGABYTE = 1024 * 1024;

test('tool names and call ids of a megabyte each are answered and kept in the store, not copied into history', async () => {
  const hugeName = 'x'.repeat(MEGABYTE);
  const hugeId = 'i'.repeat(MEGABYTE);
  const run = await runAttack(harness, world, () => ({
    turns: [
      // Together far past Temporal's 2 MB payload limit: before, the model call failed the session.
      { tool_calls: [{ name: hugeName }, { name: `${hugeName}y` }, { name: 'todo', id: hugeId, arguments: { todos: [{ id: '1', content: 'plan', status: 'pending' }] } }] },
      { tool_calls: [terminal('echo alive')] },
      { content: 'done' },
    ],
  }));
  expect(run.result).toMatchObject({ status: 'completed', toolCalls: 4 });
  const [unknown, unknownToo, todo, alive] = await resultsOf(run);
  expect(String(unknown?.error)).toMatch(/^Unknown tool: x{10,}… \(a name of 1048576 characters\)$/);
  expect(String(unknownToo?.error)).toMatch(/^Unknown tool: x+… \(a name of 1048577 characters\)$/);
  expect(todo).toMatchObject({ summary: { total: 1 } });
  expect(alive).toMatchObject({ output: 'alive', exit_code: 0 });
  // Nothing lost: the reply is stored as the model sent it, with an id of ours for the oversized one.
  const reply = (await run.store.getMessages(run.sessionId)).find((message) => message.toolCalls?.length === 3);
  expect(reply?.toolCalls?.map((call) => call.name.length)).toEqual([MEGABYTE, MEGABYTE + 1, 4]);
  expect(reply?.toolCalls?.[2]?.id).toMatch(/^call_\d+_2$/);
  expect(historyText(await run.handle.fetchHistory()).length).toBeLessThan(200_000);
});

test('arguments too large together for one turn: the first calls run, the rest are answered "not run", the session goes on', async () => {
  // Each todo call is under the per-call bound; twelve of them are ~3 MB.
  const bigTodo = (index: number) => ({ name: 'todo', arguments: { todos: [{ id: String(index), content: `${index}`.padEnd(250_000, '.'), status: 'pending' }] } });
  const run = await runAttack(harness, world, () => ({
    turns: [{ tool_calls: Array.from({ length: 12 }, (_, index) => bigTodo(index)) }, { tool_calls: [terminal('echo alive')] }, { content: 'done' }],
  }));
  expect(run.result).toMatchObject({ status: 'completed', toolCalls: 13 });
  const results = await resultsOf(run);
  expect(results).toHaveLength(13);
  const ran = results.slice(0, 12).filter((result) => result.summary !== undefined);
  const refused = results.slice(0, 12).filter((result) => String(result.error).startsWith('Not run: this reply'));
  // In order: a prefix ran, every later call was answered.
  expect(ran.length).toBeGreaterThanOrEqual(2);
  expect(ran.length + refused.length).toBe(12);
  expect(results.slice(0, ran.length)).toEqual(ran);
  expect(results[12]).toMatchObject({ output: 'alive', exit_code: 0 });
});

test('two calls under one id both run with their own arguments, and both results are kept', async () => {
  const run = await runAttack(harness, world, () => ({
    turns: [{ tool_calls: [terminal('echo first', {}), terminal('echo second', {})].map((call) => ({ ...call, id: 'same' })) }, { content: 'done' }],
  }));
  expect(run.result).toMatchObject({ status: 'completed', toolCalls: 2 });
  const results = await resultsOf(run);
  expect(results.map((result) => result.output)).toEqual(['first', 'second']);
  const reply = (await run.store.getMessages(run.sessionId)).find((message) => message.toolCalls?.length === 2);
  const ids = reply?.toolCalls?.map((call) => call.id) ?? [];
  expect(ids[0]).toBe('same');
  expect(new Set(ids).size).toBe(2);
});

test('a command of 3 MB gets a clear error, and a harmless one of 90 KB runs with its assessment in history as its start and digest', async () => {
  // Before, the assessment of either (which held its text) passed Temporal's 2 MB payload limit and failed the session.
  const line = `${'z'.repeat(99)}\n`;
  const heredoc = (lines: number) => terminal(`cat > big.txt <<'EOF'\n${line.repeat(lines)}EOF\nwc -c < big.txt`);
  const run = await runAttack(harness, world, () => ({
    turns: [{ tool_calls: [heredoc(30_000), heredoc(900)] }, { tool_calls: [terminal('echo alive')] }, { content: 'done' }],
  }));
  expect(run.result).toMatchObject({ status: 'completed', toolCalls: 3 });
  const [refused, written, alive] = await resultsOf(run);
  expect(String(refused?.error)).toMatch(/a command runs at most 100000 characters: write a longer script to a file with write_file/);
  expect(written).toMatchObject({ output: '90000', exit_code: 0 });
  expect(alive).toMatchObject({ output: 'alive', exit_code: 0 });
  const history = historyText(await run.handle.fetchHistory());
  // The command's first 4,096 characters and its digest; the whole (90 KB) is in the store only.
  expect(history).toMatch(/…#sha256:[0-9a-f]{64}/);
  expect(history.length).toBeLessThan(100_000);
});

test('a command under the limit that quoting makes too long for the kernel is not started, and the model is told why', async () => {
  // 90,005 characters; each quote takes four once quoted for bash, past the kernel's 128 KiB for one argument.
  const quotes = `echo ${"'x'".repeat(30_000)} > quotes-ran`;
  const run = await runAttack(harness, world, () => ({ turns: [{ tool_calls: [terminal(quotes), terminal('echo alive')] }, { content: 'done' }] }));
  expect(run.result).toMatchObject({ status: 'completed', toolCalls: 2 });
  const [refused, alive] = await resultsOf(run);
  expect(refused).toMatchObject({ exit_code: 126, output: expect.stringMatching(/^The command was not started: quoted for the shell it is \d+ bytes/) });
  expect(alive).toMatchObject({ output: 'alive', exit_code: 0 });
});
