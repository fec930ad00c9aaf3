// A server's config as the worker uses it: `${ENV_VAR}` placeholders filled from the worker's
// environment (secrets stay on the worker: workflows only ever name the server), the stdio
// environment filtered like the original's, and a hash that keys the connection pool.
import { createHash } from 'node:crypto';
import type { McpServerConfig } from './server-config';

export interface ResolvedServer {
  name: string;
  config: McpServerConfig;
  /** Pool key: the name plus a hash of everything that shapes the connection. */
  key: string;
}

const PLACEHOLDER = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
/** What a stdio server inherits from the worker (plus its own `env`): never the worker's keys. */
const BASE_ENV_NAMES = ['PATH', 'HOME', 'USER', 'LANG', 'LC_ALL', 'TERM', 'SHELL', 'TMPDIR'];

/** Fills `${NAME}` from `env`; an unset variable becomes the empty string. */
export function fillPlaceholders(value: string, env: NodeJS.ProcessEnv): string {
  return value.replace(PLACEHOLDER, (_match, name: string) => env[name] ?? '');
}

export function resolveServer(name: string, config: McpServerConfig, env: NodeJS.ProcessEnv = process.env): ResolvedServer {
  const fill = (value: string) => fillPlaceholders(value, env);
  const fillRecord = (record: Record<string, string>) => Object.fromEntries(Object.entries(record).map(([key, value]) => [key, fill(value)]));
  const resolved: McpServerConfig = {
    ...config,
    ...(config.command !== undefined ? { command: fill(config.command) } : {}),
    args: config.args.map(fill),
    env: fillRecord(config.env),
    ...(config.cwd !== undefined ? { cwd: fill(config.cwd) } : {}),
    ...(config.url !== undefined ? { url: fill(config.url) } : {}),
    headers: fillRecord(config.headers),
  };
  const hash = createHash('sha256').update(JSON.stringify(resolved)).digest('hex').slice(0, 16);
  return { name, config: resolved, key: `${name}#${hash}` };
}

/** The environment a stdio server starts with: the base variables, XDG_*, then its own `env`. */
export function stdioEnvironment(own: Record<string, string>, env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const base: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined && (BASE_ENV_NAMES.includes(key) || key.startsWith('XDG_'))) base[key] = value;
  }
  return { ...base, ...own };
}

/** Where a server lives, for messages: never its headers or env. */
export function describeServer(server: ResolvedServer): string {
  return server.config.url ? `${server.config.url}` : [server.config.command, ...server.config.args].join(' ');
}
