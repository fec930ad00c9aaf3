// The text form of a memory document: entries joined by "\n§\n", limits counted in characters of
// the joined text, and the header the system prompt shows (original Hermes format).
import type { MemoryTarget } from '../store/memory-documents';
import { stripControlCharacters } from '../tools/untrusted-text';
import { MAX_SCAN_CHARS, scanForThreats } from './memory-threats';

export const ENTRY_DELIMITER = '\n§\n';
export const FILE_LABELS: Record<MemoryTarget, string> = { memory: 'MEMORY.md', user: 'USER.md' };


/** Entries of a document, trimmed, empty ones dropped, duplicates kept once (first wins). */
export function parseEntries(text: string): string[] {
  if (!text.trim()) return [];
  const entries = text.split(ENTRY_DELIMITER).map((entry) => entry.trim()).filter(Boolean);
  return [...new Set(entries)];
}

export function joinEntries(entries: readonly string[]): string {
  return entries.join(ENTRY_DELIMITER);
}

export function charCount(entries: readonly string[]): number {
  return entries.length ? joinEntries(entries).length : 0;
}

/** Model-written text as it is kept: control characters removed, carriage returns normalised, trimmed. */
export function cleanEntry(text: string): string {
  return stripControlCharacters(text).trim();
}

export function percentOf(current: number, limit: number): number {
  return limit > 0 ? Math.min(100, Math.floor((current / limit) * 100)) : 0;
}

/** "1,234" as Python's `{n:,}` writes it. */
export function grouped(value: number): string {
  return value.toLocaleString('en-US');
}

/**
 * A file that does not round-trip through the parser, or holds one entry larger than the whole
 * limit, was edited by something else (an editor, a shell append): rewriting it would lose that.
 */
export function hasDrifted(text: string, limit: number): boolean {
  if (!text.trim()) return false;
  const parsed = text.split(ENTRY_DELIMITER).map((entry) => entry.trim()).filter(Boolean);
  const longest = Math.max(0, ...parsed.map((entry) => entry.length));
  return text.trim() !== joinEntries(parsed) || longest > limit;
}

/** Entries as they may be shown to a model: a threat-matching entry becomes a placeholder. */
export function sanitizedEntries(entries: readonly string[], target: MemoryTarget): string[] {
  const file = FILE_LABELS[target];
  return entries.map((entry) => {
    if (entry.startsWith('[BLOCKED:')) return entry;
    if (entry.length > MAX_SCAN_CHARS) {
      return `[BLOCKED: ${file} entry too large to scan (${grouped(entry.length)} chars). Removed from system prompt.]`;
    }
    const findings = scanForThreats(entry);
    return findings.length ? `[BLOCKED: ${file} entry contained threat pattern: ${findings.join(', ')}. Removed from system prompt.]` : entry;
  });
}

/** The block the system prompt shows for one document; '' when it has no entries. */
export function renderBlock(target: MemoryTarget, entries: readonly string[], limit: number): string {
  if (!entries.length) return '';
  let content = joinEntries(entries);
  const current = content.length;
  // Something other than the tool may have grown the file: head and tail keep the prompt bounded.
  const renderCap = Math.max(limit * 2, 4000);
  if (current > renderCap) {
    const head = Math.floor(renderCap * 0.7);
    const tail = Math.floor(renderCap * 0.2);
    content =
      `${content.slice(0, head)}\n\n[... ${grouped(current - head - tail)} chars truncated — memory over budget ` +
      `(${grouped(current)}/${grouped(limit)}); consolidate via memory(action=remove/replace) ...]\n\n${content.slice(-tail)}`;
  }
  const over = current > limit ? ' ⚠ OVER BUDGET' : '';
  const usage = `[${percentOf(current, limit)}% — ${grouped(current)}/${grouped(limit)} chars${over}]`;
  const title = target === 'user' ? 'USER PROFILE (who the user is)' : 'MEMORY (your personal notes)';
  const separator = '═'.repeat(46);
  return `${separator}\n${title} ${usage}\n${separator}\n${content}`;
}
