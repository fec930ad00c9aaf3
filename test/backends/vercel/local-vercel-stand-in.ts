// Local stand-in for Vercel Sandbox behind the VercelApi seam: named sandboxes are LocalSandbox
// folders on this machine, runCommand really runs `cmd args` there with its output streamed,
// a name can be created only once, and a stopped sandbox resumes when it is looked up.
import type { VercelApi, VercelCommandOptions, VercelSandboxInfo, VercelSandboxSpec } from '../../../src/environments/vercel/vercel-api';
import { LocalSandbox } from '../../helpers/local-sandbox';

export interface VercelCall {
  method: 'create' | 'find' | 'runCommand' | 'remove';
  args: unknown[];
}

export class LocalVercelStandIn implements VercelApi {
  readonly calls: VercelCall[] = [];
  readonly sandboxes = new Map<string, { spec: VercelSandboxSpec; sandbox: LocalSandbox; status: string }>();

  async create(spec: VercelSandboxSpec): Promise<string> {
    this.calls.push({ method: 'create', args: [spec] });
    if (this.sandboxes.has(spec.name)) throw new Error(`APIError 409: sandbox ${spec.name} already exists`);
    this.sandboxes.set(spec.name, { spec, sandbox: new LocalSandbox(), status: 'running' });
    return spec.name;
  }

  async find(name: string): Promise<VercelSandboxInfo | undefined> {
    this.calls.push({ method: 'find', args: [name] });
    const entry = this.sandboxes.get(name);
    if (!entry) return undefined;
    if (entry.status === 'stopped') entry.status = 'running'; // `resume: true`
    return { name, status: entry.status };
  }

  async runCommand(name: string, cmd: string, args: string[], options: VercelCommandOptions): Promise<number> {
    this.calls.push({ method: 'runCommand', args: [name, cmd, args] });
    const entry = this.sandboxes.get(name);
    if (!entry || entry.status !== 'running') throw new Error(`APIError 410: sandbox ${name} is not running`);
    return entry.sandbox.run([cmd, ...args], { ...(options.env ? { env: options.env } : {}), onOutput: options.onOutput, signal: options.signal });
  }

  async remove(name: string): Promise<void> {
    this.calls.push({ method: 'remove', args: [name] });
    const entry = this.sandboxes.get(name);
    if (!entry) return;
    entry.sandbox.terminate();
    this.sandboxes.delete(name);
  }

  /** Like the sandbox's lifetime running out: it keeps its name and resumes on `find`. */
  stop(name: string): void {
    const entry = this.sandboxes.get(name);
    if (entry) entry.status = 'stopped';
  }

  terminateAll(): void {
    for (const { sandbox } of this.sandboxes.values()) if (sandbox.running) sandbox.terminate();
  }

  methods(): string[] {
    return this.calls.filter((call) => call.method !== 'runCommand').map((call) => call.method);
  }
}
