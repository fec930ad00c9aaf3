// Text written by a model or a tool that is shown to a model again later (memory, recalled
// sessions): control characters other than newline and tab are dropped, line ends normalised.

// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

export function stripControlCharacters(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(CONTROL_CHARACTERS, '');
}
