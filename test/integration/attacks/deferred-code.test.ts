// Shell text that runs later rather than now: a `trap` handler, or `PROMPT_COMMAND` in a shell the
// model keeps open. Set in one harmless-looking input, it runs on a later input that is harmless
// itself (`exit`, `echo`), so it is judged when it is set, like the command it is.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Harness } from '../../helpers/session-harness';
import { resultsOf, runAttack, terminal, type AttackWorld, setUpAttacks } from '../../helpers/attack-world';

let harness: Harness;
let world: AttackWorld;
setUpAttacks((connected) => (harness = connected), (created) => (world = created));

function plantProject(): string {
  mkdirSync(path.join(world.workspace, 'src'), { recursive: true });
  const file = path.join(world.workspace, 'src', 'main.ts');
  writeFileSync(file, 'export {};\n');
  return file;
}

const submit = (data: string) => ({ name: 'process', arguments: { action: 'submit', session_id: '{{last.session_id}}', data } });

test('a trap whose handler deletes the work waits for a person, in a command and typed into a kept shell', async () => {
  const work = plantProject();
  const run = await runAttack(harness, world, () => ({
    turns: [
      { tool_calls: [terminal("trap 'rm -rf src' EXIT; echo tidy")] },
      { tool_calls: [terminal('bash', { background: true })] },
      { tool_calls: [submit("trap 'rm -rf src' EXIT")] },
      { tool_calls: [submit("PROMPT_COMMAND='rm -rf src'")] },
      { tool_calls: [submit('exit')] },
      { tool_calls: [terminal('sleep 1; ls')] },
      { content: 'done' },
    ],
  }));
  expect(run.result.status).toBe('completed');
  const [inCommand, , trapTyped, promptTyped] = (await resultsOf(run)).map((result) => JSON.stringify(result));
  expect(inCommand).toContain('timed out without user response');
  expect(trapTyped).toContain('timed out without user response');
  expect(promptTyped).toContain('timed out without user response');
  expect(existsSync(work)).toBe(true);
});
