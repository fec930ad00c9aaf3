// The original's circuit breaker, per server: after 3 consecutive failures calls are refused for
// 60 s; then one call is let through (half-open) and its outcome closes or reopens the circuit.
export const CIRCUIT_BREAKER_THRESHOLD = 3;
export const CIRCUIT_BREAKER_COOLDOWN_MS = 60_000;

export class CircuitBreaker {
  private failures = 0;
  private openedAt?: number;
  private probing = false;

  constructor(
    private readonly now: () => number = Date.now,
    private readonly threshold = CIRCUIT_BREAKER_THRESHOLD,
    private readonly cooldownMs = CIRCUIT_BREAKER_COOLDOWN_MS,
  ) {}

  get consecutiveFailures(): number {
    return this.failures;
  }

  /** Undefined when a call may go ahead; otherwise the seconds until the next attempt. */
  refusal(): { retryInSeconds: number; failures: number } | undefined {
    if (this.openedAt === undefined) return undefined;
    const waited = this.now() - this.openedAt;
    if (waited >= this.cooldownMs && !this.probing) {
      this.probing = true; // half-open: exactly one probe
      return undefined;
    }
    return { retryInSeconds: Math.max(1, Math.ceil((this.cooldownMs - waited) / 1000)), failures: this.failures };
  }

  succeeded(): void {
    this.failures = 0;
    this.openedAt = undefined;
    this.probing = false;
  }

  failed(): void {
    this.failures += 1;
    this.probing = false;
    if (this.failures >= this.threshold) this.openedAt = this.now();
  }
}

/** The model-facing errors of the original, word for word. */
export const mcpErrors = {
  notConnected: (server: string) => `MCP server '${server}' is not connected`,
  transportDown: (server: string) =>
    `MCP server '${server}' transport is down; reconnect requested. Do NOT retry this tool immediately — give it a few seconds to come back.`,
  circuitOpen: (server: string, failures: number, seconds: number) =>
    `MCP server '${server}' is unreachable after ${failures} consecutive failures. Auto-retry available in ~${seconds}s. Do NOT retry this tool yet — use alternative approaches or ask the user to check the MCP server.`,
};
