// The todo tool's schema. Its calls are handled by the session workflow (src/workflows/todo-list.ts):
// the plan is session state that must survive worker restarts and continue-as-new.
import { z } from 'zod';
import { register } from '../registry/registry';
import { toolError } from '../registry/results';

const todoItem = z.object({
  id: z.string().describe('Unique item identifier'),
  content: z.string().describe('Task description'),
  status: z.enum(['pending', 'in_progress', 'completed', 'cancelled']).describe('Current status'),
});

// Loose on purpose: the workflow applies the original's lenient validation (strings parsed, bad items kept as placeholders).
const todoArguments = z.object({
  todos: z.array(todoItem).optional().describe('Task items to write. Omit to read current list.'),
  merge: z.boolean().default(false).describe('true: update existing items by id, add new ones. false (default): replace the entire list.'),
});

register({
  name: 'todo',
  toolset: 'todo',
  emoji: '📋',
  schema: todoArguments,
  runsInWorkflow: true,
  description: [
    'Manage your task list for the current session. Use for complex tasks with 3+ steps or when the user provides multiple tasks. Call with no parameters to read the current list.',
    '',
    'Writing:',
    "- Provide 'todos' array to create/update items",
    '- merge=false (default): replace the entire list with a fresh plan',
    '- merge=true: update existing items by id, add any new ones',
    '',
    'Each item: {id: string, content: string, status: pending|in_progress|completed|cancelled}',
    'List order is priority. Only ONE item in_progress at a time.',
    'Mark items completed immediately when done. If something fails, cancel it and add a revised item.',
    '',
    'Always returns the full current list.',
  ].join('\n'),
  handler: () => toolError('todo must be handled by the agent loop'),
});
