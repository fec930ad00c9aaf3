// Oversized tool results are saved to a file in the session's environment and replaced by a
// preview that tells the model where the rest is, so one huge output cannot flood the context.
import os from 'node:os';
import path from 'node:path';
import type { Workspace } from '../environments/workspace';
import { SAVED_RESULTS_FOLDER } from '../environments/runtime-temp-folders';

const PREVIEW_CHARS = 1500;

export function persistedResultPath(sessionId: string, toolCallId: string): string {
  // Ids come from the model too: keep them to one harmless path component.
  const safe = (value: string) => value.replace(/[^A-Za-z0-9_-]/g, '_');
  return path.join(os.tmpdir(), SAVED_RESULTS_FOLDER, safe(sessionId), `${safe(toolCallId)}.txt`);
}

export async function applyResultBudget(
  result: string,
  maxChars: number,
  target: { workspace: Workspace; sessionId: string; toolCallId: string },
): Promise<string> {
  if (result.length <= maxChars) return result;
  const file = persistedResultPath(target.sessionId, target.toolCallId);
  try {
    await target.workspace.writeFile(file, result);
  } catch {
    return `${result.slice(0, maxChars)}\n... [result truncated: ${result.length} characters in total; it could not be saved]`;
  }
  const preview = result.slice(0, PREVIEW_CHARS);
  return [
    '<persisted-output>',
    `This tool result was too large (${result.length.toLocaleString('en-US')} characters, ${formatSize(Buffer.byteLength(result))}).`,
    `Full output saved to: ${file}`,
    'Use the read_file tool with offset and limit to access specific sections of this output.',
    '',
    `Preview (first ${preview.length} chars):`,
    `${preview}${result.length > PREVIEW_CHARS ? '\n...' : ''}`,
    '</persisted-output>',
  ].join('\n');
}

function formatSize(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1)} MB` : `${(bytes / 1024).toFixed(1)} KB`;
}
