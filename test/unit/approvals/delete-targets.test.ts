// A delete whose target leads elsewhere through a link is keyed and described by where it leads.
import { followDeleteTargets } from '../../../src/approval-signals/delete-targets';
import type { CommandVerdict, MatchedRule } from '../../../src/approval-signals/verdict';

const rule: MatchedRule = { id: 'D02', description: 'recursive delete', tier: 'dangerous', key: 'D02:rm -f -r /w/data @ /w', command: 'rm -rf data/', targets: ['/w/data'] };
const verdict: CommandVerdict = { tier: 'dangerous', rules: [rule], commands: [], compound: false };
const links = (map: Record<string, string>) => async (target: string) => {
  if (target in map) return map[target]!;
  throw new Error('ENOENT');
};

test('a real folder, or one not there yet, keeps its key', async () => {
  expect(await followDeleteTargets(verdict, links({ '/w': '/w', '/w/data': '/w/data' }), '/w', (path) => path)).toEqual({ verdict, real: ['/w/data'] });
  expect(await followDeleteTargets(verdict, links({ '/w': '/w' }), '/w', (path) => path)).toEqual({ verdict, real: [] });
  // The workspace itself reached through a link: only links below it count.
  expect(await followDeleteTargets(verdict, links({ '/w': '/real/w', '/w/data': '/real/w/data' }), '/w', (path) => path)).toEqual({ verdict, real: [] });
});

test('a link gets a key of its own and says where it leads', async () => {
  const followed = await followDeleteTargets(verdict, links({ '/w': '/w', '/w/data': '/w/src' }), '/w', (path) => path);
  expect(followed.verdict.rules[0]).toMatchObject({ key: 'D02:rm -f -r /w/data @ /w → /w/src', description: 'recursive delete (through a link: /w/data leads to /w/src)' });
});
