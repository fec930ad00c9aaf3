// `sessions --limit` takes a count above 0 and nothing else: 0 or a word used to list the
// default 20, and -1 every session, as if the flag had been understood.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { CLI_ENTRY, requireBuild } from '../../helpers/cli';
import { tempDir } from '../../helpers/temp-dirs';

requireBuild();

function sessions(limit: string) {
  const root = tempDir('hermes-sessions-limit-');
  const env = { PATH: process.env.PATH, HOME: root, HERMES_TEMPORAL_HOME: path.join(root, 'hermes') };
  const result = spawnSync(process.execPath, [CLI_ENTRY, 'sessions', '--limit', limit], { cwd: root, env, encoding: 'utf8', timeout: 20_000 });
  return { code: result.status, err: result.stderr };
}

test.each(['0', '-1', 'abc', '1.5', '99999999999999999999'])('--limit %s is refused, naming the value', (limit) => {
  const refused = sessions(limit);
  expect(refused.code).toBe(1);
  expect(refused.err).toContain(`--limit must be a whole number above 0, not '${limit}'`);
});

test('--limit 5 is taken', () => {
  expect(sessions('5')).toEqual({ code: 0, err: '' });
});
