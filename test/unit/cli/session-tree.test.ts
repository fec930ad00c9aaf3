import type { SessionRecord } from '../../../src/store/session-store';
import { depthOf, sessionTree } from '../../../src/cli/session-tree';

const record = (sessionId: string, parentSessionId?: string, createdAt = '2026-01-01T00:00:00Z'): SessionRecord => ({
  sessionId,
  workflowId: `hermes-session-${sessionId}`,
  task: sessionId,
  model: 'm',
  cwd: '/',
  toolNames: [],
  status: 'completed',
  createdAt,
  updatedAt: createdAt,
  ...(parentSessionId ? { parentSessionId } : {}),
});

test('sessions lists each sub-agent under the session that delegated to it, oldest child first', () => {
  const sessions = [record('root'), record('root-sa1', 'root', '2026-01-01T00:00:02Z'), record('root-sa0', 'root', '2026-01-01T00:00:01Z'), record('root-sa0-sa0', 'root-sa0'), record('other')];
  expect(sessionTree(sessions).map((row) => `${row.depth}:${row.session.sessionId}`)).toEqual(['0:root', '1:root-sa0', '2:root-sa0-sa0', '1:root-sa1', '0:other']);
});

test('a sub-agent whose parent is not listed is shown as a root, and depth counts the parents found', () => {
  const sessions = [record('orphan', 'gone'), record('a'), record('b', 'a'), record('c', 'b')];
  expect(sessionTree(sessions).map((row) => row.depth)).toEqual([0, 0, 1, 2]);
  expect(depthOf(sessions[3] as SessionRecord, sessions)).toBe(2);
});
