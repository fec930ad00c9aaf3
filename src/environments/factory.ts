// The one place that turns an environment handle into a live backend. Live environments are a
// per-worker cache keyed by session (DESIGN.md rule 5); the handle itself stays in the workflow.
import { LocalEnvironment, type LocalEnvironmentOptions } from './local-environment';
import type { EnvironmentHandle, TerminalEnvironment } from './terminal-environment';

export interface EnvironmentFactoryOptions {
  local?: LocalEnvironmentOptions;
}

export class EnvironmentFactory {
  constructor(private readonly options: EnvironmentFactoryOptions = {}) {}

  /** A live environment for `handle`; cheap for local, where nothing is held between commands. */
  attach(handle: EnvironmentHandle): TerminalEnvironment {
    switch (handle.backend) {
      case 'local':
        return new LocalEnvironment(handle, this.options.local);
      default:
        throw new UnsupportedBackendError(handle.backend);
    }
  }
}

export class UnsupportedBackendError extends Error {
  override readonly name = 'UnsupportedBackendError';
  constructor(readonly backend: string) {
    super(`Terminal backend '${backend}' is not available in this build; use 'local'`);
  }
}
