// The narrow slice of the Daytona SDK this backend uses. The real one (DaytonaSdkApi) calls
// `@daytonaio/sdk`; tests give a local stand-in that runs the commands on this machine.

export interface DaytonaSandboxSpec {
  /** Unique per organisation: how a later worker finds the sandbox again. */
  name: string;
  image: string;
  labels: Record<string, string>;
}

export interface DaytonaSandboxInfo {
  id: string;
  /** Daytona's state: `started`, `stopped`, `archived`, `error`, ... */
  state: string;
}

export interface DaytonaCommandResult {
  exitCode: number;
  /** stdout and stderr merged (Daytona does not separate them). */
  result: string;
}

export interface DaytonaApi {
  /** Creates a sandbox and waits until it runs; resolves with its id. */
  create(spec: DaytonaSandboxSpec): Promise<string>;
  /** The sandbox with this id or name, if it exists. */
  find(idOrName: string): Promise<DaytonaSandboxInfo | undefined>;
  /** Starts a stopped or archived sandbox. */
  start(id: string): Promise<void>;
  /**
   * `process.executeCommand`: runs `command` **without a shell** (the daemon splits it on spaces,
   * honouring quotes) and returns when it ends, or after `timeoutSeconds` with an error.
   */
  executeCommand(id: string, command: string, options: { env?: Record<string, string>; timeoutSeconds: number }): Promise<DaytonaCommandResult>;
  /** Deletes the sandbox; one that is already gone is not an error. */
  delete(id: string): Promise<void>;
}

export interface DaytonaCredentials {
  apiKey: string;
  apiUrl: string;
  target: string;
}
