// Commands must not see the runtime's own secrets (model keys, tokens) unless a user lists them.

const SECRET_NAME = /(^|_)(API_?KEY|KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?|AUTH|DSN|BEARER|WEBHOOK)$/i;
const ALWAYS_DROPPED = /^(HERMES_TEMPORAL_|TEMPORAL_API_KEY$|TEMPORAL_TLS_)/;

export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name) || ALWAYS_DROPPED.test(name);
}

/** A copy of `env` without secret-looking variables, except those named in `passthrough`. */
export function sanitizeEnvironment(
  env: NodeJS.ProcessEnv,
  passthrough: readonly string[] = [],
): Record<string, string> {
  const allowed = new Set(passthrough);
  const clean: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (isSecretName(name) && !allowed.has(name)) continue;
    clean[name] = value;
  }
  return clean;
}
