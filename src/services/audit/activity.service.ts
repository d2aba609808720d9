import type { Mode } from '../../config.js';
import { newId } from '../../ids.js';
import { asDate, tenantSql, type Page, type PageParams, type RawSql, type ServiceContext } from '../shared/index.js';
import { trailPage, type TrailFilter } from './trail.js';

/** A team activity row (decisions.md): who did what to which target, through which surface; never applicant details. */
export interface ActivityRow {
  id: string;
  memberId: string | null;
  action: string;
  mode: Mode;
  targetType: string;
  targetId: string;
  surface: string;
  /** What names the target besides its id (an API key's `name` and `key_prefix`); never a secret or applicant data. */
  detail: Record<string, string> | null;
  createdAt: Date;
}

/** Records one write of the workbench (on `sql` when it runs in the write's transaction). */
export async function recordActivity(
  ctx: ServiceContext,
  entry: { action: string; mode: Mode; targetType: string; targetId: string; detail?: Record<string, string> },
  sql?: RawSql,
): Promise<void> {
  const memberId = ctx.caller.kind === 'member' ? ctx.caller.memberId : null;
  const surface = ctx.surface ?? (ctx.caller.kind === 'key' ? 'api' : 'cli');
  await tenantSql(ctx, sql).query(
    `insert into activity_events (id, merchant_id, mode, member_id, action, target_type, target_id, surface, detail, created_at)
     select $3, t.merchant_id, t.mode, $4, $5, $6, $7, $8, $10::jsonb, now()
       from (select $1::text as merchant_id, $9::text as mode) t
      where t.merchant_id = $1 and t.mode = any($2::text[])`,
    [
      newId('act'),
      memberId,
      entry.action,
      entry.targetType,
      entry.targetId,
      surface,
      entry.mode,
      entry.detail ? JSON.stringify(entry.detail) : null,
    ],
    'idv_record_activity',
  );
}

/** The team's activity in the seat's environments, newest first, cursor-paginated. */
export async function listActivity(
  ctx: ServiceContext,
  params: PageParams,
  filter: TrailFilter = {},
): Promise<Page<ActivityRow>> {
  return trailPage(
    ctx,
    'activity_events',
    'id, member_id, action, mode, target_type, target_id, surface, detail, created_at',
    params,
    (r) => ({
      id: r.id as string,
      memberId: (r.member_id as string | null) ?? null,
      action: r.action as string,
      mode: r.mode as Mode,
      targetType: r.target_type as string,
      targetId: r.target_id as string,
      surface: r.surface as string,
      detail: (r.detail as Record<string, string> | null) ?? null,
      createdAt: asDate(r.created_at as string),
    }),
    filter,
  );
}
