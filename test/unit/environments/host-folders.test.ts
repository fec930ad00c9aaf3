// A container's host binds (and an Apptainer overlay) are folders of the worker's machine that the
// session's commands write, as a local workspace is: a hook, unsandboxed MCP server or plugin the
// worker runs outside any sandbox may not lie in one, or the model rewrites it from its container
// and it runs on the worker with its rights and secrets.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../../src/config/load';
import { DockerDriver } from '../../../src/environments/docker/docker-driver';
import { EnvironmentFactory, LocalDriver } from '../../../src/environments/factory';
import { SessionWorkspaces } from '../../../src/environments/session-workspaces';
import { SingularityDriver } from '../../../src/environments/singularity/singularity-driver';
import { HookRegistry } from '../../../src/hooks/hook-registry';
import { registerShellHooks } from '../../../src/hooks/shell-hooks';
import { preToolCallPayload } from '../../../src/hooks/tool-call-hooks';
import { tempDir } from '../../helpers/temp-dirs';

const defaults = loadConfig({ env: {}, flags: {} }).terminal;
const call = preToolCallPayload({ sessionId: 'docker-session', toolCallId: 'c1', name: 'terminal' }, { command: 'ls' });

/** The user's hook script, kept in `folder`; it leaves `ran` behind when it runs. */
function hookIn(folder: string): { script: string; ran: string } {
  mkdirSync(path.join(folder, '.hermes'), { recursive: true });
  const script = path.join(folder, '.hermes', 'guard.sh');
  const ran = path.join(folder, 'hook-ran');
  writeFileSync(script, `#!/bin/sh\ncat > /dev/null\ntouch '${ran}'\n`, { mode: 0o755 });
  return { script, ran };
}

test("a hook whose script lies in a host folder bound writable into the session's containers is refused, and never runs", async () => {
  const bound = tempDir('hermes-docker-bind-');
  const { script, ran } = hookIn(bound);
  const workspaces = new SessionWorkspaces([tempDir('hermes-worker-folder-')]);
  new EnvironmentFactory([new LocalDriver(), new DockerDriver({ ...defaults.docker, volumes: [`${bound}:/workspace`] })], workspaces);
  const hooks = new HookRegistry();
  registerShellHooks(hooks, [{ event: 'pre_tool_call', command: `sh ${script}`, timeout_seconds: 5 }], '/', workspaces);
  const decision = await hooks.preToolCall(call);
  expect(decision).toMatchObject({ action: 'block', message: expect.stringContaining(`lies in the session's workspace ${bound}`) });
  expect(existsSync(ran)).toBe(false);
});

test('a read-only bind and a named volume are no folder the container writes; an overlay folder is', () => {
  const readOnly = tempDir('hermes-docker-ro-');
  const overlays = tempDir('hermes-apptainer-overlays-');
  const workspaces = new SessionWorkspaces();
  new EnvironmentFactory(
    [
      new DockerDriver({ ...defaults.docker, volumes: [`${readOnly}:/data:ro`, 'cache:/cache', '~/projects/site:/site:rw'] }),
      new SingularityDriver({ ...defaults.singularity, overlay_dir: overlays }),
    ],
    workspaces,
  );
  expect(workspaces.list().sort()).toEqual([path.join(os.homedir(), 'projects/site'), overlays].sort());
});
