// The narrow slice of the Modal SDK this backend uses. The real one (ModalSdkApi) calls the `modal`
// package; tests give a local stand-in that runs the commands on this machine.

export interface ModalSandboxSpec {
  appName: string;
  /** Unique among the app's running sandboxes: how a later worker finds it again. */
  name: string;
  image: string;
  workdir: string;
  /** Lifetime: Modal terminates the sandbox after this long whatever happens. */
  timeoutMs: number;
}

export interface ModalExecOptions {
  /** Backstop for Modal's own exec timeout (the environment kills earlier through a pidfile). */
  timeoutMs: number;
  onOutput: (chunk: string) => void;
  /** Stop reading and settle (Modal has no exec kill; the process was killed in the sandbox). */
  signal: AbortSignal;
}

export interface ModalApi {
  /** Creates a sandbox that idles until terminated; resolves with its id. */
  createSandbox(spec: ModalSandboxSpec): Promise<string>;
  /** The id of the running sandbox called `name` in the app, if there is one. */
  findSandbox(appName: string, name: string): Promise<string | undefined>;
  /** Whether the sandbox with this id still runs. */
  isRunning(sandboxId: string): Promise<boolean>;
  /** Runs `argv` in the sandbox, streaming stdout and stderr; resolves with the exit code. */
  exec(sandboxId: string, argv: string[], options: ModalExecOptions): Promise<number>;
  /** Terminates the sandbox; a sandbox that is already gone is not an error. */
  terminate(sandboxId: string): Promise<void>;
  /** Closes the client's connections (worker shutdown). */
  close(): Promise<void>;
}

export interface ModalCredentials {
  tokenId: string;
  tokenSecret: string;
  environment?: string;
  endpoint?: string;
}
