// Keepalive for an SSH connection that must not keep the worker process running when idle.
// ssh2's own keepalive timer is a referenced interval (an idle cached connection would hold a CLI
// or test process open forever), so this one is unreferenced and uses a public request instead.
import type { Client } from 'ssh2';

/**
 * Every `intervalMs`, sends a global request the server must answer (cancelling a port forward
 * that does not exist: any reply, even a refusal, proves the peer is alive). After `maxMissed`
 * unanswered requests in a row the connection is declared dead. Returns a stop function.
 */
export function startKeepalive(client: Client, intervalMs: number, maxMissed: number, onDead: (reason: string) => void): () => void {
  let missed = 0;
  const timer = setInterval(() => {
    if (missed >= maxMissed) {
      clearInterval(timer);
      onDead(`no reply to ${maxMissed} keepalives in a row`);
      return;
    }
    missed += 1;
    try {
      client.unforwardIn('127.0.0.1', 0, () => {
        missed = 0;
      });
    } catch (error) {
      clearInterval(timer);
      onDead(error instanceof Error ? error.message : String(error));
    }
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
