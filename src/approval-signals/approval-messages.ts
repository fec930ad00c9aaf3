// The words the model and the user see about approvals, kept close to the original's so agents
// trained on it react the same way. Pure.

const NO_CONSENT =
  'The user has NOT consented to this action. Do NOT retry this command, do NOT rephrase it, and do NOT ' +
  'attempt the same outcome via a different command. Stop the current workflow and wait for the user to ' +
  'respond before taking any further destructive or irreversible action.';

export function hardlineBlocked(description: string): string {
  return (
    `BLOCKED (hardline): ${description}. This command is never run by the agent, in any mode or backend. ` +
    'If it is really needed, the user must run it themselves outside the agent.'
  );
}

export function userDenyRuleBlocked(pattern: string): string {
  return (
    `BLOCKED: this command matches the user-defined deny rule '${pattern}' (approvals.deny in the configuration). ` +
    'It cannot be executed via the agent, not even with approvals.mode=off. Do NOT retry or rephrase this ' +
    'command; the user has explicitly forbidden it.'
  );
}

export function deniedByUser(reason?: string): string {
  const given = reason ? ` Reason given by the user: "${reason.slice(0, 280)}".` : '';
  return `BLOCKED: Command denied by user.${given} ${NO_CONSENT}`;
}

export function timedOut(): string {
  return `BLOCKED: Command timed out without user response. ${NO_CONSENT} Silence is not consent.`;
}

export function unattendedBlocked(description: string): string {
  return (
    `BLOCKED: Command flagged as dangerous (${description}) but this session runs unattended, with nobody ` +
    'present to approve it. Find an alternative approach that avoids this command. To allow dangerous ' +
    'commands in unattended sessions, set approvals.unattended_policy: approve in the configuration.'
  );
}

export function approvedNote(description: string, by: 'user' | 'smart' | 'policy' | 'demo'): string {
  if (by === 'demo') return `Command required approval (${description}) and was approved by the demo itself, standing in for a user.`;
  if (by === 'smart') return `Command was flagged (${description}) and auto-approved by smart approval.`;
  if (by === 'policy') return `Command was flagged (${description}) and approved by the unattended policy.`;
  return `Command required approval (${description}) and was approved by the user.`;
}

/** Who a human-channel decision came from: the demo signs its own answers `via demo`. */
export function approverKind(decidedBy: string | undefined): 'user' | 'demo' {
  return decidedBy?.endsWith(' via demo') ? 'demo' : 'user';
}

export function linkFreePathChanged(why: string): string {
  return (
    `BLOCKED: the delete was allowed as a delete of a build or cache folder, or of the real folder it named, but ${why} now. Nothing was deleted; ` +
    'run the command again so it is judged as it is now.'
  );
}

export function boundFileChanged(file: string): string {
  return (
    `BLOCKED: ${file} changed after it was approved; ask again. The approval was given for the file as it was ` +
    'when the user was asked, so the command did not run. Run the command again to ask for approval of the file as it is now.'
  );
}
