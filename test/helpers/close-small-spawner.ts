// Each test file has its own module registry, so its own small spawner and helper process (a
// worker process has one). Left running, they piled up in Jest's worker processes (41 of them,
// 1.9 GB, in one run). Closed after the file's tests, unless a command still runs through it:
// this hook runs before the file's own afterAll hooks, which may still wait for such a command.
import { smallSpawner } from '../../src/environments/small-spawner';

afterAll(() => {
  if (smallSpawner.inFlight === 0) smallSpawner.close();
});
