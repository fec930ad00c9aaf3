// The signal an execute_code script's activity sends when its script asks for a tool call. Pure
// definitions shared by the workflow and the activity.
import { defineSignal } from '@temporalio/workflow';

export interface CodeToolCallRequest {
  /** The execute_code call whose script asks. */
  parentCallId: string;
  /** Which of its calls: the request is stored at the seq the workflow reserved for it. */
  index: number;
  /** For the UI only; what runs is the stored request. */
  name: string;
  summary: string;
}

export const codeToolCallSignal = defineSignal<[CodeToolCallRequest]>('codeToolCall');
