import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type pg from 'pg';

/**
 * Hot paths (the create) talk to PostgreSQL through a connection taken straight from the
 * ORM's pool: the same connections and limits as everything else, without the query
 * building, parameter rewriting and hydration that cost a create most of its CPU.
 * Connections of that pool return timestamps as strings (the ORM's type overrides), so
 * queries here convert them in SQL when they need them.
 */
export interface RawSql {
  /**
   * `name` makes it a prepared statement, parsed and planned once per connection: the
   * create's statements are long CTEs whose planning would otherwise cost as much as running them.
   */
  query<Row = Record<string, unknown>>(text: string, params?: unknown[], name?: string): Promise<Row[]>;
}

interface PoolClient {
  acquireConnection(): Promise<pg.Client>;
  releaseConnection(connection: pg.Client): Promise<void>;
}

/** Runs `work` on one pooled connection, released afterwards whatever happens. */
export async function withConnection<T>(orm: MikroORM, work: (sql: RawSql) => Promise<T>): Promise<T> {
  const pool = orm.em.getConnection().getKnex().client as unknown as PoolClient;
  const connection = await pool.acquireConnection();
  try {
    return await work({ query: async (text, params, name) => (await connection.query(name ? { name, text, values: params } : { text, values: params })).rows });
  } finally {
    await pool.releaseConnection(connection);
  }
}

/** BEGIN ... COMMIT around `work`; any failure rolls back, so nothing is ever half-written. */
export async function inTransaction<T>(sql: RawSql, work: () => Promise<T>): Promise<T> {
  await sql.query('begin');
  try {
    const result = await work();
    await sql.query('commit');
    return result;
  } catch (error) {
    await sql.query('rollback').catch(() => undefined);
    throw error;
  }
}

/**
 * The same RawSql interface on an EntityManager's connection and transaction, so a rule
 * written once in SQL runs both on the create's own connection and inside an ORM
 * transaction. `$n` placeholders are rewritten to knex's positional `?` bindings.
 */
export function rawSqlOf(em: EntityManager): RawSql {
  return {
    async query<Row>(text: string, params: unknown[] = []): Promise<Row[]> {
      const bindings: unknown[] = [];
      const positional = text.replace(/\$(\d+)/g, (_m, n: string) => {
        bindings.push(params[Number(n) - 1]);
        return '?';
      });
      return (await em.getConnection().execute(positional, bindings, 'all', em.getTransactionContext())) as Row[];
    },
  };
}
