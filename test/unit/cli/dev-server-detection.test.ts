// Without TEMPORAL_ADDRESS, commands use a `hermes-temporal dev` that runs with the same home
// folder: they find it by the pid file it leaves while it runs.
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findRunningDevServer, serverPidDir } from '../../../src/temporal/connection';
import type { DevServerRecord } from '../../../src/temporal/dev-server';
import { tempDir } from '../../helpers/temp-dirs';

function homeWith(records: DevServerRecord[]): string {
  const home = tempDir('hermes-dev-detect-');
  mkdirSync(serverPidDir(home), { recursive: true });
  for (const record of records) writeFileSync(path.join(serverPidDir(home), `${record.pid}.json`), JSON.stringify(record));
  return home;
}

const live = { pid: process.pid, owner: process.pid, namespace: 'default' };
const deadPid = 2 ** 22 + 17; // above this machine's pid_max: never a live process

test('a running dev server is found', () => {
  const home = homeWith([{ ...live, kind: 'dev', address: '127.0.0.1:7233', uiUrl: 'http://127.0.0.1:8233' }]);
  expect(findRunningDevServer(home)).toMatchObject({ address: '127.0.0.1:7233', uiUrl: 'http://127.0.0.1:8233' });
});

test('a server embedded in some run, or one whose process is gone, is not', () => {
  expect(findRunningDevServer(homeWith([{ ...live, kind: 'embedded', address: '127.0.0.1:1111' }]))).toBeUndefined();
  expect(findRunningDevServer(homeWith([{ ...live, owner: deadPid, kind: 'dev', address: '127.0.0.1:2222' }]))).toBeUndefined();
  expect(findRunningDevServer(path.join(os.tmpdir(), 'no-such-hermes-home'))).toBeUndefined();
});
