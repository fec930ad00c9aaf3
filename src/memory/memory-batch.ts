// One batch of memory operations applied to a working copy of the entries: the first malformed or
// unmatched operation aborts the whole batch (the caller writes nothing), duplicate adds are skipped.
import { cleanEntry } from './memory-entries';

export interface MemoryOperation {
  action?: string;
  content?: string;
  old_text?: string;
}

export function applyOperations(entries: readonly string[], operations: readonly MemoryOperation[]): { entries: string[] } | { error: string } {
  const working = [...entries];
  for (const [index, operation] of operations.entries()) {
    const action = operation.action;
    const content = cleanEntry(operation.content ?? '');
    const oldText = (operation.old_text ?? '').trim();
    const position = `Operation ${index + 1} (${action || 'unknown'})`;
    if (action === 'add') {
      if (!content) return { error: `${position}: content is required.` };
      if (!working.includes(content)) working.push(content);
      continue;
    }
    if (action !== 'replace' && action !== 'remove') return { error: `${position}: unknown action. Use add, replace, or remove.` };
    if (!oldText) return { error: `${position}: old_text is required.` };
    if (action === 'replace' && !content) return { error: `${position}: content is required (use action='remove' to delete).` };
    const matches = working.flatMap((entry, at) => (entry.includes(oldText) ? [at] : []));
    if (!matches.length) return { error: `${position}: no entry matched '${oldText}'.` };
    if (new Set(matches.map((at) => working[at])).size > 1) {
      return { error: `${position}: '${oldText}' matched multiple distinct entries -- be more specific.` };
    }
    if (action === 'replace') working[matches[0]!] = content;
    else working.splice(matches[0]!, 1);
  }
  return { entries: working };
}
