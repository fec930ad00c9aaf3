// Sessions "in a folder" are those started in it or below it: their cwd is the folder, or starts
// with the folder and a slash (so /work/app does not hold /work/app-old).

/** `folder` with one trailing slash, for a prefix test in SQL; null for no folder. */
export function folderPrefix(folder: string | undefined): string | null {
  if (folder === undefined) return null;
  return folder.endsWith('/') ? folder : `${folder}/`;
}

/** True when `cwd` is `folder` or lies below it. */
export function isInFolder(cwd: string, folder: string): boolean {
  return cwd === folder || cwd.startsWith(folderPrefix(folder) as string);
}
