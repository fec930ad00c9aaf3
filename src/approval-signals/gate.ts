// The seam through which the terminal tool asks whether a command may run. In a session the
// workflow has already decided (policy, human approval) and passes the decision in the context;
// the approval holds only while the workspace files it was given for are unchanged. A call from
// anywhere else still meets the hardline floor, so nothing bypasses it.
import { createHash } from 'node:crypto';
import os from 'node:os';
import type { BoundFile, ToolContext } from '../registry/tool-entry';
import { boundFileChanged, hardlineBlocked, linkFreePathChanged } from './approval-messages';
import { linkedPathNow } from './link-free-paths';
import { classifyCommand, isCommandClassifierLoaded } from './classify-command';
import { commandReader } from './process-input';

export type CommandApproval = { approved: true; note?: string } | { approved: false; message: string };

export async function approveCommand(command: string, context: ToolContext): Promise<CommandApproval> {
  const decided = context.commandApproval;
  if (decided) {
    if (!decided.approved) return decided;
    // A low-risk delete was granted for real folders: a link made since (another call, a background job) voids it.
    const linked = decided.linkFreePaths?.length ? await linkedPathNow(decided.linkFreePaths, (target) => context.workspace.realpath(target)) : undefined;
    if (linked) return { approved: false, message: linkFreePathChanged(linked) };
    if (!decided.boundFiles?.length) return decided;
    const changed = await firstChangedFile(decided.boundFiles, context);
    return changed ? { approved: false, message: boundFileChanged(changed) } : decided;
  }
  return hardlineFloor(command, context);
}

/** The floor outside a session: hardline commands never run, whoever calls. */
export function hardlineFloor(command: string, context: ToolContext): CommandApproval {
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

/**
 * Text typed into a background process. In a session the workflow has judged it already: its
 * approval holds, as a command's does, while the files it was given for are unchanged. Outside
 * one, when the process runs its input as code, hardline text is refused.
 */
export async function approveProcessInput(processCommand: string, data: string, context: ToolContext): Promise<CommandApproval> {
  if (context.commandApproval) return approveCommand(data, context);
  if (!isCommandClassifierLoaded()) return { approved: true };
  const reader = commandReader(
    classifyCommand(processCommand, { backend: context.environment.handle.backend, cwd: context.workspace.cwd, workspaceRoot: context.workspace.cwd, home: os.homedir(), protectedFiles: [] }),
  );
  return reader ? hardlineFloor(reader.asShellText(data), context) : { approved: true };
}

/** The first bound file whose content is not what the approval was given for (read through the session's backend). */
async function firstChangedFile(files: readonly BoundFile[], context: ToolContext): Promise<string | undefined> {
  for (const file of files) {
    let digest: string | null;
    try {
      digest = createHash('sha256').update(await context.workspace.readFile(file.path)).digest('hex');
    } catch (error) {
      digest = (error as { code?: unknown }).code === 'ENOENT' ? null : 'unreadable';
    }
    if (digest !== file.sha256) return file.path;
  }
  return undefined;
}
