// A deadline shared by the git runs of one snapshot (or rollback).
export interface Deadline {
  remainingMs(): number;
  passed(): boolean;
}

export function deadlineIn(ms: number): Deadline {
  const end = Date.now() + ms;
  return { remainingMs: () => Math.max(1, end - Date.now()), passed: () => Date.now() >= end };
}
