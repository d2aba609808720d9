import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { ServiceContext } from './context.js';

/**
 * The one way this codebase writes SQL by hand: a RawSql with PostgreSQL's `$1, $2...`
 * placeholders, obtained from one of
 * - `tenantSql(ctx)`: request paths, and any statement on one account's rows; binds the
 *   context's account as `$1` and its environments as `$2` and refuses a statement that does
 *   not use both (tenancy enforced here for SQL, as the ORM's filters enforce it for entities);
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

/**
 * The account and the one environment a write's new rows take, as a CTE named `tenant`
 * (`insert ... select t.merchant_id, t.mode, ... from tenant t`): tenantSql's `$1` and the single
 * environment of `$2`, never a parameter of the write's own. A statement using it runs only for a
 * context acting in exactly one environment.
 */
export const TENANT_ROW = 'tenant as (select $1::text as merchant_id, ($2::text[])[1] as mode)';

/** The account an account-wide row (settings: no environment) is written for, as a CTE named `account`. */
export const ACCOUNT_ROW = 'account as (select $1::text as merchant_id, $2::text[] as modes)';

/**
 * A piece of a statement written for tenantSql (`$1` the account, `$2` the environments, its own
 * parameters from `$3`) placed after `offset` parameters of other pieces: its own `$n` become
 * `$(n + offset)`, the tenant's stay. How one domain's rule joins a statement another composes.
 */
export const placeFragment = (fragment: string, offset: number): string =>
  fragment.replace(/\$(\d+)/g, (whole, n: string) => (Number(n) <= 2 ? whole : `$${Number(n) + offset}`));

/** What tenantSql binds: the account and its environments; the runtime's pool when no connection is given. */
export type TenantScope = Pick<ServiceContext, 'merchantId' | 'modes'> & Partial<Pick<ServiceContext, 'runtime'>>;

/** A statement that could read or write across accounts or environments. */
export class UnscopedStatementError extends Error {}

/** Why `text` is not tenant-bound, or null when it is (see tenantSql). */
export function unscopedReason(text: string, modes: readonly string[]): string | null {
  if (text.includes(TENANT_ROW)) return modes.length === 1 ? null : 'a write needs exactly one environment';
  if (text.includes(ACCOUNT_ROW)) return null;
  if (BINDS_TENANT.test(text) && BINDS_MODES.test(text)) return null;
  return 'statement does not bind the account and environments';
}

/**
 * Tenant-bound SQL, the one way a request path writes SQL by hand: `$1` is the scope's account
 * and `$2` its environments (text[]); the caller's own parameters start at `$3`. A statement
 * is refused before it runs unless it reads with `merchant_id = $1` and
 * `mode = any($2::text[])`, or writes its rows' account and environment from TENANT_ROW (or the
 * account from ACCOUNT_ROW, for account-wide rows). Runs on `sql` when given (a transaction),
 * else on a pooled connection per statement.
 */
export function tenantSql(scope: TenantScope, sql?: RawSql): RawSql {
  const runtime = scope.runtime;
  if (!sql && !runtime) throw new Error('tenantSql: give a connection or a runtime');
  return {
    async query<Row>(text: string, params: unknown[] = [], name?: string): Promise<Row[]> {
      const reason = unscopedReason(text, scope.modes);
      if (reason) throw new UnscopedStatementError(`${reason}: ${text.trim().slice(0, 80)}`);
      const values = [scope.merchantId, scope.modes, ...params];
      return sql
        ? sql.query<Row>(text, values, name)
        : withConnection(runtime!.orm, (pooled) => pooled.query<Row>(text, values, name));
    },
  };
}

/** A timestamp column as the pool returns it (string) or as a Date. */
export const asDate = (value: Date | string): Date => (value instanceof Date ? value : new Date(value));
