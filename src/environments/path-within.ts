// Two questions every guard of the local workspace asks about a path on this machine.
import { realpathSync } from 'node:fs';
import path from 'node:path';

/** True when `target` is `directory` or lies inside it (both absolute). */
export function isWithin(target: string, directory: string): boolean {
  const relative = path.relative(directory, target);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/** Where `target` really is, links followed; the path itself (made absolute) when it cannot be resolved. */
export function realOrSelf(target: string): string {
  try {
    return realpathSync(target);
  } catch {
    return path.resolve(target);
  }
}
