// The write_file tool: create or overwrite a whole file. Parent directories are created and the
// write is atomic (the workspace writes a temporary file and renames it).
import { z } from 'zod';
import { register } from '../registry/registry';
import { isCancellation, toolError, toolResult } from '../registry/results';
import { describeFileError, splitLines } from './file-helpers';
import { terminalBackendAvailable } from './terminal-availability';

const writeFileArguments = z.object({
  path: z.string().describe('Path of the file to write (absolute, or relative to the working directory)'),
  content: z.string().describe('The complete new content of the file'),
});

register({
  name: 'write_file',
  toolset: 'file',
  checkFn: terminalBackendAvailable,
  emoji: '✍️',
  schema: writeFileArguments,
  description: [
    'Write content to a file, replacing everything in it. Creates the file and any missing parent directories.',
    'Use this instead of echo/cat heredoc in the terminal. To change part of an existing file, use patch instead.',
  ].join(' '),
  // Only the arguments are known here; the caller resolves the raw path against the workspace.
  concurrency: ({ path }) => ({ mode: 'path', path }),
  assess: ({ path, content }) =>
    typeof path === 'string' ? { writes: [path], ...(typeof content === 'string' ? { preview: content, previewReplaces: path } : {}) } : {},
  handler: async ({ path, content }, context) => {
    const workspace = context.workspace;
    const absolute = workspace.resolve(path);
    try {
      // Checked first: renaming the temporary file onto a directory would fail and leave it behind.
      if ((await workspace.stat(absolute))?.type === 'directory') {
        return toolError(`Could not write ${path}: it is a directory`);
      }
      await workspace.writeFile(absolute, content);
    } catch (error) {
      if (isCancellation(error, context.signal)) throw error;
      return toolError(`Could not write ${path}: ${describeFileError(error)}`);
    }
    return toolResult({
      success: true,
      path: absolute,
      bytes_written: Buffer.byteLength(content, 'utf8'),
      lines: splitLines(content).length,
    });
  },
});
