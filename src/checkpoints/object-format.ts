// Repositories name their objects by SHA-1 or, made with `git init --object-format=sha256`, by
// SHA-256; one repository holds only one kind. The shadow repository is SHA-1: the history of a
// SHA-256 repository of the workspace is kept in a second one beside it (`<shadow>/sha256`),
// made on first use with a config of our own, as the first one is.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runShadowGit, type ShadowRepository } from './shadow-git';

export type ObjectFormat = 'sha1' | 'sha256';

/** Hex digits of an object id; bytes of one in a tree or a pack's trailer. */
export const ID_HEX: Record<ObjectFormat, number> = { sha1: 40, sha256: 64 };
export const ID_BYTES: Record<ObjectFormat, number> = { sha1: 20, sha256: 32 };

export function formatOf(repository: Pick<ShadowRepository, 'objectFormat'>): ObjectFormat {
  return repository.objectFormat ?? 'sha1';
}

/**
 * The object format a repository's config names (`extensions.objectFormat`), or undefined for
 * one git may know but this code does not: its history is then not kept, rather than misread.
 */
export function objectFormatOfConfig(config: string): ObjectFormat | undefined {
  let section = '';
  let format = 'sha1';
  for (const line of config.split('\n')) {
    const header = /^\s*\[\s*([A-Za-z0-9.-]+)\s*(?:"[^"]*"\s*)?\]/.exec(line);
    if (header) section = header[1]!.toLowerCase();
    const setting = /^\s*objectformat\s*=\s*"?([A-Za-z0-9]+)"?\s*(?:[#;].*)?$/i.exec(line);
    if (setting && section === 'extensions') format = setting[1]!.toLowerCase();
  }
  return format === 'sha1' || format === 'sha256' ? format : undefined;
}

/** Where the history of a repository of `format` is kept: the shadow repository, or the SHA-256 one beside it. */
export function historyStore(shadow: ShadowRepository, format: ObjectFormat): ShadowRepository {
  return format === 'sha1' ? shadow : { gitDirectory: path.join(shadow.gitDirectory, 'sha256'), workTree: shadow.workTree, objectFormat: 'sha256' };
}

const SHA256_CONFIG = [
  '[core]',
  '\trepositoryformatversion = 1',
  '\tbare = false',
  '\tlogallrefupdates = false',
  '\thooksPath = /dev/null',
  '\tfsmonitor = false',
  '[extensions]',
  '\tobjectformat = sha256',
  '[gc]',
  '\tauto = 0',
  '',
].join('\n');

/** The SHA-256 store, made when missing; its config written again each time (what git obeys there is ours). */
export async function ensureHistoryStore(store: ShadowRepository, timeoutMs: number): Promise<void> {
  if (formatOf(store) === 'sha1') return;
  if (!existsSync(path.join(store.gitDirectory, 'objects'))) {
    mkdirSync(store.gitDirectory, { recursive: true, mode: 0o700 });
    await runShadowGit(store, ['init', '--quiet', '--object-format=sha256', '--template='], { timeoutMs });
  }
  writeFileSync(path.join(store.gitDirectory, 'config'), SHA256_CONFIG, { mode: 0o600 });
}
