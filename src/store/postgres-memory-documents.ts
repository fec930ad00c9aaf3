// Memory documents as rows of the PostgreSQL store, so workers on several machines share one
// memory: each change reads and writes its row inside a transaction holding the row's lock.
import type { Pool } from 'pg';
import type { MemoryChange, MemoryDocuments, MemoryTarget } from './memory-documents';

export const memoryTableSql = (table: string) => `
CREATE TABLE IF NOT EXISTS ${table} (
  name TEXT PRIMARY KEY,
  content TEXT NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL
);`;

export class PostgresMemoryDocuments implements MemoryDocuments {
  constructor(
    private readonly pool: Pool,
    private readonly table: string,
    private readonly ready: () => Promise<void>,
  ) {}

  async read(target: MemoryTarget): Promise<string> {
    await this.ready();
    const result = await this.pool.query<{ content: string }>(`SELECT content FROM ${this.table} WHERE name = $1`, [target]);
    return result.rows[0]?.content ?? '';
  }

  async update<T>(target: MemoryTarget, change: (text: string, backup: () => Promise<string>) => MemoryChange<T> | Promise<MemoryChange<T>>): Promise<T> {
    await this.ready();
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      // The row must exist to be locked: the first writer creates it, the others wait on it.
      await client.query(`INSERT INTO ${this.table} (name, content, updated_at) VALUES ($1, '', now()) ON CONFLICT (name) DO NOTHING`, [target]);
      const current = await client.query<{ content: string }>(`SELECT content FROM ${this.table} WHERE name = $1 FOR UPDATE`, [target]);
      const text = current.rows[0]?.content ?? '';
      const backup = async () => {
        const name = `${target}.bak.${Math.floor(Date.now() / 1000)}`;
        await client.query(
          `INSERT INTO ${this.table} (name, content, updated_at) VALUES ($1, $2, now()) ON CONFLICT (name) DO UPDATE SET content = $2, updated_at = now()`,
          [name, text],
        );
        return `${this.table} row '${name}'`;
      };
      const decided = await change(text, backup);
      if (decided.write !== undefined) {
        await client.query(`UPDATE ${this.table} SET content = $2, updated_at = now() WHERE name = $1`, [target, decided.write.replaceAll('\u0000', '')]);
      }
      await client.query('COMMIT');
      return decided.result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }
}
