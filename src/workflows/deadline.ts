// A durable time limit for a scope of workflow code (a sub-agent's child_timeout_seconds): when it
// expires the scope is cancelled, so running tools are cancelled and their commands killed.
import { CancellationScope, sleep } from '@temporalio/workflow';

export interface Deadline {
  readonly scope: CancellationScope;
  readonly expired: boolean;
  stop(): void;
}

export function startDeadline(seconds: number): Deadline {
  const scope = new CancellationScope();
  const timer = new CancellationScope();
  let expired = false;
  timer
    .run(() => sleep(seconds * 1000))
    .then(
      () => {
        expired = true;
        scope.cancel();
      },
      () => undefined, // stopped: the work ended first
    );
  return {
    scope,
    get expired() {
      return expired;
    },
    stop: () => timer.cancel(),
  };
}
