import type { EntityManager } from '@mikro-orm/postgresql';
import type { Mode } from '../../config.js';
import { UsageRecord } from '../../entities/usage-record.entity.js';
import type { Verification } from '../../entities/verification.entity.js';
import { actingEnvironment, tenantSql, type ServiceContext } from '../shared/index.js';
import { usageSource } from './rollup-source.js';
import { reportingScope } from './window.js';

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
 * Metered check runs of one environment (the key's own) since a lower bound, by check type:
 * read from the usage rollup (exact, kept by a trigger), so it stays fast at volume.
 */
export async function usageSummary(
  ctx: ServiceContext,
  since: Date | null,
  environment?: Mode | null,
): Promise<UsageSummary> {
  const mode = actingEnvironment(ctx, environment);
  const report = await usageReport({ ...ctx, modes: [mode] }, since);
  return { mode, since, total: report.total, billable: report.billable, byCheckType: report.byCheckType };
}

export interface UsageReport {
  modes: Mode[];
  since: Date | null;
  total: number;
  billable: number;
  byCheckType: UsageByCheckType[];
  byEnvironment: { mode: Mode; total: number; billable: number; byCheckType: UsageByCheckType[] }[];
}

const summed = (rows: UsageByCheckType[]) => ({
  total: rows.reduce((sum, r) => sum + r.count, 0),
  billable: rows.reduce((sum, r) => sum + r.billable, 0),
});

/**
 * Metering per check type and per environment over the context's environments (the same
 * usage records as GET /v1/usage): GET /v1/console/usage and the GraphQL usage report.
 */
export async function usageReport(ctx: ServiceContext, since: Date | null): Promise<UsageReport> {
  const source = usageSource(since);
  const rows = await tenantSql(ctx).query<{ mode: Mode; check_type: string; count: number; billable: number }>(
    `select mode, check_type, sum(n)::int as count, (coalesce(sum(n) filter (where billable), 0))::int as billable
       from ${source.sql} s group by mode, check_type having sum(n) <> 0 order by mode, check_type`,
    source.params,
  );
  const merged = new Map<string, UsageByCheckType>();
  for (const r of rows) {
    const entry = merged.get(r.check_type) ?? { checkType: r.check_type, count: 0, billable: 0 };
    entry.count += r.count;
    entry.billable += r.billable;
    merged.set(r.check_type, entry);
  }
  const byCheckType = [...merged.values()].sort((a, b) => a.checkType.localeCompare(b.checkType));
  const byEnvironment = ctx.modes.map((mode) => {
    const own = rows
      .filter((r) => r.mode === mode)
      .map((r) => ({ checkType: r.check_type, count: r.count, billable: r.billable }));
    return { mode, ...summed(own), byCheckType: own };
  });
  return { modes: ctx.modes, since, ...summed(byCheckType), byCheckType, byEnvironment };
}

/** The console's usage: the environment asked for (one the seat lacks: nothing), else every one it holds. */
export async function consoleUsage(
  ctx: ServiceContext,
  filter: { mode?: Mode | null; since?: Date | null },
): Promise<UsageReport> {
  const scoped = reportingScope(ctx, filter.mode);
  const since = filter.since ?? null;
  if (!scoped) return { modes: [], since, total: 0, billable: 0, byCheckType: [], byEnvironment: [] };
  return usageReport(scoped, since);
}
