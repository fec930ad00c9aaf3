// Text clean-up before parsing. Line continuations are joined the way bash joins them; the
// display normalisation (ANSI escapes, NUL, NFKC) yields a second variant that is classified too,
// because a terminal would show it as that command (the original Hermes normalises the same way).

/** CRLF becomes LF, and backslash-newline pairs (an odd run of backslashes) are removed. */
export function joinLineContinuations(text: string): string {
  const unixText = text.replace(/\r\n/g, '\n');
  if (!unixText.includes('\\\n')) return unixText;
  let result = '';
  let backslashes = 0;
  for (const character of unixText) {
    if (character === '\n' && backslashes % 2 === 1) {
      result = result.slice(0, -1);
      backslashes = 0;
      continue;
    }
    backslashes = character === '\\' ? backslashes + 1 : 0;
    result += character;
  }
  return result;
}

// Control characters are the point of these patterns.
/* eslint-disable no-control-regex */
const ANSI_SEQUENCES = [
  /\x1b\][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?/g, // OSC ... BEL/ST
  /\x1b[PX^_][^\x1b\x9c]*(?:\x1b\\|\x9c)?/g, // DCS, SOS, PM, APC
  /\x1b\[[0-?]*[ -/]*[@-~]/g, // CSI
  /\x9b[0-?]*[ -/]*[@-~]/g, // 8-bit CSI
  /\x9d[^\x07\x9c]*(?:\x07|\x9c)?/g, // 8-bit OSC
  /\x1b[@-Z\\-_]/g, // two-character escapes
  /[\x80-\x9f]/g, // remaining C1 controls
];
/* eslint-enable no-control-regex */

/** What a terminal would display: escape sequences and NUL removed, compatibility forms folded. */
export function normaliseForDisplay(text: string): string {
  let result = text.replace(/\0/g, '');
  for (const pattern of ANSI_SEQUENCES) result = result.replace(pattern, '');
  return result.normalize('NFKC');
}
