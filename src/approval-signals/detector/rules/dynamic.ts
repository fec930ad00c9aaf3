// What could not be understood becomes explicit `unknown` rules, so the prompt can say why.
import type { Rule } from './rule-types';

export const dynamicRules: Rule = (input) => input.analysis.unknowns.map((fact) => ({ id: fact.id, canonical: fact.canonical, command: fact.command }));
