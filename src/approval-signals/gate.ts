// The seam through which the terminal tool asks whether a command may run. Dangerous-command
// detection and human approval plug in here; until then every command is allowed.
import type { ToolContext } from '../registry/tool-entry';

export type CommandApproval = { approved: true; note?: string } | { approved: false; message: string };

export async function approveCommand(command: string, context: ToolContext): Promise<CommandApproval> {
  void command;
  void context;
  return { approved: true };
}
