// Loads configuration from its sources, later ones winning:
// defaults < <home>/config.yaml < ./hermes-temporal.yaml < environment < CLI flags.
// A bad value fails at once, naming the key, the reason and where the value came from.
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { projectTrust, ProjectFileRefused, readProjectFile, type ProjectFile } from './project-trust';
import { configSchema, type HermesConfig, type PartialConfig } from './schema';

export const PROJECT_CONFIG_FILE = 'hermes-temporal.yaml';

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Configuration with every default path filled in. */
export type LoadedConfig = HermesConfig & {
  home: string;
  store: { path: string };
  session: HermesConfig['session'] & { cwd: string };
};

export interface LoadOptions {
  env?: NodeJS.ProcessEnv;
  /** Directory holding the project config file and the default session cwd. */
  projectDir?: string;
  /** Values from CLI flags (highest precedence). */
  flags?: PartialConfig;
}

type Source = { label: string; values: Record<string, unknown> };

/** `HERMES_TEMPORAL_HOME`, else `~/.hermes-temporal`. */
export function hermesHome(env: NodeJS.ProcessEnv = process.env): string {
  return path.resolve(env.HERMES_TEMPORAL_HOME || path.join(os.homedir(), '.hermes-temporal'));
}

export function loadConfig(options: LoadOptions = {}): LoadedConfig {
  const env = options.env ?? process.env;
  const projectDir = path.resolve(options.projectDir ?? process.cwd());
  const home = hermesHome(env);
  const sources: Source[] = [
    readYamlSource(path.join(home, 'config.yaml')),
    trustedProjectSource(path.join(projectDir, PROJECT_CONFIG_FILE), home),
    { label: 'environment', values: environmentValues(env) },
    { label: 'command-line flags', values: (options.flags ?? {}) as Record<string, unknown> },
  ].filter((source): source is Source => source !== undefined);

  const config = validConfig(sources);
  const local = config.terminal.local;
  return {
    ...config,
    home,
    store: { ...config.store, path: path.resolve(withHomeFolder(config.store.path) ?? path.join(home, 'sessions.db')) },
    session: { ...config.session, cwd: path.resolve(projectDir, config.session.cwd ?? '.') },
    temporal: {
      ...config.temporal,
      ...(config.temporal.cli_path ? { cli_path: withHomeFolder(config.temporal.cli_path) } : {}),
      dev_server: { ...config.temporal.dev_server, db_file: withHomeFolder(config.temporal.dev_server.db_file) ?? path.join(home, 'temporal.db') },
    },
    terminal: { ...config.terminal, local: { ...local, ...(local.bwrap_path ? { bwrap_path: withHomeFolder(local.bwrap_path) } : {}) } },
    logging: { ...config.logging, ...(config.logging.file ? { file: withHomeFolder(config.logging.file) } : {}) },
  };
}

/** The sources merged, later ones winning, and checked: a bad value names its key and its source. */
function validConfig(sources: readonly Source[]): HermesConfig {
  const merged: Record<string, unknown> = {};
  const provenance = new Map<string, string>();
  for (const source of sources) mergeInto(merged, source.values, source.label, provenance);

  const parsed = configSchema.safeParse(merged);
  if (parsed.success) return parsed.data;
  const describe = (key: string, reason: string) => {
    const origin = provenanceOf(key, provenance);
    return `  ${key || '(root)'}: ${reason}${origin ? ` (from ${origin})` : ''}`;
  };
  const problems = parsed.error.issues.flatMap((issue) => {
    const key = issue.path.join('.');
    // One line per unknown key, with its full path, so the source of that very key is named.
    if (issue.code === 'unrecognized_keys') return issue.keys.map((name) => describe(key ? `${key}.${name}` : name, 'unknown key'));
    return [describe(key, issue.message.replace(/^Invalid input: /, ''))];
  });
  throw new ConfigError(`Invalid configuration:\n${problems.join('\n')}`);
}

/**
 * `~/...` in a file setting is the user's home folder, as in a shell: taken literally it named a
 * `~` folder under the current one, putting the session store in the agent's workspace.
 */
function withHomeFolder(file: string | undefined): string | undefined {
  if (file === '~') return os.homedir();
  return file?.startsWith('~/') ? path.join(os.homedir(), file.slice(2)) : file;
}

/** Who may answer approvals and start sessions is set only outside the workspace. */
const TRUST_SETTINGS = ['accept_unsigned', 'accept_unsigned_starts', 'approvers'];
/** Whole sections that only trusted sources may set. */
const TRUSTED_SECTIONS = ['plugins', 'hooks'];

/**
 * The project file sits in the session's working directory, where the agent can write: it must
 * not decide who may answer approvals, so those keys are refused there (home config, environment
 * and flags may set them).
 */
function withoutTrustSettings(source: Source | undefined): Source | undefined {
  // An MCP server is a program the worker starts: one the agent could write in would run its code.
  if (source && 'mcp_servers' in source.values) {
    throw new ConfigError(`Invalid configuration:\n  mcp_servers: may not be set in the project file (from ${source.label}); set it in <home>/config.yaml`);
  }
  const approvals = source?.values.approvals;
  const found = isMapping(approvals) ? TRUST_SETTINGS.filter((key) => key in approvals).map((key) => `approvals.${key}`) : [];
  // Plugins and shell hooks run code on the worker, outside the sandbox: never from the project file.
  for (const section of TRUSTED_SECTIONS) if (source && section in source.values) found.push(section);
  if (source && found.length) {
    throw new ConfigError(
      `Invalid configuration:\n${found.map((key) => `  ${key}: may not be set in the project file (from ${source.label}); set it in <home>/config.yaml, the environment or a flag`).join('\n')}`,
    );
  }
  return source;
}

/** The project file's settings, once checked: used as last trusted, never with trust settings. */
function trustedProjectSource(file: string, home: string): Source | undefined {
  const project = openProjectFile(file);
  if (!project) return undefined;
  const trust = projectTrust(home, project);
  if (trust !== 'trusted') {
    const folder = path.dirname(file);
    throw new ConfigError(
      `Invalid configuration: ${file} is ${trust === 'new' ? 'not trusted yet' : 'changed since it was trusted'}. Sessions can write files in its folder, ` +
        `so a project file is used only as you last read and trusted it: check it, then run \`hermes-temporal trust\` in ${folder} ` +
        `(or move its settings to ${path.join(home, 'config.yaml')}).`,
    );
  }
  return withoutTrustSettings(parseYamlSource(file, project.content));
}

/** The project file read once, never through a link (undefined: there is none). */
export function openProjectFile(file: string): ProjectFile | undefined {
  try {
    return readProjectFile(file);
  } catch (error) {
    if (error instanceof ProjectFileRefused) throw new ConfigError(`Invalid configuration: ${error.message}`);
    throw error;
  }
}

/** What `trust` checks before trusting a project file: it parses, sets nothing it may not, and holds only valid values. */
export function checkProjectFile(file: string, content: string): void {
  const source = withoutTrustSettings(parseYamlSource(file, content));
  // Its values on their own, as every run will read them: a file the next command would refuse
  // (an unknown key, a bad value) is refused now, before it is trusted.
  if (source) validConfig([source]);
}

function readYamlSource(file: string): Source | undefined {
  if (!existsSync(file)) return undefined;
  return parseYamlSource(file, readFileSync(file, 'utf8'));
}

function parseYamlSource(file: string, content: string): Source {
  let values: unknown;
  try {
    values = parseYaml(content);
  } catch (error) {
    throw new ConfigError(`Invalid configuration: ${file} is not valid YAML: ${(error as Error).message}`);
  }
  if (values === null || values === undefined) return { label: file, values: {} };
  if (typeof values !== 'object' || Array.isArray(values)) {
    throw new ConfigError(`Invalid configuration: ${file} must contain a mapping of settings`);
  }
  return { label: file, values: values as Record<string, unknown> };
}

type EnvParser = (raw: string) => unknown;
const asString: EnvParser = (raw) => raw;
const asList: EnvParser = (raw) => raw.split(',').map((item) => item.trim()).filter(Boolean);
/** Numbers and booleans as YAML reads them; anything else stays a string for the schema to judge. */
const asScalar: EnvParser = (raw) => {
  try {
    const value: unknown = parseYaml(raw);
    return typeof value === 'number' || typeof value === 'boolean' ? value : raw;
  } catch {
    return raw;
  }
};

/** Well-known variables, for compatibility with OpenAI clients and the original Hermes. */
const ENVIRONMENT_KEYS: Record<string, [key: string, parse: EnvParser]> = {
  OPENAI_API_KEY: ['model.api_key', asString],
  OPENAI_BASE_URL: ['model.base_url', asString],
  HERMES_MODEL: ['model.name', asString],
  TEMPORAL_ADDRESS: ['temporal.address', asString],
  TEMPORAL_NAMESPACE: ['temporal.namespace', asString],
  HERMES_TASK_QUEUE: ['temporal.task_queue', asString],
  TEMPORAL_UI_URL: ['temporal.ui_url', asString],
  TEMPORAL_CLI_PATH: ['temporal.cli_path', asString],
  HERMES_MAX_TURNS: ['session.max_turns', asScalar],
  HERMES_TOOLSETS: ['session.toolsets', asList],
  TERMINAL_ENV: ['terminal.backend', asString],
  TERMINAL_TIMEOUT: ['terminal.timeout_seconds', asScalar],
  TERMINAL_MAX_FOREGROUND_TIMEOUT: ['terminal.max_foreground_timeout_seconds', asScalar],
  HERMES_STORE_PATH: ['store.path', asString],
  HERMES_STORE_POSTGRES_URL: ['store.postgres_url', asString],
  HERMES_LOG_LEVEL: ['logging.level', asString],
  DELEGATION_MAX_CONCURRENT_CHILDREN: ['delegation.max_concurrent_children', asScalar],
  DELEGATION_CHILD_TIMEOUT_SECONDS: ['delegation.child_timeout_seconds', asScalar],
  HERMES_LOG_FORMAT: ['logging.format', asString],
  HERMES_LOG_FILE: ['logging.file', asString],
};

/**
 * Values from the environment: the well-known names above, plus `HERMES__SECTION__KEY=value`
 * for any key (`HERMES__WORKER__SHUTDOWN_GRACE_SECONDS=60`); list values are comma-separated.
 */
function environmentValues(env: NodeJS.ProcessEnv): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const [name, raw] of Object.entries(env)) {
    if (raw === undefined || raw === '') continue;
    const known = ENVIRONMENT_KEYS[name];
    if (known) {
      setPath(values, known[0].split('.'), known[1](raw));
    } else if (name.startsWith('HERMES__')) {
      const keyPath = name.slice('HERMES__'.length).toLowerCase().split('__');
      setPath(values, keyPath, parserFor(keyPath)(raw));
    }
  }
  return values;
}

type JsonSchemaNode = { type?: string; properties?: Record<string, JsonSchemaNode> };
/** Built when a generic variable first needs it: ~20 ms that every command's start-up paid. */
let configJsonSchema: JsonSchemaNode | undefined;

/** Reads a generic variable as its key's type: `a` is a one-item list, `4` a model name. */
function parserFor(keyPath: string[]): EnvParser {
  configJsonSchema ??= z.toJSONSchema(configSchema, { io: 'input' }) as JsonSchemaNode;
  let node: JsonSchemaNode | undefined = configJsonSchema;
  for (const key of keyPath) node = node?.properties?.[key];
  if (node?.type === 'array') return asList;
  if (node?.type === 'string') return asString;
  return asScalar;
}

function setPath(target: Record<string, unknown>, keyPath: string[], value: unknown): void {
  let node = target;
  for (const key of keyPath.slice(0, -1)) {
    const child = node[key];
    node = (node[key] = typeof child === 'object' && child !== null ? child : {}) as Record<string, unknown>;
  }
  node[keyPath[keyPath.length - 1] as string] = value;
}

function mergeInto(
  target: Record<string, unknown>,
  values: Record<string, unknown>,
  label: string,
  provenance: Map<string, string>,
  prefix = '',
): void {
  for (const [key, value] of Object.entries(values)) {
    if (value === undefined) continue;
    const keyPath = prefix ? `${prefix}.${key}` : key;
    const existing = target[key];
    if (isMapping(value)) {
      // Recurse even into a new section, so each key remembers its own source (not the section's).
      if (!isMapping(existing)) {
        target[key] = {};
        provenance.set(keyPath, label);
      }
      mergeInto(target[key] as Record<string, unknown>, value, label, provenance, keyPath);
    } else {
      target[key] = value;
      provenance.set(keyPath, label);
    }
  }
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The source of `key` or of its nearest parent that some source set. */
function provenanceOf(key: string, provenance: Map<string, string>): string | undefined {
  for (let candidate = key; candidate; candidate = candidate.slice(0, Math.max(0, candidate.lastIndexOf('.')))) {
    const origin = provenance.get(candidate);
    if (origin) return origin;
    if (!candidate.includes('.')) break;
  }
  return undefined;
}
