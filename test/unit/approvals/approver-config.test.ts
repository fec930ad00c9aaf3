// Who may answer approvals and start sessions is configured outside the workspace:
// approvals.accept_unsigned, accept_unsigned_starts and approvers come from the home config, the
// environment or flags, never from the project file the agent can write; and a session's input
// carries public keys only.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadApproverKey } from '../../../src/approval-signals/approver-key';
import { ConfigError, loadConfig, PROJECT_CONFIG_FILE } from '../../../src/config/load';
import { readProjectFile, trustProjectFile } from '../../../src/config/project-trust';
import { sessionInputFrom } from '../../../src/temporal/sessions';
import { tempDir } from '../../helpers/temp-dirs';

function dirs() {
  const root = tempDir('hermes-approver-config-');
  const home = path.join(root, 'home');
  const projectDir = path.join(root, 'project');
  mkdirSync(home);
  mkdirSync(projectDir);
  return { home, projectDir, load: () => loadConfig({ env: { HERMES_TEMPORAL_HOME: home }, projectDir }) };
}

const remoteKey = 'c0ffee'.repeat(10) + 'c0ff';

test('the project file may not accept unsigned decisions or add approvers, even once trusted', () => {
  const { home, projectDir, load } = dirs();
  const content = `approvals:\n  accept_unsigned: true\n  accept_unsigned_starts: true\n  approvers:\n    - name: agent\n      public_key: ${remoteKey}\n`;
  writeFileSync(path.join(projectDir, PROJECT_CONFIG_FILE), content);
  trustProjectFile(home, readProjectFile(path.join(projectDir, PROJECT_CONFIG_FILE))!);
  expect(load).toThrow(ConfigError);
  expect(load).toThrow(
    /approvals\.accept_unsigned: may not be set in the project file .*\n\s+approvals\.accept_unsigned_starts: may not be set in the project file .*\n\s+approvals\.approvers: may not be set in the project file/,
  );
});

test('the home config and the environment may, and a bad key is refused with its reason', () => {
  const { home, projectDir, load } = dirs();
  writeFileSync(path.join(home, 'config.yaml'), `approvals:\n  accept_unsigned: true\n  approvers:\n    - name: ops\n      public_key: ${remoteKey}\n`);
  expect(load().approvals).toMatchObject({ accept_unsigned: true, approvers: [{ name: 'ops', public_key: remoteKey }] });
  expect(loadConfig({ env: { HERMES_TEMPORAL_HOME: home, HERMES__APPROVALS__ACCEPT_UNSIGNED: 'false' }, projectDir }).approvals.accept_unsigned).toBe(false);
  // One line per approver, as a container's environment gives them.
  const listed = loadConfig({ env: { HERMES_TEMPORAL_HOME: home, HERMES__APPROVALS__APPROVERS: `alice@laptop:${remoteKey}, bob:${'ab'.repeat(32)}` }, projectDir });
  expect(listed.approvals.approvers).toEqual([{ name: 'alice@laptop', public_key: remoteKey }, { name: 'bob', public_key: 'ab'.repeat(32) }]);
  expect(() => loadConfig({ env: { HERMES_TEMPORAL_HOME: home, HERMES__APPROVALS__APPROVERS: 'alice' }, projectDir })).toThrow(/approvals\.approvers\.0\.public_key: must be an Ed25519 public key/);
  writeFileSync(path.join(home, 'config.yaml'), 'approvals:\n  approvers:\n    - name: ops\n      public_key: abc\n');
  expect(load).toThrow(/approvals\.approvers\.0\.public_key: must be an Ed25519 public key: 64 hex characters/);
});

test('a new session lists this machine\'s key (created on first need) and the configured approvers, never a private key', () => {
  const { home, load } = dirs();
  writeFileSync(path.join(home, 'config.yaml'), `approvals:\n  approvers:\n    - name: ops\n      public_key: ${remoteKey}\n`);
  const input = sessionInputFrom({ task: 't', config: load() }, 's1');
  const local = loadApproverKey(home);
  expect(input.approvals).toMatchObject({ acceptUnsigned: false, approvers: [{ name: local.name, publicKey: local.publicKey }, { name: 'ops', publicKey: remoteKey }] });
  const privateKey = readFileSync(local.files.privateKeyFile, 'utf8');
  const body = privateKey.split('\n').slice(1, -2).join('');
  expect(JSON.stringify(input)).not.toContain(body);
});
