// The todo tool's plan, with the original's merge semantics, validation and limits.
import { TodoList } from '../../../src/workflows/todo-list';

const apply = (list: TodoList, args: Record<string, unknown>) => JSON.parse(list.apply(args)) as { todos: { id: string; content: string; status: string }[]; summary: Record<string, number>; error?: string };

test('no todos reads the list; every call returns the whole list and its counts', () => {
  const list = new TodoList();
  expect(apply(list, {})).toEqual({ todos: [], summary: { total: 0, pending: 0, in_progress: 0, completed: 0, cancelled: 0 } });
  apply(list, { todos: [{ id: '1', content: 'plan', status: 'in_progress' }, { id: '2', content: 'build', status: 'pending' }] });
  expect(apply(list, {}).summary).toEqual({ total: 2, pending: 1, in_progress: 1, completed: 0, cancelled: 0 });
});

test('merge=false replaces the plan; merge=true updates by id, keeps order, and appends new ids', () => {
  const list = new TodoList([{ id: '1', content: 'a', status: 'pending' }, { id: '2', content: 'b', status: 'pending' }]);
  expect(apply(list, { merge: true, todos: [{ id: '2', status: 'completed' }, { id: '3', content: 'c', status: 'pending' }, { content: 'no id' }] }).todos).toEqual([
    { id: '1', content: 'a', status: 'pending' },
    { id: '2', content: 'b', status: 'completed' },
    { id: '3', content: 'c', status: 'pending' },
  ]);
  expect(apply(list, { todos: [{ id: 'x', content: 'fresh', status: 'pending' }] }).todos).toEqual([{ id: 'x', content: 'fresh', status: 'pending' }]);
});

test('items are repaired, not refused: bad status, blank content, blank id, non-objects', () => {
  const list = new TodoList();
  expect(apply(list, { todos: [{ id: ' 1 ', content: '  ', status: 'DONE' }, 'text', { id: '', content: 'x', status: 'Completed' }] }).todos).toEqual([
    { id: '1', content: '(no description)', status: 'pending' },
    { id: '?', content: '(invalid item)', status: 'pending' },
    { id: '?', content: 'x', status: 'completed' },
  ]);
});

test('duplicate ids in one call collapse to the last, at its position; content is cut at 4000 characters; the list at 256', () => {
  const list = new TodoList();
  const todos = apply(list, { todos: [{ id: 'a', content: 'first', status: 'pending' }, { id: 'b', content: 'b', status: 'pending' }, { id: 'a', content: 'last', status: 'pending' }] }).todos;
  expect(todos.map((item) => `${item.id}:${item.content}`)).toEqual(['b:b', 'a:last']);
  const long = apply(list, { todos: [{ id: 'l', content: 'y'.repeat(5000), status: 'pending' }] }).todos[0]?.content ?? '';
  expect(long).toHaveLength(4000);
  expect(long.endsWith('… [truncated]')).toBe(true);
  expect(apply(list, { todos: Array.from({ length: 300 }, (_, index) => ({ id: String(index), content: 'x', status: 'pending' })) }).todos).toHaveLength(256);
});

test('a JSON string of todos is parsed; anything else not a list is an error in the original words', () => {
  const list = new TodoList();
  expect(apply(list, { todos: '[{"id":"1","content":"a","status":"pending"}]' }).todos).toHaveLength(1);
  expect(list.apply({ todos: '[oops' })).toBe('{"error":"todos must be a list of objects, got unparseable string"}');
  expect(list.apply({ todos: { id: '1' } })).toBe('{"error":"todos must be a list, got dict"}');
  expect(list.apply({ todos: 5 })).toBe('{"error":"todos must be a list, got int"}');
});

test('the plan survives being carried into a new run, and says what is in progress', () => {
  const list = new TodoList();
  apply(list, { todos: [{ id: '1', content: 'ship it', status: 'in_progress' }, { id: '2', content: 'done', status: 'completed' }] });
  const carried = new TodoList(list.snapshot());
  expect(carried.snapshot()).toEqual(list.snapshot());
  expect(carried.progressLine()).toBe('plan 1/2 done, now: `ship it`');
});

test('a change that would make the plan too large for workflow history is refused whole, and the plan is kept', () => {
  const list = new TodoList([{ id: 'keep', content: 'a', status: 'pending' }]);
  // Within the item limits (256 items, 4000 characters each), 3 MB as UTF-8.
  const wide = Array.from({ length: 256 }, (_, index) => ({ id: String(index), content: '漢'.repeat(4000), status: 'pending' }));
  expect(apply(list, { todos: wide }).error).toMatch(/^The plan would take \d+ characters; at most 200000 are kept\..* The plan is unchanged\.$/);
  // Ids are not clipped (two would merge into one): a megabyte of them is refused the same way.
  expect(apply(list, { merge: true, todos: [{ id: 'i'.repeat(300_000), content: 'x' }] }).error).toMatch(/The plan is unchanged/);
  expect(apply(list, {}).todos).toEqual([{ id: 'keep', content: 'a', status: 'pending' }]);
  // A merge that fits still works after a refused one.
  expect(apply(list, { merge: true, todos: [{ id: 'keep', status: 'completed' }] }).todos).toEqual([{ id: 'keep', content: 'a', status: 'completed' }]);
});
