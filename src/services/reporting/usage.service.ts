import { raw } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Mode } from '../../config.js';
import { UsageRecord } from '../../entities/usage-record.entity.js';
import type { Verification } from '../../entities/verification.entity.js';
import { actingEnvironment, type ServiceContext } from '../shared/index.js';

/** Meters one check run in the caller's transaction; sandbox runs are recorded but not billable. */
export function recordUsage(em: EntityManager, verification: Verification, checkType: string): void {
  em.create(UsageRecord, {
    merchant: verification.merchant,
    mode: verification.mode,
    verificationId: verification.id,
    checkType,
    billable: verification.mode === 'live',
  });
}

export interface UsageByCheckType {
  checkType: string;
  count: number;
  billable: number;
}

export interface UsageSummary {
  mode: Mode;
  since: Date | null;
  total: number;
  billable: number;
  byCheckType: UsageByCheckType[];
}

/**
 * Metered check runs of one environment (the key's own) since a lower bound, in one
 * aggregate query grouped by check type; the tenant filter scopes it to the account.
 */
export async function usageSummary(ctx: ServiceContext, since: Date | null, environment?: Mode | null): Promise<UsageSummary> {
  const mode = actingEnvironment(ctx, environment);
  const qb = ctx.em
    .createQueryBuilder(UsageRecord, 'u')
    .select(['u.check_type', raw('count(*)::int as count'), raw('(count(*) filter (where u.billable))::int as billable')])
    .where(since ? { mode, createdAt: { $gte: since } } : { mode })
    .groupBy('u.check_type')
    .orderBy({ checkType: 'asc' });
  await qb.applyFilters();
  const rows = await qb.execute<{ check_type: string; count: number; billable: number }[]>('all', false);
  const byCheckType = rows.map((r) => ({ checkType: r.check_type, count: Number(r.count), billable: Number(r.billable) }));
  return {
    mode,
    since,
    total: byCheckType.reduce((sum, r) => sum + r.count, 0),
    billable: byCheckType.reduce((sum, r) => sum + r.billable, 0),
    byCheckType,
  };
}
