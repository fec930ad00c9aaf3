// Bounded polling for tests: every wait has a deadline and says what it was waiting for.

/** Polls `condition` until it holds (errors count as "not yet"), failing after `timeoutMs`. */
export async function waitFor<T>(
  condition: () => T | Promise<T>,
  options: { timeoutMs: number; intervalMs?: number; what: string },
): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await condition();
      if (value) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const reason = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      throw new Error(`Timed out after ${options.timeoutMs} ms waiting for ${options.what}${reason}`);
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 100));
  }
}
