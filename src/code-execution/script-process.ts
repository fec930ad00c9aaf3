// Runs a script process and answers its tool calls: requests arrive on stdout (a line starting
// with \x1e), answers go back on stdin as JSON lines. Enforces the limits: running time (while a
// tool call is outstanding only the CPU the script uses counts: an approval may take hours, but
// the script must not compute unbounded meanwhile), stdout and stderr caps, and the number of
// tool calls. The whole process group dies on timeout or cancellation.
import { spawn } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';
import { z } from 'zod';
import { processTreeCpuMs } from './process-tree-cpu';
import { REQUEST_MARK } from './script-runtimes';

export interface ScriptLimits {
  timeoutMs: number;
  maxToolCalls: number;
  maxStdoutBytes: number;
  maxStderrBytes: number;
}

export interface ScriptResult {
  output: string;
  stderr: string;
  exitCode: number | null;
  timedOut: boolean;
  toolCalls: number;
  stdoutTruncated: boolean;
  /** Why the worker stopped the script before it ended by itself (other than its running time). */
  stoppedFor?: string;
}

/**
 * Longer request lines are not kept: the worker holds at most this much of each of a script's
 * calls at once. A script writes large files itself, in its workspace; the tools are for the rest.
 */
const MAX_REQUEST_CHARS = 1024 * 1024;

/** How often the CPU a script uses while its tool calls are outstanding is checked against its time. */
const PAUSED_CPU_CHECK_MS = 1000;

const toolRequestSchema = z.object({ id: z.number().int().min(0), name: z.string(), args: z.record(z.string(), z.unknown()).default({}) });

export function runScript(options: {
  file: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  limits: ScriptLimits;
  signal: AbortSignal;
  callTool: (name: string, args: Record<string, unknown>) => Promise<string>;
}): Promise<ScriptResult> {
  const { limits } = options;
  const child = spawn(options.file, options.args, { env: options.env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  const decoder = new StringDecoder('utf8');
  let output = '';
  let stderr = '';
  /** The request line being read (from its mark), or '' between requests. */
  let pending = '';
  /** Inside a request line too long to keep: dropped up to its end. */
  let discarding = false;
  let stdoutTruncated = false;
  let toolCalls = 0;
  let outstanding = 0;
  let timedOut = false;
  let remainingMs = limits.timeoutMs;
  let runningSince = Date.now();
  let timer: NodeJS.Timeout | undefined;
  /** While a tool call is outstanding: the script's CPU time when it began, and its check. */
  let cpuAtPause = 0;
  let pausedCheck: NodeJS.Timeout | undefined;
  /** Set once the script has ended: its process group id may then be another's. */
  let ended = false;
  // Each request line costs the worker's main thread a parse and an answer: past the calls the
  // script may make and as many answered 'limit reached', a script is flooding, not working.
  const requestLinesAllowed = 2 * limits.maxToolCalls;
  let requestLines = 0;
  let stoppedFor: string | undefined;

  const kill = () => {
    try {
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    } catch {
      child.kill('SIGKILL');
    }
  };
  const cpuSincePause = () => (child.pid ? Math.max(0, processTreeCpuMs(child.pid) - cpuAtPause) : 0);
  const stopPausedCheck = () => {
    clearInterval(pausedCheck);
    pausedCheck = undefined;
  };
  const armTimer = () => {
    if (ended) return;
    if (pausedCheck) {
      remainingMs -= cpuSincePause();
      stopPausedCheck();
    }
    runningSince = Date.now();
    timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, Math.max(0, remainingMs));
  };
  const pauseTimer = () => {
    clearTimeout(timer);
    remainingMs -= Date.now() - runningSince;
    cpuAtPause = child.pid ? processTreeCpuMs(child.pid) : 0;
    pausedCheck = setInterval(() => {
      if (cpuSincePause() < remainingMs) return;
      timedOut = true;
      stopPausedCheck();
      kill();
    }, PAUSED_CPU_CHECK_MS);
  };
  const print = (text: string) => {
    if (Buffer.byteLength(output) + Buffer.byteLength(text) <= limits.maxStdoutBytes) output += text;
    else if (!stdoutTruncated) {
      stdoutTruncated = true;
      output += text.slice(0, Math.max(0, limits.maxStdoutBytes - Buffer.byteLength(output)));
    }
  };
  const answer = (id: number, result: string) => {
    if (child.stdin.writable) child.stdin.write(`${JSON.stringify({ id, result })}\n`);
  };
  const handle = async (line: string) => {
    let request: z.infer<typeof toolRequestSchema>;
    try {
      request = toolRequestSchema.parse(JSON.parse(line));
    } catch {
      print(`${line}\n`); // Not a request after all: it was printed text.
      return;
    }
    toolCalls += 1;
    if (toolCalls > limits.maxToolCalls) {
      answer(request.id, JSON.stringify({ error: `Tool call limit reached: a script may make at most ${limits.maxToolCalls} tool calls` }));
      return;
    }
    if (outstanding++ === 0) pauseTimer();
    try {
      answer(request.id, await options.callTool(request.name, request.args));
    } catch (error) {
      answer(request.id, JSON.stringify({ error: `Error executing ${request.name}: ${error instanceof Error ? error.message : String(error)}` }));
    } finally {
      if (--outstanding === 0 && !timedOut) armTimer();
    }
  };
  // Each piece of stdout is searched once, whatever the script sends: a request line that never
  // ends must neither grow without bound in the worker nor be searched again with every chunk.
  const readStdout = (text: string) => {
    if (stoppedFor) return;
    let rest = text;
    while (rest) {
      if (discarding) {
        const end = rest.indexOf('\n');
        if (end === -1) return;
        discarding = false;
        rest = rest.slice(end + 1);
        continue;
      }
      if (!pending) {
        const mark = rest.indexOf(REQUEST_MARK);
        if (mark === -1) {
          print(rest);
          return;
        }
        if (mark > 0) print(rest.slice(0, mark));
        pending = REQUEST_MARK;
        rest = rest.slice(mark + REQUEST_MARK.length);
        continue;
      }
      const end = rest.indexOf('\n');
      const piece = end === -1 ? rest : rest.slice(0, end);
      if (pending.length + piece.length > MAX_REQUEST_CHARS) {
        pending = '';
        discarding = end === -1;
        print(`[a tool request longer than ${MAX_REQUEST_CHARS / (1024 * 1024)} MiB was dropped]\n`);
      } else {
        pending += piece;
        if (end === -1) return;
        const line = pending.slice(REQUEST_MARK.length);
        pending = '';
        if (++requestLines > requestLinesAllowed) {
          stoppedFor = `Script stopped: it kept asking for tool calls (${requestLinesAllowed} requests) past the limit of ${limits.maxToolCalls}`;
          kill();
          return;
        }
        void handle(line);
      }
      rest = end === -1 ? '' : rest.slice(end + 1);
    }
  };

  child.stdout.on('data', (chunk: Buffer) => readStdout(decoder.write(chunk)));
  child.stderr.on('data', (chunk: Buffer) => {
    if (stderr.length < limits.maxStderrBytes) stderr += chunk.toString('utf8').slice(0, limits.maxStderrBytes - stderr.length);
  });
  child.stdin.on('error', () => undefined); // The script may exit without reading its last answer.
  const onAbort = () => kill();
  options.signal.addEventListener('abort', onAbort, { once: true });
  armTimer();

  return new Promise((resolve, reject) => {
    child.on('error', (error) => {
      ended = true;
      clearTimeout(timer);
      stopPausedCheck();
      options.signal.removeEventListener('abort', onAbort);
      reject(error);
    });
    child.on('close', (code) => {
      ended = true;
      clearTimeout(timer);
      stopPausedCheck();
      options.signal.removeEventListener('abort', onAbort);
      readStdout(decoder.end());
      if (pending) print(pending);
      resolve({ output, stderr, exitCode: code, timedOut, toolCalls, stdoutTruncated, ...(stoppedFor ? { stoppedFor } : {}) });
    });
  });
}
