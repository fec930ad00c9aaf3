// The memory semantics of the original Hermes (tools/memory_tool.py): add / replace / remove and
// all-or-nothing batches on two bounded documents, each change made on the text as it is now on
// disk (or in the database), so sessions and workers writing at once never lose each other's notes.
import type { MemoryDocuments, MemoryTarget } from '../store/memory-documents';
import { driftError, type MemoryResponse, previewOf, Rewrite } from './memory-answers';
import { applyOperations, type MemoryOperation } from './memory-batch';
import { charCount, cleanEntry, FILE_LABELS, grouped, hasDrifted, joinEntries, parseEntries, percentOf, renderBlock, sanitizedEntries } from './memory-entries';
import { threatRefusal } from './memory-threats';

export interface MemorySettings {
  memoryEnabled: boolean;
  userProfileEnabled: boolean;
  memoryCharLimit: number;
  userCharLimit: number;
}

export const DEFAULT_MEMORY_SETTINGS: MemorySettings = { memoryEnabled: true, userProfileEnabled: true, memoryCharLimit: 2200, userCharLimit: 1375 };

export type { MemoryResponse };

const failure = (error: string, extra: Record<string, unknown> = {}): MemoryResponse => ({ success: false, error, ...extra });

export class MemoryStore {
  constructor(
    private readonly documents: MemoryDocuments,
    readonly settings: MemorySettings = DEFAULT_MEMORY_SETTINGS,
  ) {}

  isEnabled(target: MemoryTarget): boolean {
    return target === 'user' ? this.settings.userProfileEnabled : this.settings.memoryEnabled;
  }

  limitOf(target: MemoryTarget): number {
    return target === 'user' ? this.settings.userCharLimit : this.settings.memoryCharLimit;
  }

  /** The live entries of a document. */
  async entries(target: MemoryTarget): Promise<string[]> {
    return parseEntries(await this.documents.read(target));
  }

  /** The blocks for a new session's system prompt, taken once: later writes never change it. */
  async snapshot(): Promise<string> {
    const blocks: string[] = [];
    for (const target of ['memory', 'user'] as const) {
      if (!this.isEnabled(target)) continue;
      const entries = sanitizedEntries((await this.entries(target)).map(cleanEntry).filter(Boolean), target);
      const block = renderBlock(target, entries, this.limitOf(target));
      if (block) blocks.push(block);
    }
    return blocks.join('\n\n');
  }

  async add(target: MemoryTarget, rawContent: string): Promise<MemoryResponse> {
    const content = cleanEntry(rawContent);
    if (!content) return failure('Content cannot be empty.');
    const refusal = threatRefusal(content);
    if (refusal) return failure(refusal);
    // Appending keeps what is there, so add skips the drift guard (as the original does).
    return this.documents.update(target, (text) => {
      const entries = parseEntries(text);
      if (entries.includes(content)) return { result: this.success(target, entries, 'Entry already exists (no duplicate added).') };
      const limit = this.limitOf(target);
      const next = [...entries, content];
      if (charCount(next) > limit) {
        const current = charCount(entries);
        return {
          result: failure(
            `Memory at ${grouped(current)}/${grouped(limit)} chars. Adding this entry (${content.length} chars) would exceed the limit. ` +
              "Consolidate now: use 'replace' to merge overlapping entries into shorter ones or 'remove' stale or less important entries " +
              '(see current_entries below), then retry this add — all in this turn.',
            this.inventory(target, entries),
          ),
        };
      }
      return { write: joinEntries(next), result: this.success(target, next, 'Entry added.') };
    });
  }

  async replace(target: MemoryTarget, rawOldText: string, rawContent: string): Promise<MemoryResponse> {
    const oldText = rawOldText.trim();
    const content = cleanEntry(rawContent);
    if (!oldText) return failure('old_text cannot be empty.');
    if (!content) return failure("new_content cannot be empty. Use 'remove' to delete entries.");
    const refusal = threatRefusal(content);
    if (refusal) return failure(refusal);
    return this.rewrite(target, (entries) => {
      const found = this.findOne(target, entries, oldText, 'replace');
      if ('error' in found) return found.error;
      const next = entries.map((entry, index) => (index === found.index ? content : entry));
      const limit = this.limitOf(target);
      if (charCount(next) > limit) {
        return failure(
          `Replacement would put memory at ${grouped(charCount(next))}/${grouped(limit)} chars. Shorten the new content, or 'remove' other ` +
            'stale or less important entries to make room (see current_entries below), then retry — all in this turn.',
          this.inventory(target, entries),
        );
      }
      return new Rewrite(next, 'Entry replaced.');
    });
  }

  async remove(target: MemoryTarget, rawOldText: string): Promise<MemoryResponse> {
    const oldText = rawOldText.trim();
    if (!oldText) return failure('old_text cannot be empty.');
    return this.rewrite(target, (entries) => {
      const found = this.findOne(target, entries, oldText, 'remove');
      if ('error' in found) return found.error;
      return new Rewrite(entries.filter((_, index) => index !== found.index), 'Entry removed.');
    });
  }

  async applyBatch(target: MemoryTarget, operations: readonly MemoryOperation[]): Promise<MemoryResponse> {
    if (!operations.length) return failure('operations list is empty.');
    for (const [index, operation] of operations.entries()) {
      if ((operation.action === 'add' || operation.action === 'replace') && operation.content) {
        const refusal = threatRefusal(cleanEntry(operation.content));
        if (refusal) return failure(`Operation ${index + 1}: ${refusal}`);
      }
    }
    return this.rewrite(target, (entries) => {
      const outcome = applyOperations(entries, operations);
      if ('error' in outcome) {
        return failure(`${outcome.error} No operations were applied (batch is all-or-nothing).`, this.inventory(target, entries));
      }
      const limit = this.limitOf(target);
      const total = charCount(outcome.entries);
      if (total > limit) {
        return failure(
          `After applying all ${operations.length} operations, memory would be at ${grouped(total)}/${grouped(limit)} chars -- over the limit. ` +
            'Remove or shorten more entries in the same batch (see current_entries below), then retry.',
          this.inventory(target, entries),
        );
      }
      return new Rewrite(outcome.entries, `Applied ${operations.length} operation(s).`);
    });
  }

  /** The recoverable answer to a replace/remove that came without old_text. */
  async missingOldText(target: MemoryTarget, action: 'replace' | 'remove'): Promise<MemoryResponse> {
    return failure(
      `'${action}' needs old_text -- a short unique substring of the entry to ${action}. None was provided. ` +
        `Reissue the ${action} with old_text set to part of one of the current_entries below.`,
      this.inventory(target, await this.entries(target)),
    );
  }

  /** A whole-document rewrite, refused when the stored text was changed by something else. */
  private rewrite(target: MemoryTarget, decide: (entries: string[]) => MemoryResponse | Rewrite): Promise<MemoryResponse> {
    return this.documents.update(target, async (text, backup) => {
      if (hasDrifted(text, this.limitOf(target))) return { result: driftError(FILE_LABELS[target], await backup()) };
      const decided = decide(parseEntries(text));
      if (!(decided instanceof Rewrite)) return { result: decided };
      return { write: joinEntries(decided.next), result: this.success(target, decided.next, decided.message) };
    });
  }

  private findOne(target: MemoryTarget, entries: string[], oldText: string, action: 'replace' | 'remove'): { index: number } | { error: MemoryResponse } {
    const matches = entries.flatMap((entry, index) => (entry.includes(oldText) ? [index] : []));
    if (!matches.length) {
      return {
        error: failure(
          `No entry matched '${oldText}'. Check current_entries below and retry with the exact text of the entry you want to ${action}.`,
          { current_entries: sanitizedEntries(entries, target) },
        ),
      };
    }
    const distinct = new Set(matches.map((index) => entries[index]!));
    if (distinct.size > 1) {
      const matchesPreview = matches.map((index) => previewOf(entries[index]!));
      return { error: failure(`Multiple entries matched '${oldText}'. Be more specific.`, { matches: matchesPreview }) };
    }
    return { index: matches[0]! };
  }

  /** Entries (threat-sanitised, so a poisoned entry cannot re-enter through an error) and usage. */
  private inventory(target: MemoryTarget, entries: string[]): Record<string, unknown> {
    return { current_entries: sanitizedEntries(entries, target), usage: `${grouped(charCount(entries))}/${grouped(this.limitOf(target))}` };
  }

  private success(target: MemoryTarget, entries: string[], message: string): MemoryResponse {
    const current = charCount(entries);
    const limit = this.limitOf(target);
    return {
      success: true,
      done: true,
      target,
      usage: `${percentOf(current, limit)}% — ${grouped(current)}/${grouped(limit)} chars`,
      entry_count: entries.length,
      message,
      note: 'Write saved. This update is complete — do not repeat it.',
    };
  }
}
