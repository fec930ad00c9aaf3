// Every rule the detector can report: stable id, tier and the description shown to the user.
// H01–H12 and D01–D73 keep the original Hermes ids and exact wording (its tests assert them);
// N.., L.., U.. and SELF01 are rules of this runtime.
import type { MatchedRule } from '../verdict';

type RuleTier = MatchedRule['tier'];
interface CatalogEntry {
  tier: RuleTier;
  description: string;
}

const hardline = (description: string): CatalogEntry => ({ tier: 'hardline', description });
const dangerous = (description: string): CatalogEntry => ({ tier: 'dangerous', description });

export const RULE_CATALOG = {
  H01: hardline('recursive delete of root filesystem'),
  H02: hardline('recursive delete of system directory'),
  H03: hardline('recursive delete of home directory'),
  H04: hardline('format filesystem (mkfs)'),
  H05: hardline('dd to raw block device'),
  H06: hardline('redirect to raw block device'),
  H07: hardline('fork bomb'),
  H08: hardline('kill all processes'),
  H09: hardline('system shutdown/reboot'),
  H10: hardline('init 0/6 (shutdown/reboot)'),
  H11: hardline('systemctl poweroff/reboot'),
  H12: hardline('telinit 0/6 (shutdown/reboot)'),

  D01: dangerous('delete in root path'),
  D02: dangerous('recursive delete'),
  D03: dangerous('recursive delete (long flag)'),
  D04: dangerous('Windows cmd destructive delete'),
  D05: dangerous('Windows PowerShell destructive delete'),
  D06: dangerous('PowerShell encoded command execution'),
  D07: dangerous('world/other-writable permissions'),
  D09: dangerous('recursive chown to root'),
  D10: dangerous('recursive chown to root (long flag)'),
  D11: dangerous('format filesystem'),
  D12: dangerous('disk copy'),
  D13: dangerous('write to block device'),
  D14: dangerous('SQL DROP'),
  D15: dangerous('SQL DELETE without WHERE'),
  D16: dangerous('SQL TRUNCATE'),
  D17: dangerous('overwrite system config'),
  D18: dangerous('stop/restart system service'),
  D20: dangerous('force kill processes'),
  D21: dangerous('force kill processes (killall -KILL)'),
  D22: dangerous('force kill processes (killall -s KILL)'),
  D23: dangerous('kill processes by regex (killall -r)'),
  D25: dangerous('shell command via -c/-lc flag'),
  D26: dangerous('script execution via -e/-c flag'),
  D27: dangerous('pipe remote content to shell'),
  D28: dangerous('execute remote script via process substitution'),
  D29: dangerous('execute remote content via command substitution'),
  D30: dangerous('pipe decoded content to shell (possible command obfuscation)'),
  D31: dangerous('pipe xxd-decoded content to shell (possible command obfuscation)'),
  D32: dangerous('pipe tr-transformed output to shell (possible command obfuscation)'),
  D33: dangerous('pipe openssl-decoded content to shell (possible command obfuscation)'),
  D34: dangerous('overwrite system file via tee'),
  D35: dangerous('overwrite system file via redirection'),
  D36: dangerous('overwrite project env/config via tee'),
  D37: dangerous('overwrite project env/config via redirection'),
  D38: dangerous('xargs with rm'),
  D39: dangerous('find -exec/-execdir rm'),
  D40: dangerous('find -delete'),
  D41: dangerous('stop/restart hermes gateway (kills running agents)'),
  D42: dangerous('hermes update (restarts gateway, kills running agents)'),
  D43: dangerous('docker compose restart/stop/kill/down (container lifecycle)'),
  D44: dangerous('docker restart/stop/kill (container lifecycle)'),
  D45: dangerous("start gateway outside systemd (use 'systemctl --user restart hermes-gateway')"),
  D46: dangerous("start gateway outside systemd (use 'systemctl --user restart hermes-gateway')"),
  D47: dangerous('kill hermes/gateway process (self-termination)'),
  D48: dangerous('kill process via pgrep/pidof expansion (self-termination)'),
  D49: dangerous('kill process via backtick pgrep/pidof expansion (self-termination)'),
  D50: dangerous('stop/restart hermes launchd service (kills running agents)'),
  D51: dangerous('copy/move file into system config path'),
  D52: dangerous('overwrite project env/config file'),
  D53: dangerous('copy/move file into sensitive credential/SSH/shell-rc path'),
  D54: dangerous('in-place edit of sensitive credential/SSH/shell-rc path'),
  D55: dangerous('in-place edit of sensitive credential/SSH/shell-rc path (long flag)'),
  D56: dangerous('in-place edit of sensitive credential/SSH/shell-rc path (perl/ruby)'),
  D57: dangerous('in-place edit of system config'),
  D58: dangerous('in-place edit of system config (long flag)'),
  D59: dangerous('in-place edit of Hermes config/env'),
  D60: dangerous('in-place edit of Hermes config/env (long flag)'),
  D61: dangerous('in-place edit of Hermes config/env (perl/ruby)'),
  D62: dangerous('script execution via heredoc'),
  D63: dangerous('shell execution via heredoc'),
  D64: dangerous('git reset --hard (destroys uncommitted changes)'),
  D65: dangerous('git force push (rewrites remote history)'),
  D66: dangerous('git force push short flag (rewrites remote history)'),
  D67: dangerous('git clean with force (deletes untracked files)'),
  D68: dangerous('git branch force delete'),
  D69: dangerous('git branch force delete (long flags)'),
  D70: dangerous('git branch force delete (long flags, force-first)'),
  D71: dangerous('chmod +x followed by immediate execution'),
  D72: dangerous('sudo with privilege flag (stdin/askpass/shell/list)'),
  D73: dangerous('sudo with combined-flag privilege escalation'),

  N01: dangerous('SQL UPDATE without WHERE'),
  N02: dangerous('recursive permission/ownership change on a system path'),
  N03: dangerous('git config injection via -c (command-running setting)'),
  N04: dangerous('git checkout/restore/switch/rm discards uncommitted changes'),
  N05: dangerous('pipe command output into a shell/interpreter'),
  N06: dangerous('shell execution via here-string'),
  N07: dangerous('docker prune/volume removal (deletes data)'),
  N08: dangerous('awk program runs shell commands'),
  N09: dangerous('execute script from process substitution'),
  N10: dangerous('write to a system path through an output option'),
  N11: dangerous('write to a home dotfile, credential or start-up file'),
  N12: dangerous('set the setuid/setgid bit or file capabilities'),
  N13: dangerous('interactive root shell'),
  N14: dangerous('change user accounts, groups or sudo rights'),
  N15: dangerous('edit scheduled jobs (cron/at)'),
  N16: dangerous('enable a service or timer (persistence)'),
  N17: dangerous('destroy file contents (shred/truncate/wipe/fallocate)'),
  N18: dangerous('move a home or system folder away'),
  N19: dangerous('read a secret file (keys, credentials, .env, process memory)'),
  N20: dangerous('unknown program given a path outside the workspace'),
  N21: dangerous('unknown program given another program to run'),
  N22: dangerous('unknown program given a remote address'),
  N23: dangerous('send secrets or the environment over the network'),
  N24: dangerous('container with host access (privileged, host namespaces or host mounts)'),
  N25: dangerous('destructive subcommand of a database/orchestration/infrastructure CLI'),
  N26: dangerous('run a file just downloaded or decoded'),
  N27: dangerous('destructive git history/ref operation'),
  N28: dangerous('git config sets a command-running option'),
  N29: dangerous('change the host system (firewall, network, kernel, mounts, packages)'),
  N30: dangerous('loosen ownership or permissions of a credential path'),
  N31: dangerous('write a git hook, repository config or what redirects git to others (git obeys them outside the sandbox)'),
  N32: dangerous('move workspace files out of it (sandboxed, into a private temporary folder: gone when the command ends)'),
  N33: dangerous('delete, overwrite or move what a git repository keeps its history in (objects, refs, logs, HEAD)'),
  N34: dangerous('shell or interpreter runs the commands it receives over a network connection (reverse or bind shell)'),
  N40: dangerous('command hidden by shell expansion (variable, array, IFS, substitution)'),
  N41: dangerous('run a command that is not read-only as root or another user (sudo, doas, su, pkexec, run0)'),
  N42: dangerous('link to a start-up, credential, secret or system file (what is written or read through the link reaches it)'),
  N43: dangerous('more paths than are checked for links leading elsewhere'),
  N44: dangerous('write or read through a path an earlier command in the same text may have made a link (unpacked archive, checkout, patch, link-keeping copy)'),
  SELF01: dangerous('overwrite hermes-temporal config/allowlist'),

  L01: { tier: 'low_risk', description: 'recursive delete of a build/cache directory inside the workspace' },

  U01: { tier: 'unknown', description: 'shell syntax could not be fully parsed' },
  U02: { tier: 'unknown', description: 'command name is built at run time' },
  U03: { tier: 'unknown', description: 'command text built at run time is run by a shell' },
  U04: { tier: 'unknown', description: 'command too long or too deeply nested to analyse' },
  U05: { tier: 'unknown', description: 'delete of a path only known at run time' },
} satisfies Record<string, CatalogEntry>;

export type RuleId = keyof typeof RULE_CATALOG;

/** A rule match before it becomes a `MatchedRule`: the canonical form decides the approval key. */
export interface RuleHit {
  id: RuleId;
  /** Normalised command (program, sorted flags, normalised targets) used in the approval key. */
  canonical: string;
  /** The (sub)command text that matched. */
  command: string;
  /** Extra detail appended to the description, e.g. the destructive calls found in a script. */
  detail?: string;
  /** See MatchedRule.linkFreePaths. */
  linkFreePaths?: string[];
  /** See MatchedRule.once. */
  once?: true;
  /** See MatchedRule.targets. */
  targets?: string[];
  /** Found only in text an unknown program is guessed to run (see guessed-findings.ts): never hardline. */
  guessedRunner?: string;
}

export function toMatchedRule(hit: RuleHit): MatchedRule {
  const entry = RULE_CATALOG[hit.id];
  const description = hit.detail ? `${entry.description} (${hit.detail})` : entry.description;
  const guess = hit.guessedRunner !== undefined;
  const guessedHardline = guess && entry.tier === 'hardline';
  return {
    id: hit.id,
    description: guess ? `${description}, if ${hit.guessedRunner} runs its text` : description,
    tier: guessedHardline ? 'dangerous' : entry.tier,
    key: `${hit.id}:${hit.canonical}`,
    command: hit.command,
    ...(hit.linkFreePaths ? { linkFreePaths: hit.linkFreePaths } : {}),
    ...(hit.once ? { once: true } : {}),
    ...(hit.targets?.length ? { targets: hit.targets } : {}),
    ...(guessedHardline ? { guessedHardline: true } : {}),
  };
}
