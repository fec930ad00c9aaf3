// Recognizes the store faults that lose data when treated as ordinary errors: a full disk (wait
// and retry: space may come back), a store that cannot be written (read-only, unreachable file)
// and a store file deleted or replaced under a running worker (writes would vanish).
export type StoreFaultKind = 'full' | 'read_only' | 'gone';

export class StoreFaultError extends Error {
  constructor(readonly kind: StoreFaultKind, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreFaultError';
  }
}

/** SQLite result codes (better-sqlite3 `code`) and PostgreSQL SQLSTATEs by fault. */
const SQLITE_FULL = new Set(['SQLITE_FULL', 'SQLITE_IOERR_WRITE', 'SQLITE_IOERR_FSYNC', 'SQLITE_IOERR_SHMSIZE']);
const SQLITE_READ_ONLY = /^SQLITE_(READONLY|CANTOPEN|PERM)/;
const POSTGRES_FULL = new Set(['53100', '53200']);
const POSTGRES_READ_ONLY = new Set(['25006', '42501']);

/** The fault an error from a store means, if it is one. */
export function storeFaultOf(error: unknown): StoreFaultKind | undefined {
  if (error instanceof StoreFaultError) return error.kind;
  const code = (error as { code?: unknown } | null)?.code;
  const message = (error as { message?: unknown } | null)?.message;
  if (typeof code === 'string') {
    if (SQLITE_FULL.has(code) || POSTGRES_FULL.has(code)) return 'full';
    if (SQLITE_READ_ONLY.test(code) || POSTGRES_READ_ONLY.has(code)) return 'read_only';
    if (code === 'ENOSPC') return 'full';
    if (code === 'EROFS' || code === 'EACCES') return 'read_only';
  }
  if (typeof message === 'string' && /database or disk is full|No space left on device/i.test(message)) return 'full';
  return undefined;
}
