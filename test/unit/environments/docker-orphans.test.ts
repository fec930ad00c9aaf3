// Which labelled containers the docker reaper removes: an orphan stops by itself when its lifetime
// (`sleep`) ends; a long session's container is started again by its worker and is still in use.
import { isOrphan } from '../../../src/environments/docker/container-lifecycle';

const HOUR = 3600 * 1000;
const now = Date.UTC(2026, 0, 10);

test('a container younger than the bound stays, running or not', () => {
  expect(isOrphan({ createdMs: now - HOUR, running: false, startedMs: 0 }, 12 * HOUR, now)).toBe(false);
  expect(isOrphan({ createdMs: now - HOUR, running: true, startedMs: now - HOUR }, 12 * HOUR, now)).toBe(false);
});

test('an old container that stopped goes', () => {
  expect(isOrphan({ createdMs: now - 13 * HOUR, running: false, startedMs: now - 13 * HOUR }, 12 * HOUR, now)).toBe(true);
});

test("an old container started again within the bound is a long session's, and stays", () => {
  expect(isOrphan({ createdMs: now - 30 * HOUR, running: true, startedMs: now - 5 * HOUR }, 12 * HOUR, now)).toBe(false);
});

test('an old container running since longer than the bound (its sleep stopped by a command) goes', () => {
  expect(isOrphan({ createdMs: now - 30 * HOUR, running: true, startedMs: now - 30 * HOUR }, 12 * HOUR, now)).toBe(true);
  // A daemon that cannot say when it started: treated as running since ever.
  expect(isOrphan({ createdMs: now - 30 * HOUR, running: true, startedMs: 0 }, 12 * HOUR, now)).toBe(true);
});
