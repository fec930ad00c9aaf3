// What the model reads about the terminal tool: the original's description and parameter texts,
// adapted where this runtime behaves differently, and trimmed of tools the session cannot call.
// (A helper module: it registers nothing, so tool discovery does not load it on its own.)

/** Lines that steer the model to the dedicated file tools, shown only when those tools exist. */
const FILE_TOOL_HINTS: [tool: string, hint: string][] = [
  ['read_file', 'Do NOT use cat/head/tail to read files — use read_file instead.'],
  ['search_files', 'Do NOT use grep/rg/find to search — use search_files instead.'],
  ['search_files', "Do NOT use ls to list directories — use search_files(target='files') instead."],
  ['patch', 'Do NOT use sed/awk to edit files — use patch instead.'],
  ['write_file', 'Do NOT use echo/cat heredoc to create files — use write_file instead.'],
];

/** `availableTools` undefined means "assume every tool exists" (the unpatched schema). */
export function describeTerminal(availableTools: ReadonlySet<string> | undefined): string {
  const has = (tool: string) => !availableTools || availableTools.has(tool);
  const hints = FILE_TOOL_HINTS.filter(([tool]) => has(tool)).map(([, hint]) => hint);
  const silent = has('process')
    ? "bg without notify runs SILENTLY and you have no way to learn it finished short of calling process(action='poll') yourself"
    : 'bg without notify runs SILENTLY and you have no way to learn it finished';
  return [
    'Execute shell commands on a Linux environment. The current working directory persists between calls (a `cd` carries over).',
    '',
    ...(hints.length ? [...hints, ''] : []),
    'Reserve terminal for: builds, installs, git, processes, scripts, network, package managers, and anything that needs a shell.',
    '',
    "Foreground (default): Commands return INSTANTLY when done, even if the timeout is high. Set timeout=300 for long builds/scripts — you'll still get the result in seconds if it's fast. Prefer foreground for short commands.",
    `Background: Set background=true to get a session_id. Almost always pair with notify_on_complete=true — ${silent}. Two legitimate uses:`,
    "  (1) Long-lived processes that never exit (servers, watchers, daemons) — silent is correct, there's no exit to notify on.",
    "  (2) Long-running bounded tasks (tests, builds, deploys, CI pollers, batch jobs) — MUST set notify_on_complete=true. Without it you'll either forget to poll or sit blocked waiting for the user to surface the result.",
    "For servers/watchers, do NOT use shell-level background wrappers (nohup/disown/setsid/trailing '&') in foreground mode. Use background=true so Hermes can track lifecycle and output.",
    'After starting a server, verify readiness with a health check or log signal, then run tests in a separate terminal() call. Avoid blind sleep loops.',
    ...(has('process') ? ['Use process(action="poll") for progress checks, process(action="wait") to block until done.'] : []),
    "Working directory: Use 'workdir' for per-command cwd.",
    'PTY mode: Set pty=true for interactive CLI tools (Codex, Claude Code, Python REPL).',
    '',
    'Do NOT use vim/nano/interactive tools without pty=true — they hang without a pseudo-terminal. Pipe git output to cat if it might page.',
  ].join('\n');
}

export function describeBackgroundParameter(availableTools: ReadonlySet<string> | undefined): string {
  const poll = !availableTools || availableTools.has('process') ? " short of calling process(action='poll') yourself" : '';
  return (
    `Run the command in the background. Almost always pair with notify_on_complete=true — without it, the process runs silently and you'll have no way to learn it finished${poll} (easy to forget, leading to silent blindness on long jobs). ` +
    'Two legitimate patterns: (1) Long-lived processes that never exit (servers, watchers, daemons) — these stay silent because there\'s no exit to notify on. ' +
    '(2) Long-running bounded tasks (tests, builds, deploys, CI pollers, batch jobs) — these MUST set notify_on_complete=true. ' +
    'For short commands, prefer foreground with a generous timeout instead.'
  );
}

export const TIMEOUT_PARAMETER =
  'Max seconds to wait (default: 180, foreground max: 600). Returns INSTANTLY when command finishes — set high for long tasks, ' +
  "you won't wait unnecessarily. Foreground timeout above 600s is rejected; use background=true for longer commands.";

export const PTY_PARAMETER =
  'Run in pseudo-terminal (PTY) mode for interactive CLI tools like Codex, Claude Code, or Python REPL. ' +
  'Works on every backend, in the foreground and in the background. Default: false.';

export const NOTIFY_PARAMETER =
  "When true (and background=true), you'll be automatically notified exactly once when the process finishes. " +
  '**This is the right choice for almost every long-running task** — tests, builds, deployments, multi-item batch jobs, ' +
  'anything that takes over a minute and has a defined end. Use this and keep working on other things; the system notifies you on exit.';

/** Added to a background start without notify_on_complete (the original's nudge, verbatim). */
export const SILENT_BACKGROUND_HINT =
  'background=true without notify_on_complete=true means this process runs SILENTLY — you will not be told when it exits. ' +
  'If this is a bounded task (test suite, build, CI poller, deploy, anything with a defined end), you almost certainly wanted ' +
  'notify_on_complete=true so the system pings you on exit. Re-launch with notify_on_complete=true, or call ' +
  "process(action='poll') / process(action='wait') yourself to learn the outcome. " +
  'Only ignore this hint for genuine long-lived processes that never exit (servers, watchers, daemons).';
