import { tenantSql, type ServiceContext } from '../shared/index.js';
import { windowOf, type ReportingFilter } from './window.js';

/**
 * Which keys of the verification rollup a question reads: the status keys, the status keys
 * split by reason code, or the time-to-decision keys (see the ReportingRollups migration).
 */
export type Slice = 'status' | 'reasons' | 'latency';

const SLICE_CONDITION: Record<Slice, string> = {
  status: `reason_code = '' and latency_bucket = -1`,
  reasons: `reason_code <> '' and latency_bucket = -1`,
  latency: `reason_code = '' and latency_bucket >= 0`,
};

const KEY_COLUMNS = 'day, flow_id, reason_code, status, change_reason, submitted, latency_bucket';

/**
 * The rows of a reporting question as one SQL source: folded rollup rows for whole days,
 * plus the deltas not folded yet, plus the rows of a partial first day keyed on the fly as
 * the triggers key them. One statement, one snapshot: the sum is exact.
 * Parameters: $1 account, $2 environments, then the returned `params` from $3 on.
 */
export function verificationSource(slice: Slice, filter: ReportingFilter): { sql: string; params: unknown[] } {
  const params: unknown[] = [filter.tagId ?? ''];
  const bind = (value: unknown) => {
    params.push(value);
    return `$${params.length + 2}`;
  };
  const window = windowOf(filter.since);
  const common = [`merchant_id = $1`, `mode = any($2::text[])`, `tag_id = $3`, SLICE_CONDITION[slice]];
  if (filter.flowId) common.push(`flow_id = ${bind(filter.flowId)}`);
  if (window.fromDay) common.push(`day >= ${bind(window.fromDay)}::date`);
  const where = common.join(' and ');
  const parts = [
    `select ${KEY_COLUMNS}, n from reporting_rollup where ${where}`,
    `select ${KEY_COLUMNS}, n from reporting_deltas where ${where}`,
  ];
  if (window.partial) {
    const raw = [
      `v.merchant_id = $1`,
      `v.mode = any($2::text[])`,
      `v.created_at >= ${bind(window.partial.since)}`,
      `v.created_at < ${bind(window.partial.end)}`,
    ];
    if (filter.flowId) raw.push(`v.flow_id = ${bind(filter.flowId)}`);
    if (filter.tagId)
      raw.push(`exists (select 1 from verification_tags vt where vt.verification_id = v.id and vt.tag_id = $3)`);
    parts.push(RAW_KEYS[slice](raw.join(' and ')));
  }
  return { sql: `(${parts.join('\n union all\n')})`, params };
}

const DAY_OF = `(v.created_at at time zone 'UTC')::date`;

/**
 * The keys of the rows of a partial first day, per slice: what reporting_keys() gives the
 * triggers for the slice (tag already narrowed by the caller), written out so that reading a
 * day of rows is a plain scan instead of a function call per row.
 */
const RAW_KEYS: Record<Slice, (where: string) => string> = {
  status: (where) =>
    `select ${DAY_OF}, v.flow_id, '', v.status, coalesce(v.change_reason, ''), v.submitted_at is not null, -1, 1 from verifications v where ${where}`,
  reasons: (where) =>
    `select ${DAY_OF}, v.flow_id, r.code, v.status, coalesce(v.change_reason, ''), v.submitted_at is not null, -1, 1
       from verifications v cross join lateral (select distinct x as code from unnest(v.reason_codes) x where x <> '') r where ${where}`,
  latency: (where) =>
    `select ${DAY_OF}, v.flow_id, '', '', v.change_reason, false, reporting_latency_bucket(extract(epoch from (v.decided_at - v.created_at)) * 1000), 1
       from verifications v where ${where} and v.status in ('approved', 'rejected') and v.change_reason is not null and v.decided_at is not null`,
};

/** Runs `select ... from <source> s ...` for a slice under the context's tenancy. */
export async function queryVerificationKeys<Row>(
  ctx: ServiceContext,
  slice: Slice,
  filter: ReportingFilter,
  select: (source: string) => string,
): Promise<Row[]> {
  const source = verificationSource(slice, filter);
  return tenantSql(ctx).query<Row>(select(source.sql), source.params);
}

/** The same for usage records: folded rollup, pending deltas, and the partial first day's records. */
export function usageSource(since: Date | null | undefined): { sql: string; params: unknown[] } {
  const params: unknown[] = [];
  const bind = (value: unknown) => {
    params.push(value);
    return `$${params.length + 2}`;
  };
  const window = windowOf(since);
  const where = [`merchant_id = $1`, `mode = any($2::text[])`];
  if (window.fromDay) where.push(`day >= ${bind(window.fromDay)}::date`);
  const parts = [
    `select mode, check_type, billable, n from usage_rollup where ${where.join(' and ')}`,
    `select mode, check_type, billable, n from usage_deltas where ${where.join(' and ')}`,
  ];
  if (window.partial) {
    parts.push(
      `select mode, check_type, billable, 1 as n from usage_records
        where merchant_id = $1 and mode = any($2::text[]) and created_at >= ${bind(window.partial.since)} and created_at < ${bind(window.partial.end)}`,
    );
  }
  return { sql: `(${parts.join('\n union all\n')})`, params };
}
