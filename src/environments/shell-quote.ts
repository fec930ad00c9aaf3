// POSIX single-quote quoting: the one safe way to put arbitrary text into a shell command.

export function shellQuote(value: string): string {
  if (value !== '' && /^[A-Za-z0-9_/.,:=@%+-]+$/.test(value)) return value;
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
