// Local stand-in for Daytona behind the DaytonaApi seam: sandboxes are LocalSandbox folders on
// this machine, and executeCommand behaves like the toolbox daemon: the string is split on spaces
// with its naive quote handling and run WITHOUT a shell, in its own process group, with the
// server-side timeout, and stdout+stderr come back merged, in one piece, at the end.
import type { DaytonaApi, DaytonaCommandResult, DaytonaSandboxInfo, DaytonaSandboxSpec } from '../../../src/environments/daytona/daytona-api';
import { killProcessGroup } from '../../../src/environments/local-environment';
import { LocalSandbox } from '../../helpers/local-sandbox';

export interface DaytonaCall {
  method: 'create' | 'find' | 'start' | 'executeCommand' | 'delete';
  args: unknown[];
}

/** The daemon's `parseCommand`: quotes group, are dropped, and nothing is escaped or expanded. */
export function parseDaemonCommand(command: string): string[] {
  const args: string[] = [];
  let current = '';
  let quote: string | undefined;
  for (const char of command) {
    if (char === '"' || char === "'") {
      if (!quote) quote = char;
      else if (quote === char) quote = undefined;
      else current += char;
    } else if (char === ' ' && !quote) {
      if (current) args.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  if (current) args.push(current);
  return args;
}

export class LocalDaytonaStandIn implements DaytonaApi {
  readonly calls: DaytonaCall[] = [];
  readonly sandboxes = new Map<string, { spec: DaytonaSandboxSpec; sandbox: LocalSandbox; state: string }>();

  async create(spec: DaytonaSandboxSpec): Promise<string> {
    this.calls.push({ method: 'create', args: [spec] });
    if (this.byName(spec.name)) throw new Error(`DaytonaConflictError: sandbox ${spec.name} already exists`);
    const sandbox = new LocalSandbox();
    this.sandboxes.set(sandbox.id, { spec, sandbox, state: 'started' });
    return sandbox.id;
  }

  async find(idOrName: string): Promise<DaytonaSandboxInfo | undefined> {
    this.calls.push({ method: 'find', args: [idOrName] });
    const entry = this.sandboxes.get(idOrName) ?? this.byName(idOrName);
    return entry && { id: entry.sandbox.id, state: entry.state };
  }

  async start(id: string): Promise<void> {
    this.calls.push({ method: 'start', args: [id] });
    const entry = this.require(id);
    entry.state = 'started';
  }

  /** Like a stopped sandbox after auto-stop: commands fail until it is started again. */
  stop(id: string): void {
    this.require(id).state = 'stopped';
  }

  async executeCommand(id: string, command: string, options: { env?: Record<string, string>; timeoutSeconds: number }): Promise<DaytonaCommandResult> {
    this.calls.push({ method: 'executeCommand', args: [id, command, options] });
    const entry = this.require(id);
    if (entry.state !== 'started') throw new Error(`DaytonaError: sandbox ${id} is ${entry.state}`);
    const argv = parseDaemonCommand(command);
    let output = '';
    let pid: number | undefined;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killProcessGroup(pid, 1000);
    }, options.timeoutSeconds * 1000);
    try {
      const exitCode = await entry.sandbox.run(argv, {
        ...(options.env ? { env: options.env } : {}),
        onOutput: (chunk) => (output += chunk),
        onSpawn: (childPid) => (pid = childPid),
      });
      if (timedOut) throw new Error(`Command execution timed out after ${options.timeoutSeconds} seconds.`);
      return { exitCode, result: output };
    } finally {
      clearTimeout(timer);
    }
  }

  async delete(id: string): Promise<void> {
    this.calls.push({ method: 'delete', args: [id] });
    const entry = this.sandboxes.get(id);
    if (!entry) return;
    entry.sandbox.terminate();
    this.sandboxes.delete(id);
  }

  terminateAll(): void {
    for (const { sandbox } of this.sandboxes.values()) if (sandbox.running) sandbox.terminate();
  }

  methods(): string[] {
    return this.calls.filter((call) => call.method !== 'executeCommand').map((call) => call.method);
  }

  private byName(name: string) {
    return [...this.sandboxes.values()].find((entry) => entry.spec.name === name);
  }

  private require(id: string) {
    const entry = this.sandboxes.get(id);
    if (!entry) throw new Error(`DaytonaNotFoundError: sandbox ${id} not found`);
    return entry;
  }
}
