// The floor's worker process for bench/parked-sessions.ts: Temporal's own trivial workflow waiting
// for a signal, served alone in a process so that its memory can be read from outside.
//   TEMPORAL_ADDRESS=... FLOOR_QUEUE=... [MAX_CACHED_WORKFLOWS=n] node -r tsx/cjs bench/floor/parked-floor-worker.ts
import { NativeConnection, Worker } from '@temporalio/worker';
import { floorActivities } from './floor-activities';

async function main(): Promise<void> {
  const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  const cache = process.env.MAX_CACHED_WORKFLOWS;
  const worker = await Worker.create({
    connection,
    taskQueue: process.env.FLOOR_QUEUE!,
    workflowsPath: require.resolve('./floor-workflows'),
    activities: floorActivities,
    ...(cache ? { maxCachedWorkflows: Number(cache) } : {}),
  });
  process.stderr.write('Worker polling\n');
  await worker.run();
  await connection.close();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
