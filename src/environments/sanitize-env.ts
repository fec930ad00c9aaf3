// What a command's environment is built from: an allowlist of harmless names, plus the names a
// user lists in `terminal.env_passthrough`. Nothing else of the worker's environment (model keys,
// database URLs, tokens) reaches a command, whatever its name looks like.

/** Variables every command may see: locale, terminal, identity and the usual directories. */
const ALLOWED_NAMES = new Set(['PATH', 'HOME', 'USER', 'LOGNAME', 'LANG', 'LANGUAGE', 'TERM', 'TZ', 'TMPDIR', 'SHELL', 'COLORTERM']);
const ALLOWED_PREFIX = /^LC_[A-Z_]+$/;

export function isAllowedName(name: string): boolean {
  return ALLOWED_NAMES.has(name) || ALLOWED_PREFIX.test(name);
}

/** A copy of `env` holding only the allowlisted variables and those named in `passthrough`. */
export function sanitizeEnvironment(env: NodeJS.ProcessEnv, passthrough: readonly string[] = []): Record<string, string> {
  const passed = new Set(passthrough);
  const clean: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (isAllowedName(name) || passed.has(name)) clean[name] = value;
  }
  return clean;
}
