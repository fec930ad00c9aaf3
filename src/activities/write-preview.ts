// What a person deciding on a file write is shown. A whole-file write over a file that exists is
// shown as how it changes that file: a line added to the end of a long start-up file would
// otherwise lie past the preview's limit, unseen by whoever approves it.
import type { PathFinding } from '../approval-signals/approval-types';
import type { AssessmentRequest } from '../registry/tool-entry';
import type { Workspace } from '../environments/workspace';
import { unifiedDiff } from '../tools/file-helpers';

/** Larger files are not read to show a change: the new content is shown (and clipped) instead. */
const MAX_DIFF_BASE_BYTES = 4 * 1024 * 1024;

/** The preview of a gated write: the tool's own, or for a whole-file write over a file, its diff. */
export async function writePreview(request: AssessmentRequest, findings: readonly PathFinding[], workspace: Workspace): Promise<string> {
  const preview = request.preview ?? '';
  const finding = request.previewReplaces === undefined ? undefined : findings.find((candidate) => candidate.access === 'write' && candidate.path === request.previewReplaces);
  if (!finding) return preview;
  try {
    const info = await workspace.stat(finding.resolved);
    if (!info || info.type !== 'file' || info.size > MAX_DIFF_BASE_BYTES) return preview;
    const before = (await workspace.readFile(finding.resolved)).toString('utf8');
    return `changes to ${finding.shown ?? finding.resolved} as it is now:\n${wholeFileDiff(before, preview, finding.shown ?? finding.resolved)}`;
  } catch {
    return preview;
  }
}

/** A unified diff from `before` to `after`: the one stretch between what they share at either end. */
export function wholeFileDiff(before: string, after: string, label: string): string {
  const shortest = Math.min(before.length, after.length);
  let start = 0;
  while (start < shortest && before[start] === after[start]) start += 1;
  let end = 0;
  while (end < shortest - start && before[before.length - 1 - end] === after[after.length - 1 - end]) end += 1;
  if (start === before.length && start === after.length) return '(no change)';
  return unifiedDiff(before, [{ start, end: before.length - end, replacement: after.slice(start, after.length - end) }], label);
}
