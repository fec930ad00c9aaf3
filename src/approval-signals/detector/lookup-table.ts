// Tables looked up by names taken from the command text (program names, subcommands): a plain
// object literal would answer `constructor` or `__proto__` from Object.prototype.

/** `entries` in an object without a prototype, so only its own names are found. */
export function lookupTable<T>(entries: Record<string, T>): Record<string, T> {
  return Object.assign(Object.create(null) as Record<string, T>, entries);
}
