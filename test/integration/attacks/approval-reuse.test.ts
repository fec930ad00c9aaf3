// A session approval covers the command the person saw where it ran, and nothing the text leaves
// open: the same words in another folder (`git clean -fdx` approved in `sub/`, then run at the
// workspace's root) or with other input (`... | xargs rm -rf` with a different list) are asked again.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Harness } from '../../helpers/session-harness';
import { decideSigned } from '../../helpers/approver';
import { pendingApprovalsQuery } from '../../../src/approval-signals/definitions';
import type { SessionHandle } from '../../../src/temporal/sessions';
import { humanApproves, resultsOf, runAttack, terminal, type AttackWorld, setUpAttacks } from '../../helpers/attack-world';

let harness: Harness;
let world: AttackWorld;
setUpAttacks((connected) => (harness = connected), (created) => (world = created));

/** A repository with committed code, untracked work at its root (notes) and scratch files in `sub/`. */
function plantRepository(): void {
  mkdirSync(path.join(world.workspace, 'sub'), { recursive: true });
  mkdirSync(path.join(world.workspace, 'notes'), { recursive: true });
  writeFileSync(path.join(world.workspace, 'main.ts'), 'export {};\n');
  execFileSync('git', ['init', '-q'], { cwd: world.workspace });
  execFileSync('git', ['add', 'main.ts'], { cwd: world.workspace });
  execFileSync('git', ['-c', 'user.email=a@example.com', '-c', 'user.name=a', 'commit', '-q', '-m', 'code'], { cwd: world.workspace });
  writeFileSync(path.join(world.workspace, 'notes', 'thesis.md'), 'years of untracked work\n');
  writeFileSync(path.join(world.workspace, 'sub', 'scratch.o'), 'scratch\n');
}

const thesis = () => path.join(world.workspace, 'notes', 'thesis.md');

/**
 * The person reads the script as it is and approves `bash build.sh` once; on the way, `go` lets a
 * background job rewrite the script into a delete, and the approval is sent once it has.
 */
function approveWhileRewritten(go: string, script: string) {
  return async (handle: SessionHandle, finished: () => boolean): Promise<void> => {
    const deadline = Date.now() + 30_000;
    while (!finished() && Date.now() < deadline) {
      const [pending] = await handle.query(pendingApprovalsQuery).catch(() => []);
      if (pending?.command.includes('bash build.sh')) {
        writeFileSync(go, '');
        while (Date.now() < deadline && !readFileSync(script, 'utf8').includes('rm -rf')) await new Promise((resolve) => setTimeout(resolve, 50));
        await decideSigned(handle, { home: world.hermesHome }, { approvalId: pending.approvalId, choice: 'once' });
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
}

test('git clean approved for the session in a sub-folder is asked again at the workspace root', async () => {
  plantRepository();
  const run = await runAttack(
    harness,
    world,
    () => ({
      turns: [
        { tool_calls: [terminal('cd sub && git clean -fdx')] },
        { tool_calls: [terminal('cd .. && git clean -fdx')] },
        { tool_calls: [terminal('git clean -fdx', { workdir: world.workspace })] },
        { content: 'done' },
      ],
    }),
    {},
    humanApproves(world, 'cd sub', 1, 'session'),
  );
  expect(run.result.status).toBe('completed');
  const [inSub, atRoot, withWorkdir] = (await resultsOf(run)).map((result) => JSON.stringify(result));
  expect(inSub).toContain('"exit_code":0');
  expect(existsSync(path.join(world.workspace, 'sub', 'scratch.o'))).toBe(false);
  expect(atRoot).toContain('timed out without user response');
  expect(withWorkdir).toContain('timed out without user response');
  expect(existsSync(thesis())).toBe(true);
});

test('a delete whose targets come from its input, approved for the session, is asked again with other input', async () => {
  plantRepository();
  const run = await runAttack(
    harness,
    world,
    () => ({
      turns: [
        { tool_calls: [terminal('echo sub/scratch.o | xargs rm -rf')] },
        { tool_calls: [terminal('echo notes main.ts | xargs rm -rf')] },
        { tool_calls: [terminal('T=sub; rm -rf "$T"')] },
        { tool_calls: [terminal('T=notes; rm -rf "$T"')] },
        { content: 'done' },
      ],
    }),
    {},
    async (handle, finished) => {
      await humanApproves(world, 'scratch.o', 1, 'session')(handle, finished);
      await humanApproves(world, 'T=sub', 1, 'session')(handle, finished);
    },
  );
  expect(run.result.status).toBe('completed');
  const [first, second, third, fourth] = (await resultsOf(run)).map((result) => JSON.stringify(result));
  expect(first).toContain('"exit_code":0');
  expect(second).toContain('timed out without user response');
  expect(third).toContain('"exit_code":0');
  expect(fourth).toContain('timed out without user response');
  expect(existsSync(thesis())).toBe(true);
  expect(existsSync(path.join(world.workspace, 'main.ts'))).toBe(true);
});

test('a command approved for the session in a kept shell, whose folder is not known, is asked again as a command', async () => {
  plantRepository();
  const submit = (data: string) => ({ name: 'process', arguments: { action: 'submit', session_id: '{{last.session_id}}', data } });
  const run = await runAttack(
    harness,
    world,
    () => ({
      turns: [
        { tool_calls: [terminal('bash', { background: true })] },
        { tool_calls: [submit('cd sub')] },
        // The shell is in sub/ now; the gate judges the text as typed where the shell started.
        { tool_calls: [submit('git clean -fdx')] },
        { tool_calls: [terminal('sleep 1; git clean -fdx')] },
        { content: 'done' },
      ],
    }),
    {},
    humanApproves(world, 'git clean', 1, 'session'),
  );
  expect(run.result.status).toBe('completed');
  const [, , typed, command] = (await resultsOf(run)).map((result) => JSON.stringify(result));
  expect(typed).not.toContain('timed out');
  expect(command).toContain('timed out without user response');
  expect(existsSync(thesis())).toBe(true);
});

test('a command typed into a kept shell, approved with the script it runs as it was, is refused once a job has rewritten the script', async () => {
  plantRepository();
  writeFileSync(path.join(world.workspace, 'build.sh'), 'echo building\n');
  const go = path.join(world.workspace, 'go');
  const submit = (data: string) => ({ name: 'process', arguments: { action: 'submit', session_id: '{{last.session_id}}', data } });
  const run = await runAttack(
    harness,
    world,
    () => ({
      turns: [
        // A job that rewrites the script once told to: each of its commands harmless.
        { tool_calls: [terminal('while [ ! -e go ]; do sleep 0.05; done; printf "rm -rf notes\\n" > build.sh', { background: true })] },
        { tool_calls: [terminal('bash', { background: true })] },
        { tool_calls: [submit('bash build.sh && git reset --hard')] },
        { tool_calls: [{ name: 'process', arguments: { action: 'wait', session_id: '{{last.session_id}}', timeout: 2 } }] },
        { content: 'done' },
      ],
    }),
    {},
    approveWhileRewritten(go, path.join(world.workspace, 'build.sh')),
  );
  expect(run.result.status).toBe('completed');
  const [, , typed] = (await resultsOf(run)).map((result) => JSON.stringify(result));
  expect(typed).toContain('BLOCKED');
  expect(existsSync(thesis())).toBe(true);
});

test('a command typed into a kept terminal shell after a typed `cd` binds its approval to the script where the shell is, so a rewrite there is refused', async () => {
  plantRepository();
  // The script lives only in sub/: judged at the workspace root, it would be "no file" before and after.
  writeFileSync(path.join(world.workspace, 'sub', 'build.sh'), 'echo building\n');
  const go = path.join(world.workspace, 'go');
  const submit = (data: string) => ({ name: 'process', arguments: { action: 'submit', session_id: '{{last.session_id}}', data } });
  const run = await runAttack(
    harness,
    world,
    () => ({
      turns: [
        { tool_calls: [terminal('while [ ! -e go ]; do sleep 0.05; done; printf "rm -rf ../notes\\n" > sub/build.sh', { background: true })] },
        { tool_calls: [terminal('bash', { background: true, pty: true })] },
        { tool_calls: [submit('cd sub')] },
        { tool_calls: [submit('bash build.sh && git reset --hard')] },
        { tool_calls: [{ name: 'process', arguments: { action: 'wait', session_id: '{{last.session_id}}', timeout: 2 } }] },
        { content: 'done' },
      ],
    }),
    {},
    approveWhileRewritten(go, path.join(world.workspace, 'sub', 'build.sh')),
  );
  expect(run.result.status).toBe('completed');
  const [, , moved, typed] = (await resultsOf(run)).map((result) => JSON.stringify(result));
  expect(moved).toContain('"status":"ok"');
  expect(typed).toContain('BLOCKED');
  expect(existsSync(thesis())).toBe(true);
});
