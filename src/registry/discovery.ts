// Finds the built-in tool modules by reading the tools folder: a module is loaded only when its
// source calls `register(` at top level, so helper modules stay unloaded. One broken module is
// logged and skipped; the others still load.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { silentLogger, type Logger } from '../logging';

export const BUILTIN_TOOLS_DIR = path.join(__dirname, '..', 'tools');

export interface DiscoveryResult {
  loaded: string[];
  failed: { module: string; error: string }[];
}

export function discoverBuiltinTools(toolsDir = BUILTIN_TOOLS_DIR, logger: Logger = silentLogger): DiscoveryResult {
  const result: DiscoveryResult = { loaded: [], failed: [] };
  for (const file of toolModuleFiles(toolsDir)) {
    const modulePath = path.join(toolsDir, file);
    let source: string;
    try {
      source = readFileSync(modulePath, 'utf8');
    } catch {
      continue;
    }
    if (!registersAtTopLevel(source)) continue;
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      require(modulePath);
      result.loaded.push(file);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      logger.warn({ module: file, err: error }, `Could not import tool module ${file}: ${message}`);
      result.failed.push({ module: file, error: message });
    }
  }
  return result;
}

/** Source files of a tools folder: `.ts` when running from source, `.js` when compiled. */
function toolModuleFiles(toolsDir: string): string[] {
  const files = readdirSync(toolsDir).filter((file) => /\.(ts|js)$/.test(file) && !/\.(d|test|spec)\.ts$/.test(file));
  const hasTypeScript = files.some((file) => file.endsWith('.ts'));
  return files.filter((file) => file.endsWith(hasTypeScript ? '.ts' : '.js')).sort();
}

/**
 * True when the source has a `register(...)` call outside every function, class and block: a
 * plain `register(`, a member call `x.register(`, or the `(0, x.register)(` form that TypeScript
 * emits for imported functions. Comments and string literals are ignored.
 */
export function registersAtTopLevel(source: string): boolean {
  const code = blankCommentsAndStrings(source);
  const depth = braceDepths(code);
  const callPattern = /(\(\s*0\s*,\s*)?(?:[\w$]+\s*\.\s*)?\bregister\b\s*(\)\s*)?\(/g;
  for (let match = callPattern.exec(code); match; match = callPattern.exec(code)) {
    const commaForm = Boolean(match[1]);
    if (commaForm !== Boolean(match[2])) continue;
    if (depth[match.index] !== 0) continue;
    const before = code.slice(0, match.index).trimEnd();
    if (before.endsWith('=>') || /\bfunction\s*[\w$]*\s*$/.test(before) || before.endsWith('.')) continue;
    return true;
  }
  return false;
}

/** For each character, how many `{`/`(`/`[` are open around it. */
function braceDepths(code: string): Uint32Array {
  const depths = new Uint32Array(code.length + 1);
  let depth = 0;
  for (let index = 0; index < code.length; index += 1) {
    const char = code[index];
    if (char === '}' || char === ')' || char === ']') depth = Math.max(0, depth - 1);
    depths[index] = depth;
    if (char === '{' || char === '(' || char === '[') depth += 1;
  }
  depths[code.length] = depth;
  return depths;
}

/** Replaces comments and the contents of string and template literals with spaces. */
function blankCommentsAndStrings(source: string): string {
  const out = source.split('');
  let index = 0;
  const blank = (from: number, to: number) => {
    for (let position = from; position < to; position += 1) if (out[position] !== '\n') out[position] = ' ';
  };
  while (index < source.length) {
    const char = source[index];
    const next = source[index + 1];
    if (char === '/' && next === '/') {
      const end = source.indexOf('\n', index);
      const stop = end === -1 ? source.length : end;
      blank(index, stop);
      index = stop;
    } else if (char === '/' && next === '*') {
      const end = source.indexOf('*/', index + 2);
      const stop = end === -1 ? source.length : end + 2;
      blank(index, stop);
      index = stop;
    } else if (char === '"' || char === "'" || char === '`') {
      let position = index + 1;
      while (position < source.length && source[position] !== char) position += source[position] === '\\' ? 2 : 1;
      blank(index + 1, position);
      index = position + 1;
    } else if (char === '/' && regexCanStart(out, index)) {
      const end = regexLiteralEnd(source, index);
      if (end !== -1) blank(index + 1, end);
      index = end === -1 ? index + 1 : end + 1;
    } else {
      index += 1;
    }
  }
  return out.join('');
}

/** A `/` starts a regex literal (not a division) after an operator, an opening bracket or a keyword. */
function regexCanStart(code: string[], slash: number): boolean {
  let position = slash - 1;
  while (position >= 0 && /\s/.test(code[position] ?? '')) position -= 1;
  if (position < 0) return true;
  const previous = code[position] ?? '';
  if ('([{,;:=!&|?+-*%<>~^'.includes(previous)) return true;
  const word = /[\w$]+$/.exec(code.slice(Math.max(0, position - 11), position + 1).join(''))?.[0];
  return word !== undefined && /^(return|typeof|instanceof|in|of|new|delete|void|throw|case|do|else|yield|await)$/.test(word);
}

/** Index of the `/` that closes the regex literal opened at `slash`, or -1 when none closes it on that line. */
function regexLiteralEnd(source: string, slash: number): number {
  let inClass = false;
  for (let position = slash + 1; position < source.length; position += 1) {
    const char = source[position];
    if (char === '\\') position += 1;
    else if (char === '\n') return -1;
    else if (char === '[') inClass = true;
    else if (char === ']') inClass = false;
    else if (char === '/' && !inClass) return position;
  }
  return -1;
}
