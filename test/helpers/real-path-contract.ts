// The contract every backend's Workspace.realpath keeps, checked against a real filesystem:
// links followed, missing tails resolved through the deepest existing ancestor, dangling links
// through their target, loops refused.
import type { Workspace } from '../../src/environments/workspace';

/** `run` executes a shell command on the backend (to make the links); `workdir` is an absolute, canonical, writable folder there. */
export async function expectRealPathContract(workspace: Workspace, run: (command: string) => Promise<unknown>, workdir: string): Promise<void> {
  const at = (name: string) => `${workdir}/${name}`;
  await run(
    [
      `mkdir -p ${at('real/sub')}`,
      `ln -sfn ${at('real')} ${at('link')}`,
      `ln -sfn real/sub ${at('relative-link')}`,
      `ln -sfn ${at('real/not-yet')} ${at('dangling')}`,
      `ln -sfn ${at('loop-b')} ${at('loop-a')}`,
      `ln -sfn ${at('loop-a')} ${at('loop-b')}`,
    ].join(' && '),
  );
  expect(await workspace.realpath(at('real'))).toBe(at('real'));
  expect(await workspace.realpath(at('link'))).toBe(at('real'));
  expect(await workspace.realpath(at('relative-link/file.txt'))).toBe(at('real/sub/file.txt'));
  expect(await workspace.realpath(at('link/sub/new/deeper.txt'))).toBe(at('real/sub/new/deeper.txt'));
  expect(await workspace.realpath(at('dangling'))).toBe(at('real/not-yet'));
  expect(await workspace.realpath(at('plain/none'))).toBe(at('plain/none'));
  await expect(workspace.realpath(at('loop-a'))).rejects.toThrow();
  // Asked all at once (one round trip where each look is an exec), the same answers; a loop has none.
  if (workspace.realpaths) {
    const asked = ['real', 'link', 'relative-link/file.txt', 'link/sub/new/deeper.txt', 'dangling', 'plain/none', 'loop-a', "it's a name with spaces"].map(at);
    expect(await workspace.realpaths(asked)).toEqual([at('real'), at('real'), at('real/sub/file.txt'), at('real/sub/new/deeper.txt'), at('real/not-yet'), at('plain/none'), undefined, at("it's a name with spaces")]);
    expect(await workspace.realpaths([])).toEqual([]);
  }
}
