// The search syntax session_search documents (FTS5's) as the PostgreSQL store understands it.
import { toTsquery } from '../../../src/store/postgres-message-search';

it.each([
  ['docker networking', "('docker') & ('networking')"],
  ['alpha OR beta OR gamma', "('alpha') | ('beta') | ('gamma')"],
  ['python NOT java', "('python') & !('java')"],
  ['python -java', "('python') & !('java')"],
  ['"docker networking" setup', "('docker' <-> 'networking') & ('setup')"],
  ['deploy*', "('deploy':*)"],
  ['Auth AND Refactor', "('auth') & ('refactor')"],
  ["it's a trap'; drop", "('it' <-> 's') & ('a') & ('trap') & ('drop')"],
])('reads %j as the tsquery %s', (query, expected) => {
  expect(toTsquery(query)).toBe(expected);
});

it('refuses a query with no word to search for', () => {
  expect(() => toTsquery('*** ""')).toThrow("no searchable word in query '*** \"\"'");
});
