// Memory text is written by the model and injected into later system prompts: entries that look
// like prompt injection, exfiltration or persistence are refused on write and blocked in the
// snapshot. A short list of the original's "strict" patterns; advisory, so scans are bounded.

/** Longer text is not scanned past this point (an entry that long is blocked outright). */
export const MAX_SCAN_CHARS = 65_536;

const FILLER = String.raw`(?:\w+\s+){0,8}`;
const SECRET_VARIABLE = String.raw`\$\{?\w*(?:KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL)S?\b`;
const MODIFY = String.raw`(?:update|modify|edit|write|change|append|add\s+to)\s+[^\n]{0,2048}`;

const PATTERNS: [RegExp, string][] = [
  [new RegExp(String.raw`ignore\s+${FILLER}(?:previous|all|above|prior)\s+${FILLER}instructions`, 'i'), 'prompt_injection'],
  [/system\s+prompt\s+override/i, 'sys_prompt_override'],
  [new RegExp(String.raw`disregard\s+${FILLER}(?:your|all|any)\s+${FILLER}(?:instructions|rules|guidelines)`, 'i'), 'disregard_rules'],
  [new RegExp(String.raw`do\s+not\s+${FILLER}tell\s+${FILLER}the\s+user`, 'i'), 'deception_hide'],
  [/<!--[^>]{0,512}(?<![A-Za-z])(?:ignore|override|system|secret|hidden)(?![A-Za-z])[^>]{0,512}-->/i, 'html_comment_injection'],
  [new RegExp(String.raw`curl\s+[^\n]{0,2048}${SECRET_VARIABLE}`, 'i'), 'exfil_curl'],
  [new RegExp(String.raw`wget\s+[^\n]{0,2048}${SECRET_VARIABLE}`, 'i'), 'exfil_wget'],
  [/cat\s+[^\n]{0,2048}(?:\.env|credentials|\.netrc|\.pgpass|\.npmrc|\.pypirc)/i, 'read_secrets'],
  [/(?:send|post|upload|transmit)\s+[^\n]{0,2048}\s+(?:to|at)\s+https?:\/\//i, 'send_to_url'],
  [new RegExp(String.raw`(?:include|output|print|share)\s+${FILLER}(?:conversation|chat\s+history|previous\s+messages|full\s+context|entire\s+context)`, 'i'), 'context_exfil'],
  [/authorized_keys/i, 'ssh_backdoor'],
  [/\$HOME\/\.ssh|~\/\.ssh/i, 'ssh_access'],
  [new RegExp(String.raw`${MODIFY}(?:AGENTS\.md|CLAUDE\.md|\.cursorrules|\.clinerules|hermes-temporal\.yaml)`, 'i'), 'agent_config_mod'],
  [/(?:api[_-]?key|token|secret|password)\s*[=:]\s*["'][A-Za-z0-9+/=_-]{20,}/i, 'hardcoded_secret'],
];

/** Zero-width and bidirectional characters that hide text from a human reader. */
const INVISIBLE = new Set([0x200b, 0x200c, 0x200d, 0x2060, 0x2062, 0x2063, 0x2064, 0xfeff, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069]);

/** Ids of the patterns `text` matches (invisible characters as `invisible_unicode_U+XXXX`). */
export function scanForThreats(text: string): string[] {
  const scanned = text.slice(0, MAX_SCAN_CHARS);
  const codes = new Set([...scanned].map((character) => character.codePointAt(0)!).filter((code) => INVISIBLE.has(code)));
  const invisible = [...codes].map((code) => `invisible_unicode_U+${code.toString(16).toUpperCase().padStart(4, '0')}`);
  // NFKC folds full-width look-alikes (ｃａｔ → cat) so they match too.
  const normalised = scanned.normalize('NFKC');
  return [...invisible, ...PATTERNS.filter(([pattern]) => pattern.test(normalised)).map(([, id]) => id)];
}

/** The refusal for a write whose text matches a pattern, or undefined when it is clean. */
export function threatRefusal(text: string): string | undefined {
  const [first] = scanForThreats(text);
  if (!first) return undefined;
  if (first.startsWith('invisible_unicode_')) {
    return `Blocked: content contains invisible unicode character ${first.slice('invisible_unicode_'.length)} (possible injection).`;
  }
  return `Blocked: content matches threat pattern '${first}'. Content is injected into the system prompt and must not contain injection or exfiltration payloads.`;
}
