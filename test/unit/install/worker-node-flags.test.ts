// Every way a long-running worker is started gives node the same flags (today a 2 MB young
// generation, which keeps a worker with thousands of parked sessions from holding hundreds of MB
// of young garbage): the `hermes-temporal` command's shebang, `npm run worker`, and the image's
// entry point and command wrapper. bench/parked-sessions.ts reads them from `npm run worker`.
import { readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
const flagsOf = (words: string[]) => words.filter((word) => word.startsWith('--'));

const shebang = read('src/cli/main.ts').split('\n')[0] ?? '';
const npmWorker = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts.worker ?? '';
const dockerfile = read('Dockerfile');
const entrypoint = JSON.parse(/^ENTRYPOINT (\[.*\])$/m.exec(dockerfile)?.[1] ?? '[]') as string[];
const wrapper = /printf '#!\/bin\/sh\\nexec (node [^"]*)"\$@"/.exec(dockerfile)?.[1] ?? '';

test('the shebang, npm run worker, the image entry point and its hermes-temporal wrapper pass node the same flags', () => {
  expect(shebang).toMatch(/^#!\/usr\/bin\/env -S node /);
  const expected = flagsOf(shebang.split(' '));
  expect(expected).toContain('--max-semi-space-size=2');
  expect(flagsOf(npmWorker.split('&&').at(-1)!.trim().split(' '))).toEqual(expected);
  expect(entrypoint[0]).toBe('node');
  expect(flagsOf(entrypoint)).toEqual(expected);
  expect(wrapper).toMatch(/^node /);
  expect(flagsOf(wrapper.trim().split(' '))).toEqual(expected);
});
