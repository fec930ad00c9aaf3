// What a person deciding on a file write is shown: how the write changes what is there. A line
// added to the end of a long start-up file (a whole-file write) or of a long replaced text (a
// patch) would otherwise lie past the preview's limit, unseen by whoever approves it.
import type { PathFinding } from '../approval-signals/approval-types';
import type { AssessmentRequest } from '../registry/tool-entry';
import type { Workspace } from '../environments/workspace';
import { unifiedDiff } from '../tools/file-helpers';
import { oneLine, quotedText } from '../approval-signals/shown-call';

/** Larger files are not read to show a change: the new content is shown (and clipped) instead. */
const MAX_DIFF_BASE_BYTES = 4 * 1024 * 1024;

/** The preview of a gated write: the diff of the text it replaces, of the file it overwrites, or else the tool's own; its lines marked as the model's. */
export async function writePreview(request: AssessmentRequest, findings: readonly PathFinding[], workspace: Workspace): Promise<string> {
  const { heading, text } = await previewParts(request, findings, workspace);
  return `${heading ? `${heading}\n` : ''}${quotedText(text)}`;
}

async function previewParts(request: AssessmentRequest, findings: readonly PathFinding[], workspace: Workspace): Promise<{ heading?: string; text: string }> {
  const preview = { text: request.preview ?? '' };
  const change = request.previewChange;
  if (change) {
    const label = findings.find((candidate) => candidate.access === 'write')?.shown ?? 'the file';
    return { heading: `replaces${change.everywhere ? ' every occurrence of' : ''} this text in ${oneLine(label)}:`, text: wholeFileDiff(change.before, change.after) };
  }
  const finding = request.previewReplaces === undefined ? undefined : findings.find((candidate) => candidate.access === 'write' && candidate.path === request.previewReplaces);
  if (!finding) return preview;
  try {
    const info = await workspace.stat(finding.resolved);
    if (!info || info.type !== 'file' || info.size > MAX_DIFF_BASE_BYTES) return preview;
    const before = (await workspace.readFile(finding.resolved)).toString('utf8');
    return { heading: `changes to ${oneLine(finding.shown ?? finding.resolved)} as it is now:`, text: wholeFileDiff(before, preview.text) };
  } catch {
    return preview;
  }
}

/** The hunks of a unified diff from `before` to `after`: the one stretch between what they share at either end. */
export function wholeFileDiff(before: string, after: string): string {
  const shortest = Math.min(before.length, after.length);
  let start = 0;
  while (start < shortest && before[start] === after[start]) start += 1;
  let end = 0;
  while (end < shortest - start && before[before.length - 1 - end] === after[after.length - 1 - end]) end += 1;
  if (start === before.length && start === after.length) return '(no change)';
  const diff = unifiedDiff(before, [{ start, end: before.length - end, replacement: after.slice(start, after.length - end) }], '');
  return diff.split('\n').slice(2).join('\n'); // without the ---/+++ lines: the prompt names the file
}
