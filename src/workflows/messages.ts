// Query definitions of the session workflow: typed constants shared by workflow, CLI and tests.
import { defineQuery } from '@temporalio/workflow';
import type { SessionStatus, TranscriptView } from './session-types';

export const statusQuery = defineQuery<SessionStatus>('status');
export const transcriptQuery = defineQuery<TranscriptView>('transcript');
