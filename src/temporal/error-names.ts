// Recognises the Temporal client's errors by name, so that a module can tell them apart without
// loading @temporalio/client (half a second) before its command needs a connection.

export function isTemporalError(error: unknown, name: 'WorkflowNotFoundError' | 'WorkflowUpdateFailedError' | 'WorkflowFailedError'): error is Error & { cause?: Error } {
  return error instanceof Error && error.name === name;
}
