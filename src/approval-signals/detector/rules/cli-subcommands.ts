// Destructive subcommands of database, orchestration, infrastructure and system CLIs, one table
// entry per CLI (extend by adding an entry). Cloud and cluster CLIs share a verb test: an operand
// whose first segment is a destroying verb (`delete-user`, `apps:destroy`, `rb`, `terminate-instances`).
import type { ExecutedCommand } from '../analysis-types';
import { feedText } from '../stdin-feeds';
import type { RuleHit } from '../rule-catalog';
import { args, canonicalWords } from './rule-helpers';
import { destructiveStatement, sqlStatements } from './sql';
import type { Rule } from './rule-types';
import { lookupTable } from '../lookup-table';

interface CliCall {
  program: string;
  /** Every argument after the program, quote-removed. */
  words: string[];
  /** Arguments that are not options, lower-cased. */
  operands: string[];
  has(...names: string[]): boolean;
  /** `--name=value` or `--name value`. */
  value(...names: string[]): string | undefined;
  /** Text fed on stdin when known (`echo FLUSHALL | redis-cli`). */
  fed: string;
}

type Check = (call: CliCall) => boolean;

const DESTROYING_VERBS = new Set([
  'delete', 'del', 'remove', 'rm', 'rb', 'rmdir', 'destroy', 'terminate', 'purge', 'drop', 'dropdatabase', 'flushall', 'flushdb',
  'uninstall', 'deregister', 'reset', 'wipe', 'erase', 'nuke', 'prune', 'yank', 'unpublish', 'undefine', 'deinit', 'revoke',
  'disable', 'truncate', 'force_reset', 'purge_queue', 'deletefile', 'rmdirs', 'clear', 'detach', 'release', 'unset', 'stop', 'kill',
]);

/** The operand's first segment (`delete-table` → `delete`, `apps:destroy` → `destroy`, `delete_queue` → `delete`). */
function verbOf(operand: string): string {
  const colon = operand.includes(':') ? operand.slice(operand.indexOf(':') + 1) : operand;
  return colon.split(/[-_.]/)[0] ?? colon;
}

const anyVerb = (call: CliCall, verbs: Set<string> = DESTROYING_VERBS) => call.operands.some((operand) => verbs.has(operand) || verbs.has(verbOf(operand)));
const verbs = (...names: string[]) => new Set(names);
const hasVerb = (...names: string[]): Check => (call) => anyVerb(call, verbs(...names));

const cloudCli: Check = (call) => anyVerb(call) || call.has('--delete', '--purge', '--force-delete', '--delete-removed');

const TABLE = lookupTable<Check>({
  kubectl: (call) =>
    anyVerb(call, verbs('delete', 'drain', 'cordon', 'taint', 'uncordon-all')) ||
    (call.operands.includes('scale') && /^0$/.test(call.value('--replicas') ?? '')) ||
    (call.operands.includes('rollout') && anyVerb(call, verbs('restart', 'undo'))) ||
    (call.operands.includes('apply') && call.has('--prune')) ||
    (call.operands.includes('replace') && call.has('--force')) ||
    (call.operands.includes('patch') && call.words.some((word) => /"replicas"\s*:\s*0\b/.test(word))),
  helm: hasVerb('uninstall', 'delete', 'del', 'un', 'rollback'),
  terraform: (call) =>
    anyVerb(call, verbs('destroy', 'force-unlock', 'taint')) ||
    (call.operands.includes('apply') && (call.has('-auto-approve', '--auto-approve', '-destroy'))) ||
    (call.operands.includes('state') && anyVerb(call, verbs('rm', 'replace-provider'))) ||
    (call.operands.includes('workspace') && anyVerb(call, verbs('delete'))),
  pulumi: (call) =>
    anyVerb(call, verbs('destroy', 'cancel')) ||
    ((call.operands.includes('up') || call.operands.includes('update')) && call.has('--yes', '-y', '--skip-preview', '-f')) ||
    (call.operands.includes('stack') && anyVerb(call, verbs('rm', 'remove'))) ||
    (call.operands.includes('state') && anyVerb(call, verbs('delete'))),
  'redis-cli': (call) =>
    [...call.operands, ...call.fed.toLowerCase().split(/\s+/)].some((operand) => ['flushall', 'flushdb', 'del', 'unlink', 'shutdown', 'config', 'debug', 'swapdb', 'script'].includes(operand)),
  podman: (call) => call.operands.includes('system') && call.operands.includes('reset'),
  mongo: (call) => mongoEval(call),
  mongosh: (call) => mongoEval(call),
  dropdb: () => true,
  dropuser: () => true,
  mysqladmin: hasVerb('drop', 'shutdown', 'flush-privileges'),
  cqlsh: (call) => sqlText(call.value('-e', '--execute')),
  heroku: cloudCli,
  gh: (call) => anyVerb(call, verbs('delete', 'archive', 'rm', 'remove')) || (call.operands.includes('repo') && call.operands.includes('edit') && call.has('--visibility')),
  glab: cloudCli,
  npm: (call) => anyVerb(call, verbs('unpublish')) || (call.operands.includes('publish') && call.has('--force', '-f')),
  yarn: hasVerb('unpublish'),
  pnpm: hasVerb('unpublish'),
  cargo: hasVerb('yank', 'owner-remove'),
  gem: hasVerb('yank'),
  conda: hasVerb('remove', 'uninstall'),
  zfs: hasVerb('destroy', 'rollback'),
  zpool: hasVerb('destroy', 'labelclear', 'offline'),
  btrfs: hasVerb('delete'),
  lvremove: () => true,
  vgremove: () => true,
  pvremove: () => true,
  lvreduce: () => true,
  ansible: (call) => /^(?:shell|command|raw|script)$/.test(call.value('-m', '--module-name') ?? '') || call.has('-a', '--args'),
  'kafka-topics': (call) => call.has('--delete'),
  'kafka-topics.sh': (call) => call.has('--delete'),
  'kafka-delete-records': () => true,
  'kafka-delete-records.sh': () => true,
  rabbitmqctl: cloudCli,
  rabbitmqadmin: cloudCli,
  influx: cloudCli,
  consul: cloudCli,
  etcdctl: hasVerb('del', 'delete', 'defrag', 'compact'),
  vault: (call) => anyVerb(call, verbs('delete', 'destroy', 'disable', 'revoke', 'metadata')) || (call.operands.includes('operator') && anyVerb(call, verbs('seal', 'step-down'))),
  nomad: (call) => (call.operands.includes('job') && anyVerb(call, verbs('stop'))) || anyVerb(call, verbs('purge', 'gc')),
  rclone: hasVerb('delete', 'purge', 'deletefile', 'rmdir', 'rmdirs', 'cleanup', 'dedupe', 'sync'),
  s3cmd: hasVerb('del', 'rm', 'rb', 'sync'),
  mc: hasVerb('rm', 'rb'),
  virsh: hasVerb('destroy', 'undefine', 'vol-delete', 'pool-destroy', 'pool-delete', 'snapshot-delete', 'shutdown', 'reset'),
  vagrant: hasVerb('destroy', 'halt'),
  kind: hasVerb('delete'),
  minikube: hasVerb('delete'),
  k3d: hasVerb('delete'),
  eksctl: hasVerb('delete', 'drain'),
  sqlite3: (call) => call.words.some((word) => /^\s*\.(?:shell|system)\b/.test(word)),
});

/** Changes to the host system itself: firewall, network, kernel, mounts, removal of system packages. */
const HOST_TABLE = lookupTable<Check>({
  iptables: (call) => call.has('-F', '--flush', '-X', '--delete-chain', '-D', '--delete', '-P', '--policy', '-Z'),
  ufw: hasVerb('disable', 'reset', 'delete', 'deny', 'reject'),
  nft: hasVerb('flush', 'delete', 'destroy'),
  ip: (call) => (call.operands.includes('down') && call.operands.includes('set')) || anyVerb(call, verbs('del', 'delete', 'flush')),
  ifconfig: hasVerb('down'),
  ifdown: () => true,
  apt: hasVerb('remove', 'purge', 'autoremove', 'autopurge'),
  'apt-get': hasVerb('remove', 'purge', 'autoremove', 'dist-upgrade'),
  aptitude: hasVerb('remove', 'purge'),
  dpkg: (call) => call.has('-r', '-P', '--remove', '--purge', '--force-all'),
  yum: hasVerb('remove', 'erase', 'autoremove'),
  dnf: hasVerb('remove', 'erase', 'autoremove'),
  rpm: (call) => call.has('-e', '--erase', '--nodeps'),
  pacman: (call) => call.words.some((word) => /^-R/.test(word)),
  zypper: hasVerb('rm', 'remove'),
  apk: hasVerb('del'),
  snap: hasVerb('remove'),
  flatpak: hasVerb('uninstall', 'remove'),
  brew: (call) => anyVerb(call, verbs('uninstall', 'remove', 'rm', 'untap')) && !call.operands.includes('services'),
  port: hasVerb('uninstall'),
  sysctl: (call) => call.has('-w', '--write', '-p', '--load') || call.operands.some((operand) => operand.includes('=')),
  mount: (call) => call.operands.length > 0 || /remount|bind/.test(call.value('-o') ?? ''),
  umount: (call) => call.operands.length > 0 || call.has('-a', '--all'),
  swapoff: () => true,
  swapon: (call) => call.operands.length > 0 || call.has('-a'),
  modprobe: (call) => !call.has('-n', '--dry-run', '-c', '--showconfig', '--show-depends', '-D'),
  insmod: () => true,
  rmmod: () => true,
  'firewall-cmd': (call) => call.words.some((word) => /^--(?:add|remove|set|panic|reload|complete-reload|runtime-to-permanent|new|delete|change)/.test(word)),
  hostnamectl: hasVerb('set-hostname', 'set-chassis', 'set-deployment'),
  timedatectl: (call) => call.operands.some((operand) => operand.startsWith('set-')),
  setenforce: () => true,
  auditctl: (call) => call.has('-D', '-e'),
  'aa-disable': () => true,
  'aa-complain': () => true,
  'update-grub': () => true,
  'grub-install': () => true,
  efibootmgr: (call) => call.words.some((word) => /^-[a-zA-Z]*[BbcAaoN]/.test(word)),
  'update-alternatives': (call) => call.has('--set', '--install', '--remove', '--remove-all', '--config'),
  kexec: () => true,
  dracut: () => true,
  mkinitcpio: () => true,
  'update-initramfs': () => true,
  nmcli: (call) => anyVerb(call, verbs('delete', 'down', 'off', 'disconnect', 'modify')),
  route: hasVerb('del', 'delete', 'flush'),
  tc: hasVerb('add', 'del', 'replace', 'change'),
  ethtool: (call) => call.has('-s', '--change', '-K', '--offload', '-E'),
});

/** Cloud, hosting and cluster CLIs: any destroying verb among the operands. */
for (const program of [
  'aws', 'gcloud', 'gsutil', 'bq', 'az', 'doctl', 'flyctl', 'fly', 'vercel', 'netlify', 'firebase', 'supabase', 'wrangler', 'stripe',
  'lxc', 'incus', 'openstack', 'linode-cli', 'hcloud', 'scw', 'railway', 'render', 'pscale', 'neonctl', 'turso', 'oci', 'ibmcloud',
  'b2', 'exo', 'upcloud', 'vultr-cli', 'civo', 'koyeb', 'porter', 'okteto', 'argocd', 'flux', 'istioctl', 'linkerd', 'velero',
  'gcloud-beta', 'databricks', 'snowsql', 'confluent', 'ccloud', 'atlas', 'mongocli', 'redis-cloud', 'planetscale', 'neon', 'doppler',
  'op', 'bw', 'lpass', 'auth0', 'okta', 'twilio', 'sentry-cli', 'datadog-ci', 'newrelic', 'oc', 'podman-machine', 'colima', 'limactl',
  'multipass', 'juju', 'lxd', 'kn', 'skaffold', 'tilt', 'garden', 'earthly', 'dagger', 'sam', 'cdk', 'serverless', 'sls', 'amplify',
  'copilot', 'eb', 'ecs-cli', 'lightsail', 'cf', 'ibm', 'aliyun', 'tccli', 'hf', 'huggingface-cli', 'wandb', 'modal', 'replicate',
]) {
  const own = TABLE[program];
  TABLE[program] = own ? (call) => own(call) || cloudCli(call) : cloudCli;
}
for (const program of ['tofu', 'terragrunt']) TABLE[program] = (call) => TABLE.terraform!(call) || anyVerb(call, verbs('destroy'));

function mongoEval(call: CliCall): boolean {
  const code = [call.value('--eval'), ...call.words.filter((word) => /\bdb\./.test(word)), call.fed].filter(Boolean).join('\n');
  return /\b(?:dropDatabase|drop|deleteMany|deleteOne|remove|dropIndex(?:es)?|findOneAndDelete|renameCollection|dropUser|dropAllUsers|dropAllRoles|updateMany|shutdownServer|fsyncLock|adminCommand)\s*\(/.test(code);
}

function sqlText(text: string | undefined): boolean {
  return text !== undefined && sqlStatements(text).some((statement) => destructiveStatement(statement) !== undefined || /^DROP\s/i.test(statement));
}

function callOf(command: ExecutedCommand): CliCall {
  const words = args(command).map((word) => word.value);
  const operands = words.filter((word) => !word.startsWith('-')).map((word) => word.toLowerCase());
  return {
    program: command.program ?? '',
    words,
    operands,
    fed: feedText(command.stdin) ?? '',
    has: (...names) => words.some((word) => names.includes(word) || names.some((name) => name.startsWith('--') && word.startsWith(`${name}=`)) || names.some((name) => /^-[a-zA-Z]$/.test(name) && /^-[a-zA-Z]+$/.test(word) && word.length > 2 && word.includes(name[1]!) && !name.startsWith('--'))),
    value: (...names) => {
      for (let index = 0; index < words.length; index++) {
        const word = words[index]!;
        for (const name of names) {
          if (word === name) return words[index + 1];
          if (word.startsWith(`${name}=`)) return word.slice(name.length + 1);
        }
      }
      return undefined;
    },
  };
}

/** Verbs that name destruction plainly enough to judge an unknown CLI by (`mycli destroy`, `x-cli delete db`). */
export const PLAINLY_DESTROYING = new Set(['destroy', 'delete', 'remove', 'purge', 'drop', 'wipe', 'nuke', 'terminate', 'erase', 'flushall', 'flushdb', 'truncate', 'reset', 'uninstall', 'unpublish', 'rm', 'rb', 'del', 'kill', 'shutdown', 'teardown', 'decommission', 'deprovision', 'revoke']);

export function namesDestroyingVerb(operands: readonly string[]): boolean {
  return operands.slice(0, 3).some((operand) => PLAINLY_DESTROYING.has(operand.toLowerCase()) || PLAINLY_DESTROYING.has(verbOf(operand.toLowerCase())));
}

export const cliSubcommandRules: Rule = (input) => {
  const hits: RuleHit[] = [];
  for (const command of input.analysis.commands) {
    if (command.program === null || command.host) continue;
    const check = TABLE[command.program] ?? TABLE[command.program.replace(/\.sh$/, '')];
    if (check && check(callOf(command))) hits.push({ id: 'N25', canonical: canonicalWords(command), command: command.text, detail: command.program });
    const host = HOST_TABLE[command.program];
    if (host && host(callOf(command))) hits.push({ id: 'N29', canonical: canonicalWords(command), command: command.text, detail: command.program });
  }
  return hits;
};
