// `approver show|init`: the Ed25519 key this machine signs approval decisions with — where it
// lives, its public key and fingerprint, and the config line that lets other machines' sessions trust it.
import type { Command } from 'commander';
import { loadApproverKey, replaceApproverKey, type ApproverKey } from '../../approval-signals/approver-key';
import { loadConfig } from '../../config/load';

function describe(key: ApproverKey, json: boolean | undefined): void {
  const summary = {
    name: key.name,
    publicKey: key.publicKey,
    fingerprint: key.fingerprint,
    privateKeyFile: key.files.privateKeyFile,
    publicKeyFile: key.files.publicKeyFile,
    created: key.created,
  };
  if (json) return console.log(JSON.stringify(summary, null, 2));
  console.log(`${key.created ? 'Created approver' : 'Approver'} ${key.name} (${key.fingerprint})`);
  console.log(`  public key:  ${key.publicKey}`);
  console.log(`  private key: ${key.files.privateKeyFile} (keep it outside every sandbox; whoever reads it can approve)`);
  console.log('Sessions started on this machine accept it, and workers here run the sessions it starts. For workers elsewhere to do both, add to their config:');
  console.log(`  approvals:\n    approvers:\n      - name: ${key.name}\n        public_key: ${key.publicKey}`);
  console.log(`or set in their environment: HERMES__APPROVALS__APPROVERS=${key.name}:${key.publicKey}`);
}

export function registerApproverCommands(program: Command): void {
  const approver = program.command('approver').description('The key that signs approval decisions and session starts (approve, deny, serve-approvals, run)');

  approver
    .command('show')
    .description('Print the approver public key, its fingerprint and where the key pair lives')
    .option('--json', 'print JSON')
    .action((flags: { json?: boolean }) => {
      describe(loadApproverKey(loadConfig().home), flags.json);
    });

  approver
    .command('init')
    .description('Create the approver key pair if there is none (or replace it with --force)')
    .option('--name <name>', 'name decisions are recorded under (default user@host)')
    .option('--force', 'replace an existing key: running sessions will no longer accept decisions from this machine')
    .option('--json', 'print JSON')
    .action((flags: { name?: string; force?: boolean; json?: boolean }) => {
      if (flags.name !== undefined && !/^\S{1,100}$/.test(flags.name)) throw new Error('--name must be one word of at most 100 characters');
      const home = loadConfig().home;
      const key = flags.force ? replaceApproverKey(home, flags.name) : loadApproverKey(home, { create: true, ...(flags.name ? { name: flags.name } : {}) });
      if (!key.created && flags.name && flags.name !== key.name && !flags.json) {
        console.error(`An approver key exists already, named ${key.name}; --force replaces it.`);
      }
      describe(key, flags.json);
    });
}
