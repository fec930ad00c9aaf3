// What of an assessment enters workflow history. Every assessment is an activity result there, and
// the model writes what it holds: a 3 MB command (a harmless `echo` of a big string, or a heredoc)
// was recorded whole, passed Temporal's 2 MB payload limit and failed the session. Long texts are
// bounded as approval keys are (their start and digest: equal only for the same text, and never
// equal to a text short enough to keep, so approval keys and the allowlist keep working); an
// assessment still too large refuses its call.
import { boundedText } from '../approval-signals/approval-key';
import type { CommandAssessment, PathFinding } from '../approval-signals/approval-types';

/** Longer than any path a system opens (PATH_MAX) and than what a prompt shows of a command. */
export const MAX_RECORDED_TEXT_CHARS = 4096;
/** Far under the 2 MB payload limit, and the size workflow-handled arguments are held to. */
export const MAX_RECORDED_ASSESSMENT_BYTES = 256_000;
/** Who refused a call whose assessment could not be recorded (in place of a hook's name). */
export const ASSESSMENT_SIZE_REFUSER = 'hermes-temporal:assessment-size';

/** The text, or a stand-in for it when too long to record: equal stand-ins mean equal texts. */
export function recordedText(text: string): string {
  return boundedText(text, MAX_RECORDED_TEXT_CHARS);
}

/** The assessment as history keeps it: long texts replaced, and the call refused when still too large. */
export function recordedAssessment(assessment: CommandAssessment): CommandAssessment {
  const recorded: CommandAssessment = {
    ...assessment,
    ...(assessment.command === undefined ? {} : { command: recordedText(assessment.command) }),
    ...(assessment.paths ? { paths: assessment.paths.map(recordedFinding) } : {}),
  };
  const bytes = Buffer.byteLength(JSON.stringify(recorded));
  if (bytes <= MAX_RECORDED_ASSESSMENT_BYTES) return recorded;
  const { isolated, tool, cwd, display } = recorded;
  const message =
    `Not run: what this call touches is too much to judge in one call (its assessment is ${Math.ceil(bytes / 1000)} KB, ` +
    `at most ${MAX_RECORDED_ASSESSMENT_BYTES / 1000} KB are kept). Split it into smaller calls.`;
  return { isolated, ...(tool ? { tool } : {}), ...(cwd ? { cwd } : {}), ...(display ? { display } : {}), hookBlock: { message, source: ASSESSMENT_SIZE_REFUSER } };
}

function recordedFinding(finding: PathFinding): PathFinding {
  return {
    ...finding,
    path: recordedText(finding.path),
    resolved: recordedText(finding.resolved),
    ...(finding.shown === undefined ? {} : { shown: recordedText(finding.shown) }),
  };
}
