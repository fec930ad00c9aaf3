// The session's plan (the `todo` tool), with the original's merge semantics and limits. It lives
// in workflow state, so it survives worker restarts and continue-as-new. Pure module.
import { markdownCode } from '../approval-signals/ui-markdown';

export type TodoStatus = 'pending' | 'in_progress' | 'completed' | 'cancelled';
export interface TodoItem {
  id: string;
  content: string;
  status: TodoStatus;
}

const STATUSES: readonly TodoStatus[] = ['pending', 'in_progress', 'completed', 'cancelled'];
const MAX_ITEMS = 256;
const MAX_CONTENT_CHARS = 4000;
/**
 * The whole list as JSON. Every call's result and each continue-as-new carry it through workflow
 * history, whose payloads Temporal limits to 2 MB: at most 3 bytes a JSON character, this keeps it
 * under 600 KB whatever the ids and text (256 items of 4,000 CJK characters would be 3 MB).
 */
export const MAX_LIST_JSON_CHARS = 200_000;
const TRUNCATED_MARK = '… [truncated]';

export class TodoList {
  private items: TodoItem[];

  constructor(items: readonly TodoItem[] = []) {
    this.items = items.map((item) => ({ ...item }));
  }

  /** Applies one `todo` call and returns the tool's result: always the whole list and its counts. */
  apply(args: Record<string, unknown>): string {
    let todos = args.todos;
    if (todos === undefined || todos === null) return this.render();
    if (typeof todos === 'string') {
      try {
        todos = JSON.parse(todos);
      } catch {
        return JSON.stringify({ error: 'todos must be a list of objects, got unparseable string' });
      }
    }
    if (!Array.isArray(todos)) return JSON.stringify({ error: `todos must be a list, got ${pythonTypeName(todos)}` });
    const merge = args.merge === true || args.merge === 'true';
    const incoming = lastOccurrences(todos);
    const before = this.items;
    this.items = before.map((item) => ({ ...item }));
    if (merge) this.merge(incoming);
    else this.items = incoming.map(validItem);
    this.items = this.items.slice(0, MAX_ITEMS);
    const size = JSON.stringify(this.items).length;
    if (size > MAX_LIST_JSON_CHARS) {
      this.items = before;
      return JSON.stringify({
        error: `The plan would take ${size} characters; at most ${MAX_LIST_JSON_CHARS} are kept. Use shorter ids and descriptions, or fewer items. The plan is unchanged.`,
      });
    }
    return this.render();
  }

  snapshot(): TodoItem[] {
    return this.items.map((item) => ({ ...item }));
  }

  /** One line for the UI's details: progress and what is being worked on. */
  progressLine(): string | undefined {
    if (!this.items.length) return undefined;
    const done = this.items.filter((item) => item.status === 'completed').length;
    const current = this.items.find((item) => item.status === 'in_progress');
    // The item is the model's text, in a line the UI renders as Markdown.
    return `plan ${done}/${this.items.length} done${current ? `, now: ${markdownCode(current.content.slice(0, 80))}` : ''}`;
  }

  private merge(incoming: unknown[]): void {
    for (const raw of incoming) {
      if (!isRecord(raw)) continue;
      const id = typeof raw.id === 'string' || typeof raw.id === 'number' ? String(raw.id).trim() : '';
      if (!id) continue;
      const existing = this.items.find((item) => item.id === id);
      if (!existing) {
        this.items.push(validItem(raw));
        continue;
      }
      const content = typeof raw.content === 'string' ? raw.content.trim() : '';
      if (content) existing.content = clipContent(content);
      const status = typeof raw.status === 'string' ? raw.status.trim().toLowerCase() : '';
      if ((STATUSES as readonly string[]).includes(status)) existing.status = status as TodoStatus;
    }
  }

  private render(): string {
    const count = (status: TodoStatus) => this.items.filter((item) => item.status === status).length;
    return JSON.stringify({
      todos: this.items,
      summary: {
        total: this.items.length,
        pending: count('pending'),
        in_progress: count('in_progress'),
        completed: count('completed'),
        cancelled: count('cancelled'),
      },
    });
  }
}

/** Duplicate ids in one call collapse to the last occurrence, kept at that position. */
function lastOccurrences(todos: unknown[]): unknown[] {
  const lastIndex = new Map<string, number>();
  todos.forEach((raw, index) => {
    if (isRecord(raw) && (typeof raw.id === 'string' || typeof raw.id === 'number')) lastIndex.set(String(raw.id).trim(), index);
  });
  return todos.filter((raw, index) => {
    if (!isRecord(raw) || (typeof raw.id !== 'string' && typeof raw.id !== 'number')) return true;
    return lastIndex.get(String(raw.id).trim()) === index;
  });
}

function validItem(raw: unknown): TodoItem {
  if (!isRecord(raw)) return { id: '?', content: '(invalid item)', status: 'pending' };
  const id = typeof raw.id === 'string' || typeof raw.id === 'number' ? String(raw.id).trim() : '';
  const content = typeof raw.content === 'string' ? raw.content.trim() : '';
  const status = typeof raw.status === 'string' ? raw.status.trim().toLowerCase() : '';
  return {
    id: id || '?',
    content: content ? clipContent(content) : '(no description)',
    status: (STATUSES as readonly string[]).includes(status) ? (status as TodoStatus) : 'pending',
  };
}

function clipContent(content: string): string {
  return content.length > MAX_CONTENT_CHARS ? content.slice(0, MAX_CONTENT_CHARS - TRUNCATED_MARK.length) + TRUNCATED_MARK : content;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The type names the original's messages use (it is Python). */
function pythonTypeName(value: unknown): string {
  if (value === null) return 'NoneType';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'object') return 'dict';
  return typeof value;
}
