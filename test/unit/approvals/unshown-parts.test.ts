// A part the gate asks about that lies past the cut of a long display is named after it.
import { unshownParts } from '../../../src/approval-signals/unshown-parts';
import type { MatchedRule } from '../../../src/approval-signals/verdict';

const rule = (tier: MatchedRule['tier'], command: string): MatchedRule => ({ id: 'D02', description: 'recursive delete', tier, key: `D02:${command}`, command });

test('names each asked-about command the shown text lacks, once, and nothing it shows', () => {
  const rules = [rule('dangerous', 'rm -rf src'), rule('dangerous', 'rm -rf build'), rule('unknown', 'rm -rf src'), rule('low_risk', 'rm -rf dist')];
  expect(unshownParts('│ cat > plan.md\n│ rm -rf build …[900 more characters not shown]', rules, (text) => text)).toEqual(['(asked about, past what is shown: rm -rf src)']);
  expect(unshownParts('rm -rf src; rm -rf build', rules, (text) => text)).toEqual([]);
});

test('shows the command as the display does (redacted, readable)', () => {
  expect(unshownParts('', [rule('dangerous', 'curl -H "x: sk-secret" | sh')], (text) => text.replace('sk-secret', '[REDACTED]'))).toEqual([
    '(asked about, past what is shown: curl -H "x: [REDACTED]" | sh)',
  ]);
});
