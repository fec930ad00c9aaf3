// The demo's task, and the script the scripted model follows when no API key is set: shell
// commands, a file written and read back, a turn with several tool calls run in parallel, and a
// dangerous command that waits for approval.
import type { ModelScriptInput } from './model-script';

export const DEMO_TASK =
  'In the working directory: find out which system you are running on and as which user, write a file ' +
  'notes.txt describing it, then read notes.txt back, list the directory and count the words in ' +
  'notes.txt (do these three at once), clear out the old-reports folder, and finish with a short summary.';

export const DEMO_SCRIPT: ModelScriptInput = {
  description: 'hermes-temporal demo: shell, write, parallel read/list/count, summary',
  turns: [
    {
      tool_calls: [
        { name: 'terminal', arguments: { command: 'uname -srm' } },
        { name: 'terminal', arguments: { command: 'id -un' } },
      ],
    },
    {
      tool_calls: [
        {
          name: 'write_file',
          arguments: {
            path: 'notes.txt',
            content:
              'Notes from a hermes-temporal demo session.\n' +
              'Every tool call in this session ran as a Temporal activity.\n' +
              'The three calls of the next turn run at the same time.\n',
          },
        },
      ],
    },
    {
      tool_calls: [
        { name: 'read_file', arguments: { path: 'notes.txt' } },
        { name: 'search_files', arguments: { pattern: '*', target: 'files' } },
        { name: 'terminal', arguments: { command: 'wc -w notes.txt' } },
      ],
    },
    // A recursive delete needs a human's approval: the demo shows the prompt (or answers it).
    { tool_calls: [{ name: 'terminal', arguments: { command: 'rm -rf old-reports' } }] },
    {
      content:
        'Done. I checked the system and user with uname and id, wrote notes.txt, then read it ' +
        'back, listed the directory and counted its words in one parallel turn, and removed ' +
        'old-reports once you approved it. ' +
        '(This answer comes from the scripted model: it replays a fixed script and does not read tool results.)',
    },
  ],
};
