import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { ServiceContext } from './context.js';

/**
 * The one way this codebase writes SQL by hand: a RawSql with PostgreSQL's `$1, $2...`
 * placeholders, obtained from one of
 * - `tenantSql(ctx)`: request paths; binds the context's account as `$1` and its
 *   environments as `$2` and refuses a statement that does not use both (tenancy enforced
 *   here for SQL, as the ORM's filters enforce it for entities);
 * - `withConnection(orm, ...)`: one pooled connection for a unit of work (the create's
 *   transaction, system jobs that span accounts by design);
 * - `rawSqlOf(em)`: the connection and transaction an EntityManager is in.
 * Connections of the pool return timestamps as strings (the ORM's type overrides): convert
 * with `asDate`.
 */
export interface RawSql {
  /**
   * `name` makes it a prepared statement, parsed and planned once per connection: the hot
   * paths' statements are long CTEs whose planning would otherwise cost as much as running them.
   */
  query<Row = Record<string, unknown>>(text: string, params?: unknown[], name?: string): Promise<Row[]>;
}

interface PgClient {
  query(config: {
    name?: string;
    text: string;
    values?: unknown[];
  }): Promise<{ rows: unknown[] } | { rows: unknown[] }[]>;
}

interface PoolClient {
  acquireConnection(): Promise<PgClient>;
  releaseConnection(connection: PgClient): Promise<unknown>;
}

/**
 * Runs `work` on one connection of the ORM's pool (the same connections and limits as
 * everything else), released afterwards whatever happens. The only place that reaches into
 * the pool: named prepared statements need the driver's own client.
 */
export async function withConnection<T>(
  orm: Pick<MikroORM, 'em'> | EntityManager,
  work: (sql: RawSql) => Promise<T>,
): Promise<T> {
  const em = 'getConnection' in orm ? orm : orm.em;
  const pool = em.getConnection().getKnex().client as unknown as PoolClient;
  const logger = em.config.getLogger();
  const connection = await pool.acquireConnection();
  try {
    return await work({
      query: async (text, params, name) => {
        const started = Date.now();
        const result = await connection.query(name ? { name, text, values: params } : { text, values: params });
        // Several statements in one simple query answer one result each; the last one's rows are the answer.
        const rows = Array.isArray(result)
          ? ((result.at(-1) as { rows?: unknown[] } | undefined)?.rows ?? [])
          : result.rows;
        // Through the ORM's logger like its own statements, so statement counts and query logs see every one.
        logger.logQuery({ query: text, took: Date.now() - started, results: rows.length, level: 'info' });
        return rows as never[];
      },
    });
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

/** `work` in a transaction whose statements are cancelled after `timeoutMs`. */
export async function withStatementTimeout<T>(sql: RawSql, timeoutMs: number, work: () => Promise<T>): Promise<T> {
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0)
    throw new Error('withStatementTimeout: timeoutMs must be a positive integer');
  // begin and set local go together as one simple query: one round trip fewer on a hot read.
  await sql.query(`begin; set local statement_timeout = ${timeoutMs}`);
  try {
    const result = await work();
    await sql.query('commit');
    return result;
  } catch (error) {
    // A timed-out statement aborts the transaction; the connection goes back clean.
    await sql.query('rollback').catch(() => undefined);
    throw error;
  }
}

/** knex expands an array binding into a list; a text[] parameter goes as its array literal instead. */
const arrayLiteral = (values: unknown[]): string =>
  `{${values.map((v) => (v === null || v === undefined ? 'NULL' : `"${String(v).replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`)).join(',')}}`;

/**
 * The same RawSql on an EntityManager's connection and transaction, so a rule written once
 * in SQL runs both on a pooled connection and inside an ORM transaction. `$n` placeholders
 * are rewritten to knex's positional `?` bindings.
 */
export function rawSqlOf(em: EntityManager): RawSql {
  return {
    async query<Row>(text: string, params: unknown[] = []): Promise<Row[]> {
      const bindings: unknown[] = [];
      const positional = text.replace(/\$(\d+)/g, (_m, n: string) => {
        const value = params[Number(n) - 1];
        bindings.push(Array.isArray(value) ? arrayLiteral(value) : value);
        return '?';
      });
      return (await em.getConnection().execute(positional, bindings, 'all', em.getTransactionContext())) as Row[];
    },
  };
}

const BINDS_TENANT = /\bmerchant_id\s*=\s*\$1\b/;
const BINDS_MODES = /\bmode\s*=\s*any\(\$2::text\[\]\)/;

/** What tenantSql binds: the account, its environments, and the runtime's pool. */
export type TenantScope = Pick<ServiceContext, 'merchantId' | 'modes' | 'runtime'>;

/** A statement that could read or write across accounts or environments. */
export class UnscopedStatementError extends Error {}

/**
 * Tenant-bound SQL for a request: `$1` is the context's account and `$2` its environments
 * (text[]); the caller's own parameters start at `$3`. A statement without
 * `merchant_id = $1` and `mode = any($2::text[])` is refused before it runs. Runs on `sql`
 * when given (a transaction), else on a pooled connection per statement.
 */
export function tenantSql(ctx: TenantScope, sql?: RawSql): RawSql {
  return {
    async query<Row>(text: string, params: unknown[] = [], name?: string): Promise<Row[]> {
      if (!BINDS_TENANT.test(text) || !BINDS_MODES.test(text))
        throw new UnscopedStatementError(`statement does not bind the account and environments: ${text.slice(0, 80)}`);
      const values = [ctx.merchantId, ctx.modes, ...params];
      return sql
        ? sql.query<Row>(text, values, name)
        : withConnection(ctx.runtime.orm, (pooled) => pooled.query<Row>(text, values, name));
    },
  };
}

/** A timestamp column as the pool returns it (string) or as a Date. */
export const asDate = (value: Date | string): Date => (value instanceof Date ? value : new Date(value));
