// Local stand-in for Modal behind the ModalApi seam: sandboxes are LocalSandbox folders on this
// machine, exec really runs argv there, and Modal's limits that matter here are kept (exec
// arguments at most 64 KiB, whole-second lifetimes, no exec kill, names unique among running sandboxes).
import type { ModalApi, ModalExecOptions, ModalSandboxSpec } from '../../../src/environments/modal/modal-api';
import { LocalSandbox } from '../../helpers/local-sandbox';

const EXEC_ARGS_LIMIT = 64 * 1024;

export interface ModalCall {
  method: 'createSandbox' | 'findSandbox' | 'isRunning' | 'exec' | 'terminate';
  args: unknown[];
}

export class LocalModalStandIn implements ModalApi {
  readonly calls: ModalCall[] = [];
  readonly sandboxes = new Map<string, { spec: ModalSandboxSpec; sandbox: LocalSandbox }>();

  async createSandbox(spec: ModalSandboxSpec): Promise<string> {
    this.calls.push({ method: 'createSandbox', args: [spec] });
    if (spec.timeoutMs % 1000 !== 0) throw new Error('timeoutMs must be a multiple of 1000');
    if ([...this.sandboxes.values()].some((entry) => entry.sandbox.running && entry.spec.appName === spec.appName && entry.spec.name === spec.name)) {
      throw new Error(`AlreadyExistsError: a running sandbox is already named ${spec.name}`);
    }
    const sandbox = new LocalSandbox();
    this.sandboxes.set(sandbox.id, { spec, sandbox });
    return sandbox.id;
  }

  async findSandbox(appName: string, name: string): Promise<string | undefined> {
    this.calls.push({ method: 'findSandbox', args: [appName, name] });
    return [...this.sandboxes.values()].find((entry) => entry.sandbox.running && entry.spec.appName === appName && entry.spec.name === name)?.sandbox.id;
  }

  async isRunning(sandboxId: string): Promise<boolean> {
    this.calls.push({ method: 'isRunning', args: [sandboxId] });
    return this.sandboxes.get(sandboxId)?.sandbox.running ?? false;
  }

  async exec(sandboxId: string, argv: string[], options: ModalExecOptions): Promise<number> {
    this.calls.push({ method: 'exec', args: [sandboxId, argv] });
    const size = argv.reduce((total, arg) => total + Buffer.byteLength(arg), 0);
    if (size > EXEC_ARGS_LIMIT) throw new Error(`InvalidError: exec arguments exceed the 64 KiB limit (${size} bytes)`);
    const entry = this.sandboxes.get(sandboxId);
    if (!entry?.sandbox.running) throw new Error(`NotFoundError: sandbox ${sandboxId} is not running`);
    return entry.sandbox.run(argv, { onOutput: options.onOutput, signal: options.signal });
  }

  async terminate(sandboxId: string): Promise<void> {
    this.calls.push({ method: 'terminate', args: [sandboxId] });
    this.sandboxes.get(sandboxId)?.sandbox.terminate();
  }

  async close(): Promise<void> {
    // Nothing held between calls.
  }

  /** Test cleanup: no stand-in process outlives the test file. */
  terminateAll(): void {
    for (const { sandbox } of this.sandboxes.values()) if (sandbox.running) sandbox.terminate();
  }

  methods(): string[] {
    return this.calls.filter((call) => call.method !== 'exec').map((call) => call.method);
  }
}
