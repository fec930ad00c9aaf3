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

/**
 * The change from `before` to `after`: the unified diff of the one stretch between what they share
 * at either end, or, when that stretch is long (two changes far apart make it the whole file, and
 * the second would lie past what a prompt shows), only the lines that differ.
 */
export function wholeFileDiff(before: string, after: string): string {
  const shortest = Math.min(before.length, after.length);
  let start = 0;
  while (start < shortest && before[start] === after[start]) start += 1;
  let end = 0;
  while (end < shortest - start && before[before.length - 1 - end] === after[after.length - 1 - end]) end += 1;
  if (start === before.length && start === after.length) return '(no change)';
  const diff = unifiedDiff(before, [{ start, end: before.length - end, replacement: after.slice(start, after.length - end) }], '');
  const hunks = diff.split('\n').slice(2).join('\n'); // without the ---/+++ lines: the prompt names the file
  return hunks.length <= MAX_STRETCH_CHARS ? hunks : differingLines(hunks);
}

/** A one-stretch diff longer than this is shown as the lines that differ (a prompt shows ~1,500 characters). */
const MAX_STRETCH_CHARS = 1200;

/**
 * The removed and added lines of a diff, less those that are only moved or kept (`-x` and `+x`
 * cancel out, each as often as it occurs), in order: a line added anywhere is listed.
 */
function differingLines(hunks: string): string {
  const lines = hunks.split('\n');
  const balance = new Map<string, number>();
  for (const line of lines) {
    const sign = line.startsWith('+') ? 1 : line.startsWith('-') ? -1 : 0;
    if (sign) balance.set(line.slice(1), (balance.get(line.slice(1)) ?? 0) + sign);
  }
  const kept: string[] = [];
  let unchanged = 0;
  for (const line of lines) {
    const text = line.slice(1);
    const owed = balance.get(text) ?? 0;
    if ((line.startsWith('+') && owed > 0) || (line.startsWith('-') && owed < 0)) {
      kept.push(line);
      balance.set(text, owed > 0 ? owed - 1 : owed + 1);
    } else if (line.startsWith('+') || line.startsWith(' ')) unchanged += 1; // as it is after the write
  }
  return [`@@ only the lines that differ (${unchanged} lines the change leaves as they were are not shown) @@`, ...kept].join('\n');
}
