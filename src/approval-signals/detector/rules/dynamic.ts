// What could not be understood becomes explicit `unknown` rules, so the prompt can say why; a
// command whose name (or whole text) is built at run time also hides what runs: at least dangerous.
import type { RuleHit } from '../rule-catalog';
import type { Rule } from './rule-types';

export const dynamicRules: Rule = (input) =>
  input.analysis.unknowns.flatMap((fact): RuleHit[] => {
    const unknown: RuleHit = { id: fact.id, canonical: fact.canonical, command: fact.command };
    return fact.id === 'U02' || fact.id === 'U03' ? [unknown, { id: 'N40', canonical: fact.canonical, command: fact.command }] : [unknown];
  });
