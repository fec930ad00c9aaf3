// An MCP `tools/call` result as the model reads it, per the original: text blocks joined by
// newlines; images and audio saved to a file and named by a `MEDIA:` tag; resources rendered;
// `{"result": …}` (with `structuredContent` when the server gave one); errors as `{"error": …}`.
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MCP_MEDIA_FOLDER } from '../environments/runtime-temp-folders';

export interface McpContentBlock {
  type: string;
  text?: string;
  data?: string;
  mimeType?: string;
  uri?: string;
  name?: string;
  resource?: { uri?: string; text?: string; blob?: string; mimeType?: string };
}

export interface McpCallResult {
  content?: McpContentBlock[];
  structuredContent?: unknown;
  isError?: boolean;
}

/** Saves base64 media and returns where; tests give their own. */
export type MediaSaver = (data: string, mimeType: string) => string;

export const MCP_ERROR_FALLBACK = 'MCP tool returned an error';

export function mapCallResult(result: McpCallResult, saveMedia: MediaSaver = saveMediaFile): string {
  const blocks = Array.isArray(result.content) ? result.content : [];
  if (result.isError) {
    const text = blocks.map(errorText).filter(Boolean).join('\n');
    return JSON.stringify({ error: text || MCP_ERROR_FALLBACK });
  }
  const text = blocks.map((block) => renderBlock(block, saveMedia)).filter((part) => part !== '').join('\n');
  const structured = result.structuredContent;
  if (structured !== undefined && structured !== null) {
    return JSON.stringify(text ? { result: text, structuredContent: structured } : { result: structured });
  }
  return JSON.stringify({ result: text });
}

function errorText(block: McpContentBlock): string {
  if (block.type === 'text') return block.text ?? '';
  if (block.type === 'resource') return block.resource?.text ?? '';
  return '';
}

function renderBlock(block: McpContentBlock, saveMedia: MediaSaver): string {
  switch (block.type) {
    case 'text':
      return block.text ?? '';
    case 'image':
    case 'audio': {
      const mimeType = block.mimeType ?? (block.type === 'image' ? 'image/png' : 'audio/wav');
      if (!block.data) return `[${block.type}: ${mimeType}, empty]`;
      try {
        return `MEDIA:${saveMedia(block.data, mimeType)}`;
      } catch (error) {
        return `[${block.type}: ${mimeType}, could not be saved: ${error instanceof Error ? error.message : String(error)}]`;
      }
    }
    case 'resource': {
      const resource = block.resource ?? {};
      if (typeof resource.text === 'string') return resource.text;
      return `[resource ${resource.uri ?? ''}: ${resource.mimeType ?? 'binary'}, ${resource.blob ? Math.floor((resource.blob.length * 3) / 4) : 0} bytes]`;
    }
    case 'resource_link':
      return `[resource link: ${block.name ?? ''} ${block.uri ?? ''}]`.replace(/\s+]/, ']');
    default:
      return '';
  }
}

/** Content-addressed, so the same picture twice is one file. */
function saveMediaFile(data: string, mimeType: string): string {
  const directory = path.join(os.tmpdir(), MCP_MEDIA_FOLDER);
  mkdirSync(directory, { recursive: true });
  const bytes = Buffer.from(data, 'base64');
  const extension = (mimeType.split('/')[1] ?? 'bin').replace(/[^a-z0-9]/gi, '') || 'bin';
  const file = path.join(directory, `${createHash('sha256').update(bytes).digest('hex').slice(0, 32)}.${extension}`);
  writeFileSync(file, bytes);
  return file;
}
