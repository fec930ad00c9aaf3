// The demo's task, and the script the scripted model follows when no API key is set: shell
// commands, a file written and read back, a turn with several tool calls run in parallel, and a
// fan-out to two sub-agents (child workflows), and a dangerous command that waits for approval.
import type { ModelScriptInput } from './model-script';

export const DEMO_TASK =
  'In the working directory: find out which system you are running on and as which user, write a file ' +
  'notes.txt describing it, then read notes.txt back, list the directory and count the words in ' +
  'notes.txt (do these three at once), have two sub-agents in parallel count the lines of notes.txt and ' +
  'report the shell version, clear out the old-reports folder, and finish with a short summary.';

const subagent = (match: string, command: string, answer: string) => ({
  match,
  turns: [{ tool_calls: [{ name: 'terminal', arguments: { command } }] }, { content: answer }],
});

const FINAL_ANSWER = {
      content:
        'Done. I checked the system and user with uname and id, wrote notes.txt, then read it ' +
        'back, listed the directory and counted its words in one parallel turn, had two sub-agents ' +
        'count its lines and check the shell, and asked to remove old-reports, a command the approval gate ' +
        'holds for your decision unless approvals are off. (This answer comes from the scripted model: it ' +
        'replays a fixed script and does not read tool results, so it cannot tell what you decided.)',
    };

export const DEMO_SCRIPT: ModelScriptInput = {
  description: 'hermes-temporal demo: plan, shell, write, parallel read/list/count, two sub-agents, approval, summary',
  turns: [
    {
      tool_calls: [
        {
          name: 'todo',
          arguments: {
            todos: [
              { id: '1', content: 'inspect the system and write notes.txt', status: 'in_progress' },
              { id: '2', content: 'delegate the line count and shell check', status: 'pending' },
              { id: '3', content: 'clear out old-reports', status: 'pending' },
            ],
          },
        },
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
    // Two sub-agents, each a child workflow with its own conversation and terminal, run at once.
    {
      tool_calls: [
        {
          name: 'delegate_task',
          arguments: {
            tasks: [
              { goal: 'Sub-agent A: count the lines of notes.txt', context: 'notes.txt is in your working directory.' },
              { goal: 'Sub-agent B: report which shell runs commands and its version' },
            ],
          },
        },
      ],
    },
    // A recursive delete needs a human's approval: the demo shows the prompt (or answers it).
    { tool_calls: [{ name: 'terminal', arguments: { command: 'rm -rf old-reports' } }] },
    // The sub-agents' results come in as messages of their own: the model answers after each.
    ...Array.from({ length: 3 }, () => (FINAL_ANSWER)),
  ],
  agents: [
    subagent('Sub-agent A:', 'wc -l notes.txt', 'Counted with wc -l: {{last.output}}.'),
    subagent('Sub-agent B:', 'echo "$BASH_VERSION"', 'Commands run in bash {{last.output}}.'),
  ],
};
