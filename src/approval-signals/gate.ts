// The seam through which the terminal tool asks whether a command may run. In a session the
// workflow has already decided (policy, human approval) and passes the decision in the context;
// a call from anywhere else still meets the hardline floor, so nothing bypasses it.
import type { ToolContext } from '../registry/tool-entry';
import { hardlineBlocked } from './approval-messages';
import { classifyCommand, isCommandClassifierLoaded } from './classify-command';
import os from 'node:os';

export type CommandApproval = { approved: true; note?: string } | { approved: false; message: string };

export async function approveCommand(command: string, context: ToolContext): Promise<CommandApproval> {
  if (context.commandApproval) return context.commandApproval;
  if (!isCommandClassifierLoaded()) return { approved: true };
  const verdict = classifyCommand(command, {
    backend: context.environment.handle.backend,
    cwd: context.workspace.cwd,
    workspaceRoot: context.workspace.cwd,
    home: os.homedir(),
    protectedFiles: [],
  });
  const hardline = verdict.rules.find((rule) => rule.tier === 'hardline');
  return hardline ? { approved: false, message: hardlineBlocked(hardline.description) } : { approved: true };
}
