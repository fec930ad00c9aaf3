// execute_code: runs a script (JavaScript on Node, or Python) in the session's sandbox; the
// script calls the session's tools, and each call goes through the session like a model's call
// (approval gate, hooks, transcript), by way of the workflow. See src/code-execution/.
import { z } from 'zod';
import { CODE_CALLABLE_TOOLS, CODE_LIMITS } from '../code-execution/callable-tools';
import { executeCodeDescription, patchExecuteCodeSchema } from '../code-execution/execute-code-schema';
import { runScript, type ScriptResult } from '../code-execution/script-process';
import { PRELUDE_VARIABLE, runtimeFor, SOURCE_VARIABLE, TOOLS_VARIABLE, type ScriptLanguage } from '../code-execution/script-runtimes';
import { register } from '../registry/registry';
import { terminalBackendAvailable } from './terminal-availability';
import { toolError, toolResult } from '../registry/results';

/** Environment variables hold the script: one variable may not exceed 128 KiB on Linux. */
const MAX_CODE_CHARS = 100_000;

const schema = z.object({
  code: z.string().min(1).max(MAX_CODE_CHARS).describe('The script. Call tools with await (JavaScript) or import them from hermes_tools (Python); print the final result to stdout.'),
  language: z.enum(['javascript', 'python']).optional().describe('javascript (default, Node) or python (python3, where installed)'),
});

register({
  name: 'execute_code',
  toolset: 'code_execution',
  schema,
  description: executeCodeDescription(new Set(CODE_CALLABLE_TOOLS)),
  emoji: '🐍',
  patchSchema: patchExecuteCodeSchema,
  // Scripts are spawned where local commands run (in their sandbox): a session on another backend,
  // or where local commands cannot run, never hears of the tool.
  checkFn: async (context) => {
    if (context.backend !== undefined && context.backend !== 'local') return `execute_code runs scripts on the local backend only (this one is ${context.backend})`;
    return terminalBackendAvailable(context);
  },
  handler: async ({ code, language = 'javascript' }, context) => {
    if (!context.callTool) return toolError('execute_code runs only inside a session, where its tool calls can be approved and recorded');
    if (!context.environment.interactiveCommand) {
      return toolError(`execute_code runs scripts on the local backend only; this session uses ${context.environment.handle.backend}`);
    }
    const runtime = runtimeFor(language, process.execPath);
    const command = context.environment.interactiveCommand(runtime.shell, {
      [PRELUDE_VARIABLE]: runtime.prelude,
      [SOURCE_VARIABLE]: code,
      [TOOLS_VARIABLE]: JSON.stringify(context.callableTools ?? []),
    });
    const started = Date.now();
    let note = '';
    let run;
    try {
      run = await runScript({
        file: command.file,
        args: command.args,
        env: command.env,
        signal: context.signal,
        callTool: context.callTool,
        limits: { timeoutMs: CODE_LIMITS.timeoutSeconds * 1000, maxToolCalls: CODE_LIMITS.maxToolCalls, maxStdoutBytes: CODE_LIMITS.maxStdoutBytes, maxStderrBytes: CODE_LIMITS.maxStderrBytes },
      });
    } finally {
      // Whatever ended the script, what it left in the workspace is checked like a command's.
      note = command.settle();
    }
    if (context.signal.aborted) throw context.signal.reason ?? new Error('execute_code was cancelled');
    const status = run.timedOut ? 'timeout' : run.exitCode === 0 && !run.stoppedFor ? 'success' : 'error';
    const error = scriptError(run, language);
    return toolResult({
      status,
      output: (run.stdoutTruncated ? `${run.output}\n[output truncated at ${CODE_LIMITS.maxStdoutBytes / 1000}KB]` : run.output) + note,
      tool_calls_made: run.toolCalls,
      duration_seconds: Math.round((Date.now() - started) / 100) / 10,
      ...(error ? { error } : {}),
    });
  },
});

/** What went wrong, for the model; undefined when the script ran to a clean end. */
function scriptError(run: ScriptResult, language: ScriptLanguage): string | undefined {
  if (run.timedOut) return `Script timed out after ${CODE_LIMITS.timeoutSeconds} seconds of running time`;
  if (run.stoppedFor) return run.stoppedFor;
  // 127: bash could not find the interpreter where scripts run (e.g. installed under a hidden home folder).
  if (run.exitCode === 127 && !run.output) {
    return language === 'python'
      ? 'python3 is not available where scripts run; use language "javascript"'
      : `Node (${process.execPath}) cannot be run where scripts run (the sandbox may hide its folder)`;
  }
  return run.exitCode !== 0 ? run.stderr.trim() || `Script exited with code ${run.exitCode}` : undefined;
}
