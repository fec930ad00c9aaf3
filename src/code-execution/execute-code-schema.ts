// The execute_code schema, rebuilt for the tools that survived filtering (SPEC §3 step 5): the
// description documents only the tools the session can call. Pure function of the tool list.
import type { FunctionSchema } from '../registry/tool-entry';
import { CODE_CALLABLE_TOOLS, CODE_LIMITS } from './callable-tools';

const TOOL_DOC_LINES: Readonly<Record<string, string>> = {
  web_search: 'web_search(query: str, limit: int = 5) -> dict\n    Returns {"data": {"web": [{"url", "title", "description"}, ...]}}',
  web_extract:
    'web_extract(urls: list[str], char_limit: int = None) -> dict\n    Returns {"results": [{"url", "title", "content", "error"}, ...]} where content is markdown.',
  read_file: 'read_file(path: str, offset: int = 1, limit: int = 500) -> dict\n    Lines are 1-indexed. Returns {"content": "...", "total_lines": N}',
  write_file: 'write_file(path: str, content: str) -> dict\n    Always overwrites the entire file.',
  search_files:
    'search_files(pattern: str, target="content", path=".", file_glob=None, limit=50) -> dict\n    target: "content" (search inside files) or "files" (find files by name). Returns {"matches": [...]}',
  patch: 'patch(path: str, old_string: str, new_string: str, replace_all: bool = False) -> dict\n    Replaces old_string with new_string in the file.',
  terminal: 'terminal(command: str, timeout=None, workdir=None) -> dict\n    Foreground only (no background/pty). Returns {"output": "...", "exit_code": N}',
};

export function executeCodeDescription(available: ReadonlySet<string>): string {
  const tools = CODE_CALLABLE_TOOLS.filter((name) => available.has(name));
  const toolLines = tools.map((name) => `  ${TOOL_DOC_LINES[name]}`).join('\n') || '  (none: this session has no tools a script may call)';
  const examples = tools.filter((name) => name === 'read_file' || name === 'terminal');
  const imports = (examples.length ? examples : tools.slice(0, 2)).join(', ');
  // The calling example uses a tool the session has (or none): never one it cannot call.
  const first = tools[0];
  const example = first ? ` e.g. \`await ${first}({...})\` or with positional arguments in the order shown` : '';
  return [
    'Run a script that can call tools programmatically (JavaScript on Node by default; Python with language="python" where python3 exists). ' +
      'Use this when you need 3+ tool calls with processing logic between them, need to filter/reduce large tool outputs before they enter your context, ' +
      'need conditional branching (if X then Y else Z), or need to loop (fetch N pages, process N files, retry on failure).',
    'Use normal tool calls instead when: single tool call with no processing, you need to see the full result and apply complex reasoning, or the task requires interactive user input.',
    `Available tools (JavaScript: already defined, call with await,${example}; Python: \`from hermes_tools import ${imports || '...'}\`):\n\n${toolLines}`,
    `Every tool call goes through the session like a normal one: dangerous commands wait for approval, and each call is recorded. Results are parsed JSON objects.`,
    `Limits: ${CODE_LIMITS.timeoutSeconds / 60}-minute timeout, ${CODE_LIMITS.maxStdoutBytes / 1000}KB stdout cap, max ${CODE_LIMITS.maxToolCalls} tool calls per script.` +
      (available.has('terminal') ? ' terminal() is foreground-only (no background or pty).' : ''),
    "Scripts run in the session's working directory, inside the same sandbox as shell commands (no network by default).",
    'Print your final result to stdout (console.log / print).',
  ].join('\n\n');
}

export function patchExecuteCodeSchema(schema: FunctionSchema, available: ReadonlySet<string>): FunctionSchema {
  return { ...schema, description: executeCodeDescription(available) };
}
