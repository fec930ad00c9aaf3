// Hides secrets in text before it leaves a tool (transcript, workflow history, the model, CLI
// displays): the worker's secret variables and config secrets by value, and well-known formats.
import type { LoadedConfig } from '../config/load';
import { SECRET_FORMATS, marker, type SecretFormat } from './secret-formats';

/** Plain functions (no `this`): pass `redactor.redact` around freely. */
export interface SecretRedactor {
  /** `text` with every known secret replaced by `[REDACTED:<kind>]`. Never throws. */
  readonly redact: (text: string) => string;
  /**
   * For a command or content the model wrote that a person approves: the secret values this
   * redactor knows hidden, but a well-known format only where what it hides is one plain token
   * (see redactFormats), since the model chooses the text and a private-key block or a
   * `TOKEN=` assignment could otherwise hide what runs.
   */
  readonly redactForApproval: (text: string) => string;
  /** A JSON value with every string in it redacted (objects and arrays copied; other values kept). */
  readonly redactValue: <T>(value: T) => T;
  /** A tool result: JSON results are redacted string by string (so they stay valid JSON), other text as text. */
  readonly redactResult: (text: string) => string;
  /** How many secret values (with their encoded forms) are matched literally; for logs and tests. */
  readonly knownValueCount: number;
}

export interface SecretRedactorOptions {
  /** The worker's (or CLI's) environment: its secret variables are redacted by value. */
  env?: NodeJS.ProcessEnv | Record<string, string | undefined>;
  /** Config secrets (API keys, passwords, tokens) are redacted by value. */
  config?: Partial<Pick<LoadedConfig, 'model' | 'approvals' | 'terminal' | 'store'>>;
  /** More values to hide, each with the label its marker shows. */
  extraSecrets?: readonly { label: string; value: string }[];
}

/** Shorter values are too likely to occur by chance (words, numbers, short ids). */
export const MIN_SECRET_CHARS = 8;
const MAX_DEPTH = 64;

/**
 * Which variables hold secrets, by name: a documented, deliberately broad heuristic.
 * - ends with PASSWORD, PASSWD, SECRET, TOKEN, API_KEY, APIKEY, CREDENTIAL(S) (PGPASSWORD too), or
 *   (after `_` or at the start) with KEY, PAT, PASS, PWD, DSN, AUTH, COOKIE, SIGNATURE, SALT;
 * - contains WEBHOOK or PRIVATE_KEY, or ends with _PEM;
 * - `*_URL` / `*_URI` / `*_ADDR` whose value carries a password (`scheme://user:pass@host`) is
 *   handled by value shape below, like any value that is itself a known key format;
 * - starts with AWS_, GH_, GITHUB_, AZURE_, GOOGLE_, GCP_, HF_, NPM_ when the value looks like a
 *   token (no spaces or slashes at the start, 16+ characters mixing letters and digits, not a
 *   bare hex digest), so AWS_REGION or GITHUB_SHA stay readable.
 */
const SECRET_NAME =
  /(?:PASSWORD|PASSWD|SECRET|TOKEN|API_?KEY|CREDENTIALS?)$|(?:^|_)(?:KEY|PAT|PASS|PWD|DSN|AUTH|COOKIE|SIGNATURE|SALT)$|WEBHOOK|PRIVATE_?KEY|_PEM$/i;
const SECRET_PREFIX = /^(?:AWS|GH|GITHUB|AZURE|GOOGLE|GCP|HF|NPM)_/i;

/** The shell's own directories: `PWD` reads like a password's name but holds a path every tool prints. */
const SHELL_DIRECTORIES = new Set(['PWD', 'OLDPWD']);

export function isSecretVariableName(name: string): boolean {
  return SECRET_NAME.test(name) && !SHELL_DIRECTORIES.has(name.toUpperCase());
}

function looksLikeToken(value: string): boolean {
  return value.length >= 16 && !/\s/.test(value) && !value.startsWith('/') && /[A-Za-z]/.test(value) && /\d/.test(value) && !/^[0-9a-f]+$/i.test(value);
}

interface KnownSecret {
  value: string;
  replacement: string;
}

export function createSecretRedactor(options: SecretRedactorOptions = {}): SecretRedactor {
  const known = collectKnownSecrets(options);

  const redactWith = (formatOptions: FormatOptions) => (text: string): string => {
    if (typeof text !== 'string') return text;
    if (!text) return text;
    try {
      let result = text;
      for (const secret of known) if (result.includes(secret.value)) result = result.split(secret.value).join(secret.replacement);
      return redactFormats(result, formatOptions);
    } catch {
      // A bug here must not leak what it failed to check.
      return `${marker('redaction-failed')} (${text.length} characters withheld)`;
    }
  };
  const redact = redactWith({});
  const redactForApproval = redactWith({ plainTokensOnly: true });

  const redactValue = <T>(value: T): T => redactDeep(value, redact, 0) as T;

  const redactResult = (text: string): string => {
    if (typeof text !== 'string') return text;
    const first = text.trimStart()[0];
    if (first === '{' || first === '[') {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        return redact(text);
      }
      const redacted = redactValue(parsed);
      // Unchanged results keep their exact formatting; changed ones are re-encoded so they stay JSON.
      return sameJson(parsed, redacted) ? text : JSON.stringify(redacted);
    }
    return redact(text);
  };

  return { redact, redactForApproval, redactValue, redactResult, knownValueCount: known.length };
}

/** Longer leading fragments are kept: secrets are shorter, and a long run of output is worth showing. */
const MAX_PARTIAL_WORD = 512;

/**
 * The last `maxChars` of `text`, with the word it cut in two (if any) hidden: a tail that begins
 * inside a secret would show a fragment that redaction no longer recognises.
 */
export function safeTail(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const tail = text.slice(-maxChars);
  const before = text[text.length - maxChars - 1] ?? ' ';
  if (/\s/.test(before) || /^\s/.test(tail)) return tail;
  const wordLength = tail.search(/\s/);
  const length = wordLength < 0 ? tail.length : wordLength;
  return length > MAX_PARTIAL_WORD ? tail : `${marker('partial')}${tail.slice(length)}`;
}

export interface FormatOptions {
  /**
   * Hide only what is one plain token (letters, digits and `._~+/=-`: every key, token and
   * password format fits), never a multi-line block nor text holding spaces or syntax, which
   * could be code: for text the model wrote that a person approves as shown.
   */
  plainTokensOnly?: boolean;
}

const PLAIN_TOKEN = /^[A-Za-z0-9._~+/=-]*$/;
const MARKER_START = marker('').slice(0, -1);

/** Only the well-known formats (no known values): for text redacted where no config is at hand. */
export function redactFormats(text: string, options: FormatOptions = {}): string {
  let lower: string | undefined;
  let result = text;
  for (const format of SECRET_FORMATS) {
    if (format.hints && !hasHint(format, result, () => (lower ??= result.toLowerCase()))) continue;
    const { pattern } = format;
    // A format redacted by a scan (private-key blocks) hides whole lines, and a word cut by a
    // truncation notice may be a whole line too (a program to run): never where code may be.
    if (options.plainTokensOnly && (format.apply || format.kind === 'partial')) continue;
    const next = format.apply
      ? format.apply(result)
      : pattern
        ? result.replace(pattern, (match: string, ...rest: unknown[]) => {
            const replacement = replacementFor(format, rest);
            return options.plainTokensOnly && !PLAIN_TOKEN.test(hiddenPart(match, replacement)) ? match : replacement;
          })
        : result;
    if (next !== result) {
      result = next;
      lower = undefined;
    }
  }
  return result;
}

/** What a replacement hides of `match`: all of it after the part the replacement keeps before its marker. */
function hiddenPart(match: string, replacement: string): string {
  const start = replacement.indexOf(MARKER_START);
  const kept = start < 0 ? '' : replacement.slice(0, start);
  return match.startsWith(kept) ? match.slice(kept.length) : match;
}

function hasHint(format: SecretFormat, text: string, lower: () => string): boolean {
  const insensitive = format.pattern?.flags.includes('i') ?? false;
  return (format.hints ?? []).some((hint) => (insensitive ? lower().includes(hint.toLowerCase()) : text.includes(hint)));
}

function replacementFor(format: SecretFormat, rest: unknown[]): string {
  if (!format.replace) return marker(format.kind);
  // `replace` passes the groups (undefined when a group took no part), then the offset (a number) and the text.
  const captureCount = rest.findIndex((item) => typeof item === 'number');
  const groups = rest.slice(0, captureCount >= 0 ? captureCount : 0).map((item) => (typeof item === 'string' ? item : ''));
  return format.replace(groups);
}

function redactDeep(value: unknown, redact: (text: string) => string, depth: number): unknown {
  if (typeof value === 'string') return redact(value);
  if (depth > MAX_DEPTH || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => redactDeep(item, redact, depth + 1));
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype !== Object.prototype && prototype !== null) return value;
  const copy: Record<string, unknown> = {};
  // Keys too: `jq` output or an env dump may use a secret as a key.
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) copy[redact(key)] = redactDeep(item, redact, depth + 1);
  return copy;
}

function sameJson(left: unknown, right: unknown): boolean {
  return JSON.stringify(left) === JSON.stringify(right);
}

function collectKnownSecrets(options: SecretRedactorOptions): KnownSecret[] {
  const labelled: { label: string; value: string }[] = [];
  const add = (label: string, value: unknown) => {
    if (typeof value !== 'string' || value.length < MIN_SECRET_CHARS) return;
    labelled.push({ label, value });
  };
  const addUrl = (label: string, value: unknown) => {
    if (typeof value !== 'string') return;
    const password = urlPassword(value);
    if (!password) return;
    add(label, value);
    add(`${label}:password`, password);
  };

  for (const [label, value] of configSecrets(options.config)) add(label, value);
  for (const [label, value] of configUrls(options.config)) addUrl(label, value);
  for (const [name, value] of Object.entries(options.env ?? {})) {
    if (typeof value !== 'string' || value.length < MIN_SECRET_CHARS) continue;
    const label = `env:${name}`;
    if (urlPassword(value)) addUrl(label, value);
    else if (isSecretVariableName(name) || (SECRET_PREFIX.test(name) && looksLikeToken(value)) || redactFormats(value) !== value) add(label, value);
  }
  for (const extra of options.extraSecrets ?? []) add(extra.label, extra.value);

  // Each value once (first label wins), with the encoded forms it may appear in.
  const seen = new Set<string>();
  const known: KnownSecret[] = [];
  for (const { label, value } of labelled) {
    const replacement = marker(label);
    for (const form of encodedForms(value)) {
      if (seen.has(form) || form.length < MIN_SECRET_CHARS) continue;
      seen.add(form);
      known.push({ value: form, replacement });
    }
  }
  // Longest first, so a secret that contains another is replaced whole.
  return known.sort((left, right) => right.value.length - left.value.length);
}

/** The value as it may appear: raw, JSON-escaped, URL-encoded, base64 (with and without padding). */
function encodedForms(value: string): string[] {
  const forms = [value];
  const json = JSON.stringify(value).slice(1, -1);
  if (json !== value) forms.push(json);
  const uri = encodeURIComponent(value);
  if (uri !== value) forms.push(uri);
  const base64 = Buffer.from(value, 'utf8').toString('base64');
  forms.push(base64, base64.replace(/=+$/, ''));
  // Multi-line values (PEM files in a variable) also appear with one line per output line only: each long line too.
  if (value.includes('\n')) for (const line of value.split(/\r?\n/)) if (line.trim().length >= 16) forms.push(line.trim());
  return forms;
}

/** The password of `scheme://user:password@host`, decoded, or undefined. */
export function urlPassword(value: string): string | undefined {
  const match = /^[a-z][a-z0-9+.-]*:\/\/[^\s:/?#@]*:([^\s/?#@]+)@/i.exec(value.trim());
  if (!match?.[1]) return undefined;
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return match[1];
  }
}

type ConfigLike = NonNullable<SecretRedactorOptions['config']>;

/** Every secret-bearing key of src/config/schema.ts, with its dotted name. */
function configSecrets(config: ConfigLike | undefined): [string, unknown][] {
  if (!config) return [];
  const terminal = config.terminal;
  const entries: [string, unknown][] = [
    ['config:model.api_key', config.model?.api_key],
    ['config:approvals.webhook.secret', config.approvals?.webhook?.secret],
    ['config:approvals.smart.api_key', config.approvals?.smart?.api_key],
    ['config:terminal.ssh.password', terminal?.ssh?.password],
    ['config:terminal.modal.token_id', terminal?.modal?.token_id],
    ['config:terminal.modal.token_secret', terminal?.modal?.token_secret],
    ['config:terminal.daytona.api_key', terminal?.daytona?.api_key],
    ['config:terminal.vercel_sandbox.token', terminal?.vercel_sandbox?.token],
  ];
  // Variables set for containers are secrets by the same name rule as the worker's own.
  for (const [name, value] of Object.entries(terminal?.docker?.env ?? {})) {
    if (isSecretVariableName(name) || urlPassword(value)) entries.push([`config:terminal.docker.env.${name}`, value]);
  }
  return entries;
}

/** Config URLs that may carry a password in their user-info part. */
function configUrls(config: ConfigLike | undefined): [string, unknown][] {
  if (!config) return [];
  return [
    ['config:store.postgres_url', config.store?.postgres_url],
    ['config:model.base_url', config.model?.base_url],
    ['config:approvals.smart.base_url', config.approvals?.smart?.base_url],
    ['config:approvals.webhook.url', config.approvals?.webhook?.url],
    ['config:terminal.daytona.api_url', config.terminal?.daytona?.api_url],
    ['config:terminal.modal.endpoint', config.terminal?.modal?.endpoint],
  ];
}
