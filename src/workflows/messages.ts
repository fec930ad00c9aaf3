// Query and signal definitions of the session workflow: typed constants shared by workflow, CLI and tests.
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { DescendantApprovals, SubagentReport } from './delegation-types';
import type { SessionStatus, TranscriptView } from './session-types';

export const statusQuery = defineQuery<SessionStatus>('status');
export const transcriptQuery = defineQuery<TranscriptView>('transcript');

/** A child session's report, sent to its parent's workflow id when the child ends. */
export const subagentFinishedSignal = defineSignal<[SubagentReport]>('subagentFinished');
/** A descendant's pending approvals changed: sent to the root, which shows them. */
export const descendantApprovalsSignal = defineSignal<[DescendantApprovals]>('descendantApprovals');
/** Lists the session's MCP tools again before its next model call (the original's /reload-mcp). */
export const reloadMcpToolsSignal = defineSignal('reloadMcpTools');
