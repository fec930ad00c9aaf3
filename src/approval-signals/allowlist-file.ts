// The permanent allowlist lives in the user's config file (`command_allowlist`). Writes keep
// the rest of the file (comments included), go through a temporary file and a rename, and leave
// the file readable by its owner only.
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { isMap, isSeq, parseDocument } from 'yaml';

const KEY = 'command_allowlist';

export async function readCommandAllowlist(file: string): Promise<string[]> {
  const text = await readFile(file, 'utf8').catch(() => '');
  if (!text.trim()) return [];
  const settings = parseDocument(text).toJS() as Record<string, unknown> | null;
  const list = settings?.[KEY];
  return Array.isArray(list) ? list.filter((entry): entry is string => typeof entry === 'string') : [];
}

/** Adds keys (keeping existing ones); returns the allowlist as written. */
export async function addToCommandAllowlist(file: string, keys: readonly string[]): Promise<string[]> {
  const text = await readFile(file, 'utf8').catch(() => '');
  const document = parseDocument(text || '{}');
  if (!isMap(document.contents)) throw new Error(`${file} does not hold a mapping of settings; not changing it`);
  const current = document.get(KEY);
  const existing = isSeq(current) ? current.items.map((item) => String((item as { value?: unknown }).value ?? item)) : [];
  const merged = [...existing];
  for (const key of keys) if (!merged.includes(key)) merged.push(key);
  document.set(KEY, merged);

  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.tmp-${process.pid}-${Date.now()}`;
  await writeFile(temporary, document.toString(), { mode: 0o600 });
  await chmod(temporary, 0o600);
  await rename(temporary, file);
  return merged;
}
