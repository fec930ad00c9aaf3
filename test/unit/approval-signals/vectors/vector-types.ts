// Shape of a ported test vector and the contexts the original's tests ran in.
import type { ClassifyContext, CommandVerdict } from '../../../../src/approval-signals/verdict';

export type VectorExpectation =
  /** Needs approval or is blocked: tier `dangerous` or `hardline` (`low_risk` is not enough). */
  | 'flag'
  /** Runs without asking: tier `safe` or `low_risk`. */
  | 'safe'
  | 'hardline'
  | 'not-hardline'
  /** Exactly `dangerous` (recoverable, never hardline). */
  | 'dangerous';

export interface OriginalVector {
  /** The original test class or constant list. */
  group: string;
  command: string;
  expect: VectorExpectation;
  /** Some matched rule's description contains each of these (case-insensitive). */
  descriptionContains?: string[];
  /** Some matched rule's description equals this. */
  descriptionEquals?: string;
  /** Some matched rule has one of these ids. */
  ruleIds?: string[];
  /** No matched rule has any of these ids. */
  notRuleIds?: string[];
  /** The original's first matching pattern (informational). */
  firstMatch?: string;
  /** Which test context to use (default: a POSIX home and a project workspace). */
  context?: 'windows-home';
  note?: string;
}

/**
 * The original's tests run with HOME=/home/user and its own config under ~/.hermes, which maps to
 * this runtime's protected files (its config and env files).
 */
export const VECTOR_CONTEXT: ClassifyContext = {
  backend: 'local',
  cwd: '/home/user/project',
  workspaceRoot: '/home/user/project',
  home: '/home/user',
  protectedFiles: ['/home/user/.hermes/config.yaml', '/home/user/.hermes/.env'],
};

/** TestWindowsAbsolutePathFolding monkeypatches HOME to a Windows profile directory. */
export const WINDOWS_HOME_CONTEXT: ClassifyContext = {
  ...VECTOR_CONTEXT,
  home: 'C:\\Users\\tester',
  protectedFiles: ['C:\\Users\\tester\\.hermes\\config.yaml', 'C:\\Users\\tester\\.hermes\\.env'],
};

export function contextFor(vector: OriginalVector): ClassifyContext {
  return vector.context === 'windows-home' ? WINDOWS_HOME_CONTEXT : VECTOR_CONTEXT;
}

/** Why a verdict does not meet a vector's expectation, or `undefined` when it does. */
export function vectorMismatch(vector: OriginalVector, verdict: CommandVerdict): string | undefined {
  const tier = verdict.tier;
  const tierOk = {
    flag: tier === 'dangerous' || tier === 'hardline',
    safe: tier === 'safe' || tier === 'low_risk',
    hardline: tier === 'hardline',
    'not-hardline': tier !== 'hardline',
    dangerous: tier === 'dangerous',
  }[vector.expect];
  if (!tierOk) return `expected ${vector.expect}, got tier ${tier}`;
  const descriptions = verdict.rules.map((rule) => rule.description);
  if (vector.descriptionEquals !== undefined && !descriptions.includes(vector.descriptionEquals)) return `no rule described exactly "${vector.descriptionEquals}"`;
  for (const fragment of vector.descriptionContains ?? []) {
    if (!descriptions.some((description) => description.toLowerCase().includes(fragment.toLowerCase()))) return `no rule description contains "${fragment}"`;
  }
  const ids = verdict.rules.map((rule) => rule.id);
  if (vector.ruleIds && !vector.ruleIds.some((id) => ids.includes(id))) return `none of the rules ${vector.ruleIds.join(', ')} matched`;
  const forbidden = vector.notRuleIds?.filter((id) => ids.includes(id)) ?? [];
  if (forbidden.length) return `rule ${forbidden.join(', ')} matched`;
  return undefined;
}
