// The system prompt of a sub-agent (the original's, with its workspace rule): the child knows
// only its goal and the context its parent chose to give it.
import type { SubagentRole } from '../workflows/delegation-types';

export interface SubagentBrief {
  goal: string;
  context?: string;
  role: SubagentRole;
}

export function subagentSystemPrompt(brief: SubagentBrief, cwd: string): string {
  const parts = ['You are a focused subagent working on a specific delegated task.', '', 'YOUR TASK:', brief.goal];
  if (brief.context) parts.push('', 'CONTEXT:', brief.context);
  parts.push('', 'WORKSPACE PATH:', cwd, 'Use this exact path for local repository/workdir operations unless the task explicitly says otherwise.');
  parts.push(
    '',
    'Complete this task using the tools available to you. When finished, provide a clear, concise summary of:',
    '- What you did',
    '- What you found or accomplished',
    '- Any files you created or modified',
    '- Any issues encountered',
    '',
    'Important workspace rule: Never assume a repository lives at /workspace/... or any other container-style path unless the task/context explicitly gives that path. If no exact local path is provided, discover it first before issuing git/workdir-specific commands.',
    '',
    "Keep your final summary tight: lead with outcomes, prefer bullet points over paragraphs, and don't replay your whole process. Your response is returned to the parent agent as a summary, and overlong summaries crowd out the parent's context window.",
  );
  if (brief.role === 'orchestrator') {
    parts.push(
      '',
      '## Subagent Spawning (Orchestrator Role)',
      'You may split your task with delegate_task: each worker you spawn gets its own conversation and terminal. Give each one a self-contained goal and the context it needs; their results come back to you as messages. Finish with one summary of the whole.',
    );
  }
  return parts.join('\n');
}
