// The store as activities use it: a full disk is waited out (the result already computed — a
// command's output, a paid model reply — is kept in memory and written once space returns), and
// a store that cannot be written, or was deleted under the worker, fails the activity at once
// with the reason, so nothing is retried into a store that cannot keep it and nothing is lost silently.
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { Logger } from '../logging';
import type { SessionStore } from '../store/session-store';
import { storeFaultOf, type StoreFaultKind } from '../store/store-faults';

export const STORE_FAILURE: Record<StoreFaultKind, string> = {
  full: 'Hermes.Store.Full',
  read_only: 'Hermes.Store.ReadOnly',
  gone: 'Hermes.Store.Gone',
};

export interface GuardedStoreOptions {
  logger: Logger;
  /** How long a write waits for a full disk to free up, at most (the activity's own deadline may end it sooner). */
  fullRetryLimitMs?: number;
  retryInitialDelayMs?: number;
  retryMaxDelayMs?: number;
}

const WRITES = new Set(['createSession', 'updateSession', 'appendMessage', 'saveToolListing']);
/** Leaves the activity time to report its failure before its start-to-close timeout. */
const DEADLINE_MARGIN_MS = 5000;

export function guardStore(store: SessionStore, options: GuardedStoreOptions): SessionStore {
  const limitMs = options.fullRetryLimitMs ?? 10 * 60_000;
  const call = async <T>(name: string, operation: () => Promise<T>): Promise<T> => {
    const startedAt = Date.now();
    const deadline = Math.min(startedAt + limitMs, activityDeadline() ?? Infinity);
    let delayMs = options.retryInitialDelayMs ?? 500;
    for (let attempt = 1; ; attempt += 1) {
      try {
        const result = await operation();
        if (attempt > 1) options.logger.warn({ operation: name, attempts: attempt }, 'The session store took the write once space was freed');
        return result;
      } catch (error) {
        const fault = storeFaultOf(error);
        if (!fault) throw error;
        const reason = (error as Error).message;
        if (fault === 'full' && WRITES.has(name) && Date.now() + delayMs < deadline && !cancelled()) {
          if (attempt === 1) options.logger.error({ operation: name, error: reason }, 'The session store is full: keeping the result and retrying the write until it fits');
          await sleep(delayMs);
          delayMs = Math.min(delayMs * 2, options.retryMaxDelayMs ?? 10_000);
          continue;
        }
        options.logger.error({ operation: name, fault, error: reason }, 'The session store cannot be written');
        const message = fault === 'full' ? `The session store is full (${reason}); waited ${Math.round((Date.now() - startedAt) / 1000)} s for space` : fault === 'read_only' ? `The session store cannot be written (${reason})` : reason;
        // A full disk may free up: the activity is retried. Read-only or gone: retrying cannot help.
        throw ApplicationFailure.create({ message, type: STORE_FAILURE[fault], nonRetryable: fault !== 'full', cause: error as Error });
      }
    }
  };
  return {
    createSession: (session) => call('createSession', () => store.createSession(session)),
    getSession: (sessionId) => call('getSession', () => store.getSession(sessionId)),
    updateSession: (sessionId, update) => call('updateSession', () => store.updateSession(sessionId, update)),
    listSessions: (listOptions) => call('listSessions', () => store.listSessions(listOptions)),
    appendMessage: (sessionId, message) => call('appendMessage', () => store.appendMessage(sessionId, message)),
    getMessage: (sessionId, seq) => call('getMessage', () => store.getMessage(sessionId, seq)),
    getMessages: (sessionId, getOptions) => call('getMessages', () => store.getMessages(sessionId, getOptions)),
    ...(store.searchMessages ? { searchMessages: (query) => call('searchMessages', () => store.searchMessages!(query)) } : {}),
    ...(store.memoryDocuments ? { memoryDocuments: () => store.memoryDocuments!() } : {}),
    assertWritable: () => call('assertWritable', () => store.assertWritable?.() ?? Promise.resolve()),
    saveToolListing: (digest, listing) => call('saveToolListing', () => store.saveToolListing(digest, listing)),
    getToolListing: (digest) => call('getToolListing', () => store.getToolListing(digest)),
    close: () => store.close(),
  };
}

function activityContext(): Context | undefined {
  try {
    return Context.current();
  } catch {
    return undefined;
  }
}

/** When the running activity's attempt times out, if known. */
function activityDeadline(): number | undefined {
  const info = activityContext()?.info;
  if (!info?.startToCloseTimeoutMs) return undefined;
  return info.currentAttemptScheduledTimestampMs + info.startToCloseTimeoutMs - DEADLINE_MARGIN_MS;
}

function cancelled(): boolean {
  return activityContext()?.cancellationSignal.aborted ?? false;
}

function sleep(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}
