// The terminal and file tools work only where the session's terminal backend works. One shared
// check function, so a definitions build asks the backend once for all of them.
// (A helper module: it registers nothing, so tool discovery does not load it on its own.)
import type { CheckContext } from '../registry/tool-entry';

export async function terminalBackendAvailable(context: CheckContext): Promise<true | string> {
  const reason = await context.terminalUnavailableReason?.();
  return reason ? `terminal backend unavailable: ${reason}` : true;
}
