// The narrow slice of the Vercel Sandbox SDK this backend uses. The real one (VercelSdkApi) calls
// `@vercel/sandbox`; tests give a local stand-in that runs the commands on this machine.

export interface VercelSandboxSpec {
  /** Sandboxes are named (3.x): the name is the id a later worker re-attaches with. */
  name: string;
  /** `vercel/sandbox/universal` (Vercel's default) when unset. */
  image?: string;
  /** Lifetime: Vercel stops the sandbox after this long. */
  timeoutMs: number;
}

export interface VercelSandboxInfo {
  name: string;
  /** `pending`, `running`, `stopping`, `stopped`, `failed`, ... */
  status: string;
}

export interface VercelCommandOptions {
  env?: Record<string, string>;
  onOutput: (chunk: string) => void;
  /** Stop waiting and settle (the command was killed in the sandbox already). */
  signal: AbortSignal;
}

export interface VercelApi {
  /** Creates a sandbox; resolves with its name. */
  create(spec: VercelSandboxSpec): Promise<string>;
  /** The sandbox with this name, resumed if it was stopped; undefined when there is none. */
  find(name: string): Promise<VercelSandboxInfo | undefined>;
  /** Runs `cmd args` (detached, its logs followed); resolves with the exit code. */
  runCommand(name: string, cmd: string, args: string[], options: VercelCommandOptions): Promise<number>;
  /** Stops and deletes the sandbox; one that is already gone is not an error. */
  remove(name: string): Promise<void>;
}

export interface VercelCredentials {
  token: string;
  teamId: string;
  projectId: string;
}
