// Environment lifecycle as activities: create (or re-find) a session's environment at start, and
// remove it when the session ends, fails or is cancelled.
import { ApplicationFailure } from '@temporalio/common';
import type { EnvironmentFactory } from '../environments/factory';
import type { EnvironmentHandle } from '../environments/terminal-environment';

export function createEnvironmentActivities(deps: { environments: EnvironmentFactory }) {
  return {
    async startEnvironment(input: { handle: EnvironmentHandle }): Promise<EnvironmentHandle> {
      const reason = await deps.environments.unavailableReason(input.handle.backend);
      if (reason) {
        // Retried a few times with backoff (a host may be briefly down), then the session fails with what to fix.
        throw ApplicationFailure.retryable(`Terminal backend '${input.handle.backend}' is unavailable: ${reason}`, 'Hermes.Environment.Unavailable');
      }
      return deps.environments.start(input.handle);
    },

    async destroyEnvironment(input: { handle: EnvironmentHandle }): Promise<void> {
      await deps.environments.destroy(input.handle);
    },
  };
}
