// Shell hooks from the `hooks:` config block: each entry runs a program (no shell) with a JSON
// description of the event on stdin; for pre_tool_call its stdout JSON may block the call
// (`{"decision": "block", "reason"}` or `{"action": "block", "message"}`). Other events observe.
import { spawn } from 'node:child_process';
import os from 'node:os';
import { refuseWorkspaceFiles, trustedProgram, trustedSearchPath, type TrustedLookup } from '../environments/trusted-programs';
import type { SessionWorkspaces } from '../environments/session-workspaces';
import type { HookRegistry, RegisteredHook } from './hook-registry';

export interface ShellHookConfig {
  event: string;
  command: string;
  matcher?: string;
  timeout_seconds: number;
}

const MAX_STDOUT_CHARS = 64 * 1024;
const DEFAULT_BLOCK_MESSAGE = 'Blocked by shell hook.';

/**
 * `cwd` is the worker's folder; `workspaces` those of the sessions it serves (the event's own
 * among them): a hook whose program or script lies in any of them is refused.
 */
export function registerShellHooks(hooks: HookRegistry, entries: readonly ShellHookConfig[], cwd: string, workspaces?: SessionWorkspaces): RegisteredHook[] {
  const outside = async (payload: Record<string, unknown>) => [cwd, ...((await workspaces?.including(sessionIdOf(payload))) ?? [])];
  return entries.map((entry) =>
    hooks.register({
      event: entry.event,
      source: `shell:${entry.command}`,
      timeoutMs: entry.timeout_seconds * 1000,
      ...(entry.matcher !== undefined ? { matches: toolMatcher(entry.matcher) } : {}),
      callback: async (payload) =>
        decisionOf(entry.event, await runShellHook(entry.command, shellHookInput(entry.event, payload, cwd), entry.timeout_seconds * 1000, { outside: await outside(payload) })),
    }),
  );
}

/** The session an event belongs to (`task_id` names it in terminal-output events). */
function sessionIdOf(payload: Record<string, unknown>): string | undefined {
  const id = payload.session_id ?? payload.task_id;
  return typeof id === 'string' ? id : undefined;
}

/** A regular expression on the whole tool name; one that does not compile matches the name literally. */
export function toolMatcher(pattern: string): (toolName: string) => boolean {
  try {
    const expression = new RegExp(`^(?:${pattern})$`);
    return (toolName) => expression.test(toolName);
  } catch {
    return (toolName) => toolName === pattern;
  }
}

function shellHookInput(event: string, payload: Record<string, unknown>, cwd: string): Record<string, unknown> {
  const { tool_name: toolName, args, session_id: sessionId, ...extra } = payload;
  return { hook_event_name: event, tool_name: toolName ?? null, tool_input: args ?? null, session_id: sessionId ?? null, cwd, extra };
}

function decisionOf(event: string, stdout: string): unknown {
  const text = stdout.trim();
  if (!text || event !== 'pre_tool_call') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined; // Plain text output is not a decision.
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const { decision, action, reason, message } = parsed as Record<string, unknown>;
  if (decision !== 'block' && action !== 'block') return undefined;
  const said = typeof message === 'string' && message ? message : typeof reason === 'string' && reason ? reason : DEFAULT_BLOCK_MESSAGE;
  return { action: 'block', message: said };
}

/**
 * Runs the program with `input` as JSON on stdin; rejects when it cannot start, fails, or overruns.
 * A bare program name, and whatever the hook itself looks up, come from the trusted PATH (never
 * the workspace, in `lookup.outside`): the hook runs outside the sandbox.
 */
export function runShellHook(command: string, input: unknown, timeoutMs: number, lookup: TrustedLookup = {}): Promise<string> {
  const [name, ...args] = splitCommand(command).map(expandHome);
  if (!name) return Promise.reject(new Error('empty hook command'));
  let file: string;
  try {
    // Relative words name files in the worker's folder, where the hook runs.
    refuseWorkspaceFiles([name, ...args], lookup, process.cwd(), 'the hook');
    file = trustedProgram(name, lookup);
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
  return new Promise((resolve, reject) => {
    // Its own process group, so an overrun kills what the hook started too (and frees its pipes).
    const env = { ...process.env, PATH: trustedSearchPath(lookup) };
    const child = spawn(file, args, { stdio: ['pipe', 'pipe', 'pipe'], shell: false, detached: true, env });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
      reject(new Error(`timed out after ${timeoutMs / 1000} s`));
    }, timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => {
      if (stdout.length < MAX_STDOUT_CHARS) stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 2000) stderr += chunk.toString('utf8');
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(stdout);
      else reject(new Error(`exited with ${code ?? signal}${stderr.trim() ? `: ${stderr.trim().slice(0, 500)}` : ''}`));
    });
    child.stdin.on('error', () => undefined); // A hook that does not read its stdin is fine.
    child.stdin.end(JSON.stringify(input));
  });
}

function expandHome(word: string): string {
  return word === '~' ? os.homedir() : word.startsWith('~/') ? `${os.homedir()}${word.slice(1)}` : word;
}

/** Splits like a POSIX shell would for plain words: single and double quotes, backslash escapes. */
export function splitCommand(command: string): string[] {
  const words: string[] = [];
  let current = '';
  let started = false;
  let quote: '"' | "'" | undefined;
  for (let index = 0; index < command.length; index += 1) {
    const char = command[index] as string;
    if (quote === "'") {
      if (char === "'") quote = undefined;
      else current += char;
    } else if (quote === '"') {
      if (char === '"') quote = undefined;
      else if (char === '\\' && /["\\$`]/.test(command[index + 1] ?? '')) current += command[++index];
      else current += char;
    } else if (char === "'" || char === '"') {
      quote = char;
      started = true;
    } else if (char === '\\') {
      current += command[++index] ?? '';
      started = true;
    } else if (/\s/.test(char)) {
      if (started) words.push(current);
      current = '';
      started = false;
    } else {
      current += char;
      started = true;
    }
  }
  if (started) words.push(current);
  return words;
}
