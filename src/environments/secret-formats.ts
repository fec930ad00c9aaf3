// Well-known secret formats found in tool output: key prefixes, private-key blocks, URLs with a
// password, credentials in headers and in dotenv/JSON/YAML assignments. Each names its kind.
//
// Hand-written on purpose: @secretlint/core (the maintained candidate) only lints whole files
// asynchronously, ships as ESM for Node >= 22 (this project is CommonJS on Node 20), and reports
// ranges rather than replacing; redaction must run synchronously on every tool result, heartbeat
// and CLI display. @npmcli/redact is synchronous but covers only npm tokens and URL passwords.

export interface SecretFormat {
  /** Named in the marker: `[REDACTED:<kind>]`. */
  kind: string;
  /** Global regular expression; its whole match is replaced unless `replace` keeps some of it. */
  pattern?: RegExp;
  /** Instead of `pattern`: a function that redacts the text in one linear pass (where a regex would backtrack). */
  apply?: (text: string) => string;
  /** Builds the replacement from the match's groups (to keep a key name or a URL's user visible). */
  replace?: (groups: string[]) => string;
  /** Literals of which every match contains one (case-insensitively when `pattern` is): the pattern runs only on text holding one. */
  hints?: readonly string[];
}

export function marker(kind: string): string {
  return `[REDACTED:${kind}]`;
}

/** Key names whose value is a secret in `name=value`, `name: value` or `"name": "value"` form. */
const SECRET_KEY =
  '[A-Za-z0-9_.-]*(?:password|passwd|passphrase|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|auth[_-]?key|credentials?)';
/** Words that stand for a value in docs and code (`password: secret`, `token: string`) rather than being one. */
const PLACEHOLDER_WORDS = [
  'true', 'false', 'null', 'none', 'nil', 'yes', 'no', 'undefined',
  'secret', 'password', 'passwd', 'token', 'changeme', 'example', 'placeholder', 'redacted', 'xxx+',
  'string', 'number', 'boolean', 'any', 'unknown', 'async', 'await', 'new', 'function', 'this', 'self', 'required', 'optional',
].join('|');
/** Values that are not secrets: references, placeholders, markers, masks, booleans. */
const NOT_A_VALUE = String.raw`(?![$\[<{*%^~]|[^\s"']*\.\.\.|(?:${PLACEHOLDER_WORDS})(?![\w-])|your[-_])`;
/** The end of a line after a value (optionally a comment), in raw text or inside a JSON string. */
const LINE_END = String.raw`(?=[ \t]*(?:(?:#|//)[^\n]*)?(?:\r?\n|\\r|\\n|$))`;
/** Nor, in `key = value` lines of source code, expressions: `process.env.X`, `this.token`, `getToken()`. */
const NOT_CODE = String.raw`(?![A-Za-z_$][\w$]*(?:\.[\w$]+)+(?:[\s;,)]|$)|[^\s;]*\()`;

/** Keeps the first group (a key name, a URL's scheme and user) and hides the rest. */
const keepingFirstGroup = (kind: string) => (groups: string[]) => `${groups[0] ?? ''}${marker(kind)}`;
/** An assignment keeps its key; the marker says whether it was a password or another secret. */
const assignmentMarker = (key: string) => marker(/pass|pwd/i.test(key) ? 'password' : 'secret');

/**
 * Order matters: private-key blocks first (their bodies could hold anything), specific token
 * prefixes before the generic shapes (JWT, bearer headers, assignments).
 */
export const SECRET_FORMATS: readonly SecretFormat[] = [
  // Private-key blocks, whole or cut off at either end: by a linear scan (see below).
  { kind: 'private-key', apply: redactPrivateKeys, hints: ['PRIVATE KEY'] },
  {
    kind: 'partial',
    // The words a truncation notice cut in two: a fragment of a secret is no longer recognisable.
    // Longer runs are kept: secrets are shorter, and a long run of output is worth showing.
    pattern: /(?<![^\s"'\\])[^\s"'\\]{4,512}(?=(?:\n|\\n){2}\.\.\. \[OUTPUT TRUNCATED - )/g,
    hints: ['OUTPUT TRUNCATED'],
  },
  {
    kind: 'partial',
    pattern: /(\[OUTPUT TRUNCATED - [\d,]+ chars omitted out of [\d,]+ total\] \.\.\.(?:\n|\\n){2})[^\s"'\\]{4,512}(?![^\s"'\\])/g,
    replace: (groups) => `${groups[0] ?? ''}${marker('partial')}`,
    hints: ['OUTPUT TRUNCATED'],
  },
  { kind: 'anthropic-key', pattern: /(?<![A-Za-z0-9_-])sk-ant-[A-Za-z0-9_-]{20,}/g, hints: ['sk-ant-'] },
  {
    kind: 'openai-key',
    // sk-, sk-proj-, sk-svcacct-, sk-admin-: a long body with at least one digit (slugs such as sk-learn-... stay).
    pattern: /(?<![A-Za-z0-9_-])sk-(?=[A-Za-z_-]*[0-9])[A-Za-z0-9_-]{20,}/g,
    hints: ['sk-'],
  },
  { kind: 'github-token', pattern: /(?<![A-Za-z0-9_])(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255}/g, hints: ['gh'] },
  { kind: 'github-token', pattern: /(?<![A-Za-z0-9_])github_pat_[A-Za-z0-9_]{22,255}/g, hints: ['github_pat_'] },
  { kind: 'gitlab-token', pattern: /(?<![A-Za-z0-9_-])glpat-[A-Za-z0-9_-]{20,}/g, hints: ['glpat-'] },
  { kind: 'aws-access-key-id', pattern: /(?<![A-Z0-9])(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Z0-9])/g },
  {
    kind: 'aws-secret-key',
    pattern: /(aws_?secret_?access_?key|secretaccesskey)(\\?["']?\s*[:=]\s*\\?["']?)[A-Za-z0-9/+=]{40}(?![A-Za-z0-9/+=])/gi,
    replace: (groups) => `${groups[0]}${groups[1]}${marker('aws-secret-key')}`,
    hints: ['secret'],
  },
  { kind: 'slack-token', pattern: /(?<![A-Za-z0-9])xox[abposr]-[A-Za-z0-9-]{10,}/g, hints: ['xox'] },
  {
    kind: 'slack-webhook',
    pattern: /(https:\/\/hooks\.slack\.com\/)(?:services|workflows|triggers)\/[A-Za-z0-9/_-]+/g,
    replace: keepingFirstGroup('slack-webhook'),
    hints: ['hooks.slack.com'],
  },
  { kind: 'google-api-key', pattern: /(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}/g, hints: ['AIza'] },
  { kind: 'stripe-key', pattern: /(?<![A-Za-z0-9])(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}/g, hints: ['_live_', '_test_'] },
  { kind: 'npm-token', pattern: /(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])/g, hints: ['npm_'] },
  { kind: 'huggingface-token', pattern: /(?<![A-Za-z0-9_])hf_[A-Za-z0-9]{34,}/g, hints: ['hf_'] },
  { kind: 'groq-key', pattern: /(?<![A-Za-z0-9_])gsk_[A-Za-z0-9]{48,}/g, hints: ['gsk_'] },
  { kind: 'sendgrid-key', pattern: /(?<![A-Za-z0-9])SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}/g, hints: ['SG.'] },
  { kind: 'jwt', pattern: /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*/g, hints: ['eyJ'] },
  {
    kind: 'url-password',
    // scheme://user:password@host: the user stays, the password goes.
    // The match starts at `://` (rare in text) rather than at every word, which keeps it fast.
    // Documentation placeholders (`user:password@`, `:***@`) stay.
    pattern: /(:\/\/(?<=[a-z0-9+.-]:\/\/)[^\s:/?#@"'\\]*:)(?!(?:password|passwd|pass|pwd|secret|\*+|x+|\.\.\.)@|<|\[REDACTED:)[^\s/?#@"'\\]+(?=@)/gi,
    replace: keepingFirstGroup('url-password'),
    hints: ['://'],
  },
  {
    kind: 'authorization',
    pattern: /\b(Authorization\\?["']?\s*[:=]\s*\\?["']?(?:Bearer|Basic|token|Token|Digest)\s+)[A-Za-z0-9._~+/=-]{8,}/gi,
    replace: keepingFirstGroup('authorization'),
    hints: ['authorization'],
  },
  { kind: 'bearer-token', pattern: /\b(Bearer\s+)(?!\[REDACTED)[A-Za-z0-9._~+/=-]{16,}/g, replace: keepingFirstGroup('bearer-token'), hints: ['Bearer'] },
  {
    kind: 'secret',
    // "password": "..." / 'token': '...' (JSON, YAML, Python), with the quotes escaped too (JSON inside JSON).
    pattern: new RegExp(`([:=](?<=\\\\?["'](${SECRET_KEY})\\\\?["'][ \\t]*[:=])[ \\t]*\\\\?["'])${NOT_A_VALUE}[^"'\\n\\\\]{1,500}(?=\\\\?["'])`, 'gi'),
    replace: (groups) => `${groups[0] ?? ''}${assignmentMarker(groups[1] ?? '')}`,
  },
  {
    kind: 'secret',
    // PASSWORD=..., --password=..., ?token=...&: dotenv, shell and query strings, to the end of the word.
    // The match starts at `=` and looks back for the key, which is much faster than trying every word.
    pattern: new RegExp(`(=(?<=(?:^|[\\s,{;&?(])(?:export[ \\t]+)?(${SECRET_KEY})=))${NOT_A_VALUE}${NOT_CODE}[^\\s"',;&)\\\\]{3,500}`, 'gi'),
    replace: (groups) => `${groups[0] ?? ''}${assignmentMarker(groups[1] ?? '')}`,
  },
  {
    kind: 'secret',
    // `password = value` (ini files): the value must end its line, so code such as `token = parts[1];` stays.
    pattern: new RegExp(`(=(?<=(?:^|\\n)[ \\t]*(${SECRET_KEY})[ \\t]+=)[ \\t]+)${NOT_A_VALUE}(?!\\2(?![\\w-]))${NOT_CODE}[^\\s"',;&)\\\\]{3,500}${LINE_END}`, 'gi'),
    replace: (groups) => `${groups[0] ?? ''}${assignmentMarker(groups[1] ?? '')}`,
  },
  {
    kind: 'secret',
    // YAML `password: ...` alone on its line (prose such as "fix token: refresh" and code stay).
    pattern: new RegExp(`(:(?<=(?:^|\\n)[ \\t]*(?:- )?(${SECRET_KEY}):)[ \\t]+)${NOT_A_VALUE}(?!\\2(?![\\w-]))${NOT_CODE}[^\\s"'#,;\\\\]{3,500}${LINE_END}`, 'gi'),
    replace: (groups) => `${groups[0] ?? ''}${assignmentMarker(groups[1] ?? '')}`,
  },
];

const BEGIN = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----/g;
const END = /-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----/g;
/** What follows a BEGIN line in a block cut off before its END: headers and base64 lines. */
const BLOCK_BODY = /(?:(?:\s|\\r|\\n)+(?:[A-Za-z][A-Za-z-]*: [^\r\n\\]*|[A-Za-z0-9+/=]+))*/y;
const BASE64_CHAR = /[A-Za-z0-9+/=]/;

/**
 * Replaces BEGIN...END blocks, a BEGIN whose END was cut off (up to where the key text stops), and
 * the base64 lines before an END whose BEGIN was cut off (an output tail). Each position is looked
 * at a bounded number of times, whatever the text: no regex backtracking over large outputs.
 */
export function redactPrivateKeys(text: string): string {
  const parts: string[] = [];
  let position = 0;
  // Once a search finds nothing, nothing lies further on either: never search that stretch again.
  let noMoreBegin = false;
  let noMoreEnd = false;
  for (;;) {
    BEGIN.lastIndex = position;
    const begin: RegExpExecArray | null = noMoreBegin ? null : BEGIN.exec(text);
    END.lastIndex = position;
    const end: RegExpExecArray | null = noMoreEnd ? null : END.exec(text);
    noMoreBegin ||= !begin;
    noMoreEnd ||= !end;
    if (end && (!begin || end.index < begin.index)) {
      // An END with no BEGIN before it: hide the key lines just above it.
      const start = Math.max(position, startOfKeyLines(text, end.index));
      parts.push(text.slice(position, start), marker('private-key'));
      position = end.index + end[0].length;
      continue;
    }
    if (!begin) break;
    if (end) {
      parts.push(text.slice(position, begin.index), marker('private-key'));
      position = end.index + end[0].length;
      continue;
    }
    // No END anywhere after this BEGIN (nor after any later one): hide what follows while it looks like key text.
    BLOCK_BODY.lastIndex = begin.index + begin[0].length;
    BLOCK_BODY.exec(text);
    parts.push(text.slice(position, begin.index), marker('private-key'));
    position = Math.max(BLOCK_BODY.lastIndex, begin.index + begin[0].length);
  }
  parts.push(text.slice(position));
  return parts.join('');
}

/** Where the base64 lines that end at `endIndex` start (the last one may be short, the others are full lines). */
function startOfKeyLines(text: string, endIndex: number): number {
  let start = endIndex;
  let cursor = endIndex;
  for (let line = 0; line < 200; line++) {
    // Separators: whitespace, or `\n` / `\r` escaped inside a JSON string.
    let separator = cursor;
    for (;;) {
      const previous = text[separator - 1];
      if (previous !== undefined && /\s/.test(previous)) separator -= 1;
      else if ((previous === 'n' || previous === 'r') && text[separator - 2] === '\\') separator -= 2;
      else break;
    }
    if (separator === cursor && line > 0) break;
    let tokenStart = separator;
    while (tokenStart > 0 && BASE64_CHAR.test(text[tokenStart - 1] ?? '')) tokenStart -= 1;
    // The letter of an escaped separator (`\n` in JSON) belongs to the separator, not to the line.
    if (text[tokenStart - 1] === '\\' && (text[tokenStart] === 'n' || text[tokenStart] === 'r')) tokenStart += 1;
    const length = separator - tokenStart;
    if (length <= 0 || (line > 0 && length < 16)) break;
    start = tokenStart;
    cursor = tokenStart;
  }
  return start;
}
