// Containers that reach the host: `--privileged`, host namespaces (`--pid=host`, `--ipc=host`,
// `--userns=host`, `--net=host` with mounts), host folders that matter mounted in (`-v /:/host`,
// `-v /var/run/docker.sock:...`, `-v ~/.ssh:...`), added capabilities, devices, unconfined
// security profiles; for docker, podman, nerdctl, ctr, compose, and privileged pods and LXC.
import type { Invocation } from '../analysis-types';
import { classifyDeleteTarget, isHomeDotfile, isSecretReadPath, isSystemConfigPath } from '../path-classes';
import { resolvePath } from '../paths';
import type { RuleHit } from '../rule-catalog';
import { canonicalCommand } from './rule-helpers';
import type { Rule, RuleContext } from './rule-types';

const ENGINES = new Set(['docker', 'podman', 'nerdctl', 'ctr', 'docker-compose', 'podman-compose', 'finch', 'lima-nerdctl']);
const RUN_VERBS = new Set(['run', 'create', 'exec', 'debug']);
const HOST_NAMESPACES = /^--(?:pid|ipc|uts|userns|cgroupns)(?:=|$)/;
const DANGEROUS_CAPABILITIES = /^(?:ALL|SYS_ADMIN|SYS_PTRACE|SYS_MODULE|SYS_RAWIO|DAC_READ_SEARCH|DAC_OVERRIDE|NET_ADMIN|BPF|SYS_BOOT|MAC_ADMIN|CAP_SYS_ADMIN)$/i;

export const containerRules: Rule = (input) => {
  const hits: RuleHit[] = [];
  for (const command of input.analysis.commands) {
    if (command.program === null) continue;
    const invocations: Invocation[] = [...command.layers, { program: command.program, argv: command.argv }];
    for (const invocation of invocations) {
      const reason = invocation.program === null ? undefined : hostAccess(invocation.program, invocation.argv.slice(1).map((word) => word.value), input.context);
      if (reason) hits.push({ id: 'N24', canonical: canonicalCommand(command, [invocation.argv.map((word) => word.value).join(' ')]), command: command.text, detail: reason });
    }
  }
  return hits;
};

function hostAccess(program: string, words: string[], context: RuleContext): string | undefined {
  if (program === 'kubectl' || program === 'oc') {
    const operands = words.filter((word) => !word.startsWith('-'));
    if (operands[0] === 'debug' && operands.some((operand) => operand.startsWith('node/'))) return 'debug pod on a node';
    if (['run', 'apply', 'create', 'patch'].includes(operands[0] ?? '') && words.some((word) => /"?(?:hostPID|hostNetwork|hostIPC|privileged|hostPath)"?\s*:\s*(?:true|\{)/.test(word))) return 'pod with host access';
    return undefined;
  }
  if (program === 'lxc' || program === 'incus') return words.some((word) => /^security\.(?:privileged|nesting)$|^raw\.lxc$/.test(word)) && words.includes('set') ? 'privileged container' : undefined;
  if (!ENGINES.has(program)) return undefined;
  const verbIndex = words.findIndex((word) => RUN_VERBS.has(word));
  if (verbIndex === -1) return undefined;
  const options = words.slice(verbIndex + 1);
  let mounts = false;
  let hostNetwork = false;
  for (let index = 0; index < options.length; index++) {
    const word = options[index]!;
    const next = options[index + 1] ?? '';
    const value = (name: string) => (word.startsWith(`${name}=`) ? word.slice(name.length + 1) : word === name ? next : undefined);
    if (word === '--privileged' || word === '--privileged=true') return 'privileged container';
    if (HOST_NAMESPACES.test(word) && (value(word.split('=')[0]!) ?? '') === 'host') return `${word.split('=')[0]}=host`;
    if ((value('--net') ?? value('--network')) === 'host') hostNetwork = true;
    const capability = value('--cap-add');
    if (capability !== undefined && capability.split(',').some((name) => DANGEROUS_CAPABILITIES.test(name))) return `capability ${capability}`;
    const security = value('--security-opt');
    if (security !== undefined && /unconfined|label[:=]disable/.test(security)) return `security-opt ${security}`;
    if (value('--device') !== undefined) return 'host device';
    const volume = value('-v') ?? value('--volume') ?? (/^-v./.test(word) ? word.slice(2) : undefined);
    const mount = value('--mount');
    const source = volume !== undefined ? volume.split(':')[0] : mount !== undefined ? /(?:^|,)(?:source|src)=([^,]+)/.exec(mount)?.[1] : undefined;
    if (source !== undefined && /^[/~$.]/.test(source)) {
      mounts = true;
      const path = resolvePath(source, context.cwd, context.home).path;
      if (path !== null && sensitiveHostPath(path, context)) return `host path ${source} mounted`;
    }
  }
  return hostNetwork && mounts ? 'host network with host mounts' : undefined;
}

function sensitiveHostPath(path: string, context: RuleContext): boolean {
  if (/^\/(?:var\/)?run\/(?:docker|containerd|podman|crio)/.test(path) || /docker\.sock$/.test(path)) return true;
  if (path === '/' || classifyDeleteTarget(path, context.home) !== undefined) return true;
  return isSystemConfigPath(path) || /^\/(?:proc|sys|dev|root|var\/lib)(?:\/|$)/.test(path) || isHomeDotfile(path, context.home) || isSecretReadPath(path, context.home);
}
