// Secrets leaving their files: any program given a secret file to read (private keys, cloud and
// registry credentials, this runtime's home, `.env`, `/proc/*/environ`), as an operand, an
// option value, a `@file` upload or stdin; GPG secret-key exports; the environment piped to a
// program that talks to the network.
import type { ExecutedCommand, ShellWord } from '../analysis-types';
import { isSecretReadPath, runtimeHomesOf } from '../path-classes';
import { FETCHERS } from '../program-names';
import type { RuleHit } from '../rule-catalog';
import { args, canonicalCommand, canonicalWords, resolveTarget } from './rule-helpers';
import type { Rule, RuleContext } from './rule-types';

/** Programs that look at a file's name or metadata, or use a key without revealing it. */
export const METADATA_ONLY = new Set(['ls', 'stat', 'du', 'file', 'test', '[', '[[', 'realpath', 'readlink', 'basename', 'dirname', 'chmod', 'chown', 'chgrp', 'touch', 'mkdir', 'ssh-add', 'cd', 'tree', 'rm', 'find', 'ln', 'source', '.', 'wc', 'md5sum', 'sha256sum', 'sha1sum', 'shasum', 'echo', 'printf', 'git']);
/** Options whose value is a key used for authentication, not content sent anywhere. */
const IDENTITY_OPTIONS = new Set(['--identity', '--identity-file', '--env-file', '--kubeconfig', '--key', '--cert', '--cacert', '--keyfile', '--ssh-key', '--private-key']);
const SSH_FAMILY = new Set(['ssh', 'scp', 'sftp', 'rsync', 'autossh', 'mosh', 'sshfs', 'git']);
const NETWORK_PROGRAMS = new Set([...FETCHERS, 'ssh', 'scp', 'sftp', 'rsync', 'telnet', 'ftp', 'openssl', 'aws', 'gsutil', 'gh', 'mail', 'sendmail', 'mutt']);
const ENVIRONMENT_DUMPS = new Set(['env', 'printenv', 'set', 'export', 'declare', 'compgen']);

export const secretRules: Rule = (input) => {
  const hits: RuleHit[] = [];
  const runtimeHomes = runtimeHomesOf(input.context.protectedFiles, input.context.home);
  for (const command of input.analysis.commands) {
    if (command.program === null || command.host) continue;
    // Wrappers' own options can read files too (`xargs -a ~/.ssh/id_rsa echo`).
    const wrapperSecret = command.layers
      .map((layer, index) => {
        const inner = command.layers[index + 1]?.argv ?? command.argv;
        const own = layer.argv.slice(0, Math.max(1, layer.argv.length - inner.length));
        return secretArgument({ ...command, program: layer.program, argv: own, stdin: undefined }, input.context, runtimeHomes);
      })
      .find(Boolean);
    const secret = secretArgument(command, input.context, runtimeHomes) ?? wrapperSecret;
    if (secret !== undefined) hits.push({ id: 'N19', canonical: canonicalCommand(command, [command.program, secret]), command: command.text, detail: secret });
    if (command.program === 'gpg' && args(command).some((word) => /^--export-secret-(?:keys|subkeys)/.test(word.value))) {
      hits.push({ id: 'N19', canonical: canonicalCommand(command, ['gpg --export-secret-keys']), command: command.text, detail: 'gpg secret keys' });
    }
  }
  for (const read of input.analysis.reads) {
    const found = secretPath(read.target, read.target.guess ?? read.target.value, read, context(input), runtimeHomes);
    if (found) hits.push({ id: 'N19', canonical: `< ${found}`, command: read.command, detail: found });
  }
  for (const stages of input.analysis.pipelines) {
    const dumpAt = stages.findIndex((stage) => stage.some((command) => command.program !== null && ENVIRONMENT_DUMPS.has(command.program) && command.argv.length <= 2 && (command.program !== 'export' || command.argv[1]?.value === '-p')));
    if (dumpAt === -1) continue;
    const sender = stages.slice(dumpAt + 1).flat().find((command) => command.program !== null && NETWORK_PROGRAMS.has(command.program));
    // Keyed on where it goes: approving one destination for the session covers no other.
    if (sender) hits.push({ id: 'N23', canonical: `${stages[dumpAt]![0]!.program} | ${canonicalWords(sender)}`, command: sender.text });
  }
  return hits;
};

function context(input: { context: RuleContext }): RuleContext {
  return input.context;
}

function secretArgument(command: ExecutedCommand, context: RuleContext, runtimeHomes: string[]): string | undefined {
  const program = command.program ?? '';
  if (METADATA_ONLY.has(program)) return undefined;
  const words = args(command);
  // A copy's destination is written, not read.
  const last = ['cp', 'mv', 'install', 'rsync', 'scp'].includes(program) ? words.length - 1 : -1;
  if (program === 'ssh-keygen' && !words.some((word) => /^-[a-zA-Z]*[ye]/.test(word.value))) return undefined;
  for (let index = 0; index < words.length; index++) {
    const word = words[index]!;
    const text = word.guess ?? word.value;
    if (IDENTITY_OPTIONS.has(text) || (SSH_FAMILY.has(program) && /^-[a-zA-Z]*[iFoEe]$/.test(text))) {
      index++;
      continue;
    }
    if (index === last || /^--(?:identity|env-file|kubeconfig|key|cert|cacert)=/.test(text)) continue;
    for (const candidate of candidates(text)) {
      const found = secretPath(word, candidate, command, context, runtimeHomes);
      if (found) return found;
    }
  }
  return undefined;
}

/** The paths a word may name: itself, `@file` uploads (`-d @x`, `f=@x`), `--opt=file`, `if=file`. */
export function candidates(text: string): string[] {
  const found = [text];
  const upload = /(?:^|=)@([^;]+)/.exec(text);
  if (upload) found.push(upload[1]!);
  const option = /^-{1,2}[\w-]+=(.+)$/s.exec(text) ?? /^[a-z]+=(.+)$/s.exec(text);
  if (option) found.push(option[1]!);
  return found;
}

function secretPath(word: ShellWord, text: string, command: { cwd: string | null }, context: RuleContext, runtimeHomes: string[]): string | undefined {
  if (!/^(?:\/|~|\$HOME\b|\$\{HOME\}|\.{1,2}\/|\.env|\.envrc$)/.test(text) && !text.includes('/')) return undefined;
  if (/^[a-z][\w+.-]*:\/\//i.test(text)) return undefined;
  const resolved = resolveTarget({ ...word, value: text, raw: text, guess: text }, command, context);
  if (resolved.path === null) return undefined;
  return isSecretReadPath(resolved.path, context.home, runtimeHomes) ? text : undefined;
}
