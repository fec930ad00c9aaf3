// Run by scripts/services/temporal-server.sh once the server answers: creates the namespace and
// registers the project's search attributes through the operator API, as on any cluster, then waits
// until a visibility query on them succeeds. Usage: tsx prepare-namespace.ts <address> [namespace]
import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { ensureSearchAttributes } from '../../../src/temporal/search-attribute-registration';
import { HERMES_SEARCH_ATTRIBUTES } from '../../../src/temporal/search-attributes';

const ALREADY_EXISTS = 6;
const DEADLINE_MS = 90_000;
const RETENTION_SECONDS = 24 * 3600;

async function retryUntilDeadline<T>(what: string, deadline: number, attempt: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`${what}: ${(error as Error).message}`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

async function main(): Promise<void> {
  const [address, namespace = 'default'] = process.argv.slice(2);
  if (!address) throw new Error('usage: prepare-namespace.ts <address> [namespace]');
  const deadline = Date.now() + DEADLINE_MS;
  const connection = await retryUntilDeadline('connect', deadline, () => Connection.connect({ address, connectTimeout: 2000 }));
  try {
    await retryUntilDeadline('register the namespace', deadline, async () => {
      try {
        await connection.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs(RETENTION_SECONDS * 1000) });
        console.error(`temporal-server: namespace ${namespace} created`);
      } catch (error) {
        if ((error as { code?: number }).code !== ALREADY_EXISTS) throw error;
      }
    });
    const registered = await retryUntilDeadline('register the search attributes', deadline, () => ensureSearchAttributes(connection, namespace));
    if (registered.length) console.error(`temporal-server: registered ${registered.join(', ')}`);
    // A new namespace reaches every service's cache a few seconds later: wait until visibility
    // answers a query on the attributes the sessions upsert.
    const query = HERMES_SEARCH_ATTRIBUTES.map(({ name, type }) => (type === 'Int' ? `${name} >= 0` : `${name} != ''`)).join(' OR ');
    await retryUntilDeadline('query visibility', deadline, () => connection.workflowService.countWorkflowExecutions({ namespace, query }));
  } finally {
    await connection.close();
  }
}

main().catch((error: unknown) => {
  console.error(`temporal-server: ${(error as Error).message}`);
  process.exit(1);
});
