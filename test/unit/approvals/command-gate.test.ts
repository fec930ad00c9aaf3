// The terminal tool's own check before a command runs: a workflow approval holds only while the
// files it was given for are unchanged, and without a workflow decision hardline is still refused.
import { createHash } from 'node:crypto';
import { realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadCommandClassifier } from '../../../src/approval-signals/classify-command';
import { approveCommand, approveProcessInput } from '../../../src/approval-signals/gate';
import { createToolContext } from '../../helpers/tool-context';
import { tempDir } from '../../helpers/temp-dirs';

const workdir = tempDir('command-gate-');
const script = path.join(workdir, 'run.sh');
const digest = (text: string) => createHash('sha256').update(text).digest('hex');

beforeAll(() => loadCommandClassifier());

test('an approval bound to a script holds while the script is unchanged, and is refused once it changed', async () => {
  writeFileSync(script, 'echo original\n');
  const context = createToolContext(workdir, { commandApproval: { approved: true, boundFiles: [{ path: script, sha256: digest('echo original\n') }] } });
  expect(await approveCommand('bash run.sh', context)).toMatchObject({ approved: true });
  writeFileSync(script, 'echo swapped\n');
  const refused = await approveCommand('bash run.sh', context);
  expect(refused).toEqual({ approved: false, message: expect.stringMatching(new RegExp(`^BLOCKED: ${script} changed after it was approved; ask again`)) as unknown });
});

test('text typed into a shell, approved with the script it runs, is refused once the script changed', async () => {
  const typed = path.join(workdir, 'typed.sh');
  writeFileSync(typed, 'echo original\n');
  const context = createToolContext(workdir, { commandApproval: { approved: true, boundFiles: [{ path: typed, sha256: digest('echo original\n') }] } });
  expect(await approveProcessInput('bash', 'bash typed.sh\n', context)).toMatchObject({ approved: true });
  writeFileSync(typed, 'rm -rf ~\n');
  expect(await approveProcessInput('bash', 'bash typed.sh\n', context)).toMatchObject({ approved: false, message: expect.stringMatching(/changed after it was approved/) as unknown });
});

test('a file that was absent when approved must still be absent', async () => {
  const later = path.join(workdir, 'later.sh');
  const context = createToolContext(workdir, { commandApproval: { approved: true, boundFiles: [{ path: later, sha256: null }] } });
  expect(await approveCommand('bash later.sh', context)).toMatchObject({ approved: true });
  writeFileSync(later, 'rm -rf ~\n');
  expect(await approveCommand('bash later.sh', context)).toMatchObject({ approved: false });
});

test('a build folder allowed as a real folder is refused once it became a symbolic link', async () => {
  const real = realpathSync(workdir);
  const folder = path.join(real, 'node_modules');
  const context = createToolContext(real, { commandApproval: { approved: true, linkFreePaths: [folder] } });
  expect(await approveCommand('rm -rf node_modules/', context)).toMatchObject({ approved: true });
  symlinkSync('.', folder);
  expect(await approveCommand('rm -rf node_modules/', context)).toEqual({
    approved: false,
    message: expect.stringMatching(new RegExp(`^BLOCKED: the delete was allowed as a delete of a build or cache folder, or of the real folder it named, but ${folder} leads to ${real} `)) as unknown,
  });
});

test('without a workflow decision, hardline commands and hardline text typed into a shell are refused', async () => {
  const context = createToolContext(workdir);
  expect(await approveCommand('rm -rf /', context)).toMatchObject({ approved: false });
  expect(await approveCommand('ls', context)).toEqual({ approved: true });
  expect(await approveProcessInput('bash', 'rm -rf /', context)).toMatchObject({ approved: false });
  expect(await approveProcessInput('cat', 'rm -rf /', context)).toEqual({ approved: true });
});
