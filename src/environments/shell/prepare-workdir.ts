// First steps in a fresh sandbox: create the session's working directory (images rarely have it)
// and learn $HOME, which the handle keeps so file tools can expand `~`.
import { shellQuote } from '../shell-quote';
import type { EnvironmentHandle, TerminalEnvironment } from '../terminal-environment';

const PREPARE_TIMEOUT_MS = 60_000;

/** The handle with `details.home` filled in (when the sandbox has a HOME). */
export async function prepareWorkdir(environment: TerminalEnvironment, handle: EnvironmentHandle): Promise<EnvironmentHandle> {
  const result = await environment.exec({
    command: `mkdir -p -- ${shellQuote(handle.cwd)} 2>/dev/null; printf '%s' "$HOME"`,
    cwd: '/',
    timeoutMs: PREPARE_TIMEOUT_MS,
  });
  const home = result.output.trim();
  return home.startsWith('/') ? { ...handle, details: { ...handle.details, home } } : handle;
}
