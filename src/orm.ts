import { Migrator } from '@mikro-orm/migrations';
import { defineConfig, MikroORM, type EntityManager, type Options } from '@mikro-orm/postgresql';
import type { Mode } from './config.js';
import { ENTITIES, MERCHANT_ENTITIES, TENANT_ENTITIES } from './entities/index.js';
import { MIGRATIONS } from './migrations/index.js';

export interface ScopeArgs {
  merchantId: string;
  modes: Mode[];
}

/**
 * The one place tenancy is enforced: both filters are on by default for their entities,
 * so a query that forgets the account or environment still cannot read another's rows.
 * A query run without filter parameters fails instead of reading unscoped.
 */
const filters = {
  tenant: {
    name: 'tenant',
    default: true,
    entity: TENANT_ENTITIES,
    cond: (args: Record<string, unknown>) => ({ merchant: args.merchantId, mode: { $in: args.modes } }),
  },
  merchant: {
    name: 'merchant',
    default: true,
    entity: MERCHANT_ENTITIES,
    cond: (args: Record<string, unknown>) => ({ merchant: args.merchantId }),
  },
};

export function ormOptions(databaseUrl: string, overrides: Partial<Options> = {}): Options {
  return defineConfig({
    clientUrl: databaseUrl,
    entities: ENTITIES,
    extensions: [Migrator],
    filters,
    forceUtcTimezone: true,
    allowGlobalContext: false,
    discovery: { disableDynamicFileAccess: true },
    migrations: { migrationsList: MIGRATIONS, transactional: true, allOrNothing: true, snapshot: false, silent: true },
    // One connection per concurrent request up to 20: a smaller pool queues requests inside
    // the process while PostgreSQL has capacity left (measured with the bench's 20 connections).
    pool: { min: 0, max: Number(process.env.DATABASE_POOL_MAX) || 20 },
    debug: false,
    ...overrides,
  });
}

export type Orm = MikroORM;

export async function openOrm(databaseUrl: string, overrides: Partial<Options> = {}): Promise<MikroORM> {
  return MikroORM.init(ormOptions(databaseUrl, overrides));
}

/** Applies every committed migration not yet applied; returns their names. */
export async function migrate(orm: MikroORM): Promise<string[]> {
  const applied = await orm.getMigrator().up();
  return applied.map((m) => m.name);
}

/** A request- or job-scoped EntityManager fork with the tenancy filters bound to one account. */
export function scopedFork(orm: MikroORM, scope: ScopeArgs): EntityManager {
  const em = orm.em.fork({ clear: true, useContext: false });
  em.setFilterParams('tenant', scope);
  em.setFilterParams('merchant', { merchantId: scope.merchantId });
  return em;
}

/** A fork for system work (authentication, jobs, CLI) that must name its scope explicitly. */
export function systemFork(orm: MikroORM): EntityManager {
  return orm.em.fork({ clear: true, useContext: false });
}
