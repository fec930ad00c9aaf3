// Runs a script process and answers its tool calls: requests arrive on stdout (a line starting
// with \x1e), answers go back on stdin as JSON lines. Enforces the limits: running time (time
// spent waiting for a tool call does not count: an approval may take hours), stdout and stderr
// caps, and the number of tool calls. The whole process group dies on timeout or cancellation.
import { spawn } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';
import { z } from 'zod';
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
}

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
  let pending = '';
  let stdoutTruncated = false;
  let toolCalls = 0;
  let outstanding = 0;
  let timedOut = false;
  let remainingMs = limits.timeoutMs;
  let runningSince = Date.now();
  let timer: NodeJS.Timeout | undefined;

  const kill = () => {
    try {
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    } catch {
      child.kill('SIGKILL');
    }
  };
  const armTimer = () => {
    runningSince = Date.now();
    timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, Math.max(0, remainingMs));
  };
  const pauseTimer = () => {
    clearTimeout(timer);
    remainingMs -= Date.now() - runningSince;
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
  const readStdout = (text: string) => {
    pending += text;
    for (;;) {
      const mark = pending.indexOf(REQUEST_MARK);
      if (mark === -1) {
        print(pending);
        pending = '';
        return;
      }
      if (mark > 0) print(pending.slice(0, mark));
      const end = pending.indexOf('\n', mark);
      if (end === -1) {
        pending = pending.slice(mark);
        return;
      }
      void handle(pending.slice(mark + 1, end));
      pending = pending.slice(end + 1);
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
      clearTimeout(timer);
      options.signal.removeEventListener('abort', onAbort);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      options.signal.removeEventListener('abort', onAbort);
      readStdout(decoder.end());
      if (pending) print(pending);
      resolve({ output, stderr, exitCode: code, timedOut, toolCalls, stdoutTruncated });
    });
  });
}
