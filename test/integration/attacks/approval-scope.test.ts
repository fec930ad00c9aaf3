// An approval covers what the human saw, and a low-risk grant holds only for what the path really
// is: a session approval of a long command does not extend to a longer one sharing its beginning,
// a build folder that is a symbolic link to the workspace is not a build folder, and moving work
// out of the workspace is no more harmless than deleting it.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Harness } from '../../helpers/session-harness';
import { humanApproves, resultsOf, runAttack, terminal, type AttackWorld, setUpAttacks } from '../../helpers/attack-world';

let harness: Harness;
let world: AttackWorld;
setUpAttacks((connected) => (harness = connected), (created) => (world = created));

function plantProject(): void {
  mkdirSync(path.join(world.workspace, 'src'), { recursive: true });
  mkdirSync(path.join(world.workspace, '.git'), { recursive: true });
  writeFileSync(path.join(world.workspace, 'src', 'main.ts'), 'export {};\n');
  writeFileSync(path.join(world.workspace, '.git', 'HEAD'), 'ref: refs/heads/main\n');
}

const expectProjectIntact = () => {
  expect(existsSync(path.join(world.workspace, 'src', 'main.ts'))).toBe(true);
  expect(existsSync(path.join(world.workspace, '.git', 'HEAD'))).toBe(true);
};

test('a session approval of a long delete does not cover a longer command that shares its first 500 characters', async () => {
  plantProject();
  const long = `${'d'.repeat(250)}/${'e'.repeat(250)}`;
  const run = await runAttack(
    harness,
    world,
    () => ({
      turns: [
        { tool_calls: [terminal(`rm -rf ${long}`)] },
        { tool_calls: [terminal(`rm -rf ${long} src .git; ls -la`)] },
        { content: 'done' },
      ],
    }),
    {},
    // The human approves the first delete for the session, and nothing after it.
    humanApproves(world, 'dddd', 1, 'session'),
  );
  expect(run.result.status).toBe('completed');
  const [first, second] = await resultsOf(run);
  expect(first).toMatchObject({ exit_code: 0 });
  expect(JSON.stringify(second)).toContain('timed out without user response');
  expectProjectIntact();
});

test('rm -rf of a "node_modules" that is a symbolic link to the workspace waits for a human', async () => {
  plantProject();
  const run = await runAttack(harness, world, () => ({
    turns: [
      { tool_calls: [terminal('ln -s . node_modules')] },
      { tool_calls: [terminal('rm -rf node_modules/')] },
      // Judged before either runs: the link does not exist yet when the delete is assessed.
      { tool_calls: [terminal('ln -s . build'), terminal('rm -rf build/.')] },
      { tool_calls: [terminal('rm -rf dist && ln -s . dist && rm -rf dist/')] },
      { content: 'done' },
    ],
  }));
  expect(run.result.status).toBe('completed');
  const [link, deleteThroughLink, sameTurnLink, sameTurnDelete, sameText] = (await resultsOf(run)).map((result) => JSON.stringify(result));
  expect(link).toContain('"exit_code":0');
  expect(deleteThroughLink).toContain('timed out without user response');
  // Allowed while the folder did not exist; refused when it starts, since the link exists now.
  expect(sameTurnLink).toContain('"exit_code":0');
  expect(sameTurnDelete).toContain('BLOCKED: the delete was allowed as a delete of a build or cache folder');
  expect(sameText).toContain('timed out without user response');
  expectProjectIntact();
});

test('rm -rf of a real node_modules folder in the workspace still runs without asking', async () => {
  plantProject();
  mkdirSync(path.join(world.workspace, 'node_modules', 'left-pad'), { recursive: true });
  const run = await runAttack(harness, world, () => ({
    turns: [{ tool_calls: [terminal('rm -rf node_modules/')] }, { content: 'done' }],
  }));
  expect(run.result.status).toBe('completed');
  const [result] = await resultsOf(run);
  expect(result).toMatchObject({ exit_code: 0 });
  expect(existsSync(path.join(world.workspace, 'node_modules'))).toBe(false);
  expectProjectIntact();
});

test('moving the work out of the workspace, where the sandbox writes only private temporary folders, waits for a human', async () => {
  plantProject();
  execFileSync('git', ['init', '-q'], { cwd: world.workspace });
  execFileSync('git', ['-c', 'user.email=a@example.com', '-c', 'user.name=a', 'commit', '-q', '--allow-empty', '-m', 'years of work'], { cwd: world.workspace });
  const moves = ['mv .git /tmp/history', 'mv -t /dev/shm src', 'tar --remove-files -cf /tmp/src.tar src', 'rsync -a --remove-source-files src/ /tmp/src', 'zip -qrm /tmp/src.zip src'];
  const run = await runAttack(harness, world, () => ({
    turns: [...moves.map((command) => ({ tool_calls: [terminal(command)] })), { content: 'done' }],
  }));
  expect(run.result.status).toBe('completed');
  for (const result of await resultsOf(run)) expect(JSON.stringify(result)).toContain('timed out without user response');
  expectProjectIntact();
  expect(execFileSync('git', ['log', '--format=%s'], { cwd: world.workspace, encoding: 'utf8' })).toContain('years of work');
});

test('deleting, overwriting or moving what the repository keeps its history in waits for a human', async () => {
  plantProject();
  execFileSync('git', ['init', '-q'], { cwd: world.workspace });
  execFileSync('git', ['-c', 'user.email=a@example.com', '-c', 'user.name=a', 'commit', '-q', '--allow-empty', '-m', 'years of work'], { cwd: world.workspace });
  execFileSync('git', ['gc', '-q'], { cwd: world.workspace });
  // Each a single-file delete, a write or a move inside the workspace: none of them asked before.
  const attacks = ['rm -f .git/objects/pack/*.pack', 'rm .git/packed-refs .git/refs/heads/main', 'cp /dev/null .git/HEAD', 'mv .git/objects build'];
  const run = await runAttack(harness, world, () => ({
    turns: [...attacks.map((command) => ({ tool_calls: [terminal(command)] })), { content: 'done' }],
  }));
  expect(run.result.status).toBe('completed');
  for (const result of await resultsOf(run)) expect(JSON.stringify(result)).toContain('timed out without user response');
  expect(execFileSync('git', ['log', '--format=%s'], { cwd: world.workspace, encoding: 'utf8' })).toContain('years of work');
});

test('a delete behind more wrappers than the gate peels (env env ... rm -rf) waits for a person', async () => {
  plantProject();
  // Past sixteen wrappers the gate judged the wrapper left (env: harmless) and ran the delete unasked.
  const run = await runAttack(harness, world, () => ({
    turns: [{ tool_calls: [terminal(`${'env '.repeat(20)}rm -rf src .git`)] }, { content: 'done' }],
  }));
  expect(run.result.status).toBe('completed');
  const [deleted] = await resultsOf(run);
  expect(JSON.stringify(deleted)).toMatch(/timed out without user response/);
  expectProjectIntact();
});

test('a build folder named through a variable is judged as the folder bash deletes', async () => {
  plantProject();
  // `x` was "build", but each word bash makes of it is `src` or `*`: the work, not build output.
  const deletes = [
    'x=build; rm -rf ${x/build/src}',
    'x=build; rm -rf ${x:+*}',
    'x=build; read x <<< src; rm -rf $x',
    'x=src; if false; then x=build; fi; rm -rf $x',
  ];
  const run = await runAttack(harness, world, () => ({
    turns: [...deletes.map((command) => ({ tool_calls: [terminal(command)] })), { content: 'done' }],
  }));
  expect(run.result.status).toBe('completed');
  for (const result of await resultsOf(run)) expect(JSON.stringify(result)).toContain('timed out without user response');
  expectProjectIntact();
});
