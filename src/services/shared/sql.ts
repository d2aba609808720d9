import type { EntityManager } from '@mikro-orm/postgresql';

type Connection = ReturnType<EntityManager['getConnection']>;

interface PgClient {
  query(config: string | { name?: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

type KnexClient = { acquireConnection(): Promise<PgClient>; releaseConnection(c: PgClient): Promise<unknown> };

/**
 * One read as a named prepared statement on a connection of the ORM's pool, for the hot read
 * paths (the merchant, member sessions, a GraphQL page's checks). Measured here, MikroORM's
 * query building costs ~0.4 ms a findOne and hydration ~0.2 ms an entity, where a prepared
 * statement is parsed and planned once per connection and its rows stay plain objects.
 * Rows are typed as the pool types them (timestamps arrive as strings). Not for use inside a
 * transaction, and raw SQL bypasses the tenancy filters: callers bind merchant and mode.
 * `text` uses $1, $2... placeholders; `name` must be unique to `text`.
 */
export async function preparedRows<T>(connection: Connection, name: string, text: string, values: unknown[]): Promise<T[]> {
  const client = connection.getKnex().client as KnexClient;
  const pg = await client.acquireConnection();
  try {
    return (await pg.query({ name, text, values })).rows as T[];
  } finally {
    await client.releaseConnection(pg);
  }
}

/**
 * One read bounded by a statement timeout, in three round trips: `begin` and `set local` go
 * together as one simple query, then the read, then `commit` (the ORM's transactional() with
 * a separate `set local` takes four). `text` uses $1, $2... placeholders.
 */
export async function readWithTimeout<T>(connection: Connection, timeoutMs: number, text: string, values: unknown[]): Promise<T[]> {
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) throw new Error('readWithTimeout: timeoutMs must be a positive integer');
  const client = connection.getKnex().client as KnexClient;
  const pg = await client.acquireConnection();
  try {
    await pg.query(`begin; set local statement_timeout = ${timeoutMs}`);
    try {
      const { rows } = await pg.query({ text, values });
      await pg.query('commit');
      return rows as T[];
    } catch (error) {
      // A timed-out statement aborts the transaction; the connection goes back clean.
      await pg.query('rollback').catch(() => undefined);
      throw error;
    }
  } finally {
    await client.releaseConnection(pg);
  }
}

/** A timestamp column as the pool returns it (string) or as a Date. */
export const asDate = (value: Date | string): Date => (value instanceof Date ? value : new Date(value));
