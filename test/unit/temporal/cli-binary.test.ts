// The `temporal` CLI runs outside any sandbox: it is never taken from a node_modules folder on
// PATH (npx puts the workspace's first) nor from inside the session's workspace.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { resolveTemporalCli } from '../../../src/temporal/cli-binary';
import { tempDir } from '../../helpers/temp-dirs';

function plantTemporal(directory: string): string {
  mkdirSync(directory, { recursive: true });
  const file = path.join(directory, 'temporal');
  writeFileSync(file, '#!/bin/sh\nexit 0\n');
  chmodSync(file, 0o755);
  return file;
}

describe('where the temporal CLI comes from', () => {
  it('skips a temporal planted in the workspace node_modules/.bin and relative PATH entries', () => {
    const workspace = tempDir();
    plantTemporal(path.join(workspace, 'node_modules', '.bin'));
    const installed = plantTemporal(tempDir());
    const cli = resolveTemporalCli({ env: { PATH: `${path.join(workspace, 'node_modules', '.bin')}:.:${path.dirname(installed)}` }, install: false, projectDir: tempDir() });
    expect(cli).toEqual({ kind: 'binary', path: installed, source: 'path' });
  });

  it("refuses one found inside the session's workspace, saying why", () => {
    const workspace = tempDir();
    const planted = plantTemporal(path.join(workspace, 'bin'));
    expect(() => resolveTemporalCli({ env: { PATH: path.dirname(planted) }, install: false, projectDir: tempDir(), outside: [workspace] })).toThrow(
      `refusing to run ${planted} for 'temporal': it lies in the session's workspace`,
    );
  });
});
