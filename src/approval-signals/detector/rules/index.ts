// Every rule module, run over one analysis.
import { RULE_CATALOG, type RuleHit } from '../rule-catalog';
import { agentRuntimeRules } from './agent-runtime';
import { deleteRules } from './delete';
import { dynamicRules } from './dynamic';
import { filesystemRules } from './filesystem';
import { gitRules } from './git';
import { interpreterRules } from './interpreters';
import { permissionRules } from './permissions';
import { privilegeRules } from './privilege';
import { processRules } from './process';
import { remoteCodeRules } from './remote-code';
import type { Rule, RuleInput } from './rule-types';
import { serviceRules } from './services';
import { sqlRules } from './sql';
import { windowsRules } from './windows';
import { writeRules } from './writes';
import { unknownProgramRules } from './unknown-programs';
import { accountRules } from './accounts';
import { secretRules } from './secrets';
import { cliSubcommandRules } from './cli-subcommands';
import { dataDestructionRules } from './data-destruction';
import { stagedExecutionRules } from './staged-execution';
import { containerRules } from './containers';
import { movedOutRules } from './moved-out';
import { linkRules } from './links';

const RULES: readonly Rule[] = [
  deleteRules,
  filesystemRules,
  processRules,
  writeRules,
  remoteCodeRules,
  interpreterRules,
  privilegeRules,
  serviceRules,
  agentRuntimeRules,
  gitRules,
  sqlRules,
  permissionRules,
  windowsRules,
  dynamicRules,
  unknownProgramRules,
  accountRules,
  secretRules,
  cliSubcommandRules,
  dataDestructionRules,
  stagedExecutionRules,
  containerRules,
  movedOutRules,
  linkRules,
];

export function runRules(input: RuleInput): RuleHit[] {
  const hits = RULES.flatMap((rule) => rule(input));
  // Running as root (N41) is a fallback: `sudo rm -rf src` asks, and is approved, as the delete it is.
  const flaggedOtherwise = new Set(hits.filter((hit) => hit.id !== 'N41' && ['dangerous', 'hardline'].includes(RULE_CATALOG[hit.id].tier)).map((hit) => hit.command));
  return hits.filter((hit) => hit.id !== 'N41' || !flaggedOtherwise.has(hit.command));
}
