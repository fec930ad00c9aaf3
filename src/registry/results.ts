// Helpers for the result strings tools hand back to the model.
import { CancelledFailure } from '@temporalio/common';

/** `{"error": message, ...extra}` as a JSON string: how every tool reports a problem to the model. */
export function toolError(message: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ error: message, ...extra });
}

/** A JSON result object as a string. */
export function toolResult(data: Record<string, unknown>): string {
  return JSON.stringify(data);
}

/**
 * True when `error` means "stop, you were cancelled" rather than "the tool failed". Cancellation
 * must propagate to Temporal, never be turned into a tool error for the model.
 */
export function isCancellation(error: unknown, signal?: AbortSignal): boolean {
  if (error instanceof CancelledFailure) return true;
  if (!signal?.aborted) return false;
  // The reason itself may be any value (a string, a DOMException from another realm): compare it first.
  return error === signal.reason || (error instanceof Error && error.name === 'AbortError');
}

/** A result is an error when it is a JSON object with a truthy `error`. */
export function isErrorResult(content: string): boolean {
  if (!content.startsWith('{')) return false;
  try {
    const parsed = JSON.parse(content) as { error?: unknown };
    return Boolean(parsed.error);
  } catch {
    return false;
  }
}
