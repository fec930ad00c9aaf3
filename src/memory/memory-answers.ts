// The memory tool's answers that carry no logic of their own: the drift refusal, match previews,
// and the decision to rewrite a document.

/** What the tool answers, as the original's result dict (serialised by the tool). */
export type MemoryResponse = Record<string, unknown>;

/** A decision to rewrite the document with these entries. */
export class Rewrite {
  constructor(
    readonly next: string[],
    readonly message: string,
  ) {}
}

export function previewOf(entry: string, width = 80): string {
  return entry.length > width ? `${entry.slice(0, width)}...` : entry;
}

export function driftError(file: string, backupLocation: string): MemoryResponse {
  return {
    success: false,
    error:
      `Refusing to write ${file}: file on disk has content that wouldn't round-trip through the memory tool (likely added by the patch tool, ` +
      `a shell append, a manual edit, or a concurrent session). A snapshot was saved to ${backupLocation}. Resolve the drift first — either ` +
      'rewrite the file as a clean §-delimited list of entries, or move the extra content out — then retry. This guard exists to prevent ' +
      'silent data loss (issue #26045).',
    drift_backup: backupLocation,
    remediation:
      'Open the .bak file, integrate the missing entries into the memory tool one at a time via memory(action=add, content=...), ' +
      'then remove or rewrite the original file to a clean state.',
  };
}
