import type { Mode } from '../../config.js';
import { permissionError } from '../../errors.js';
import { newId } from '../../ids.js';
import { asDate, tenantSql, type Page, type PageParams, type RawSql, type ServiceContext } from '../shared/index.js';
import { trailPage, type TrailFilter } from './trail.js';

/** What an audit row records (decisions.md); never a value, only names and counts. */
export type AuditAction =
  | 'identity.revealed'
  | 'identity.edited'
  | 'evidence.viewed'
  | 'delivery.body_viewed'
  | 'export.verifications'
  | 'export.verifications_with_identity'
  | 'export.usage';

export interface AuditEntry {
  action: AuditAction;
  mode: Mode;
  verificationId?: string;
  fieldNames?: string[];
  imageCount?: number;
  rowCount?: number;
}

export interface AuditRow {
  id: string;
  memberId: string;
  action: AuditAction;
  mode: Mode;
  verificationId: string | null;
  fieldNames: string[] | null;
  imageCount: number | null;
  rowCount: number | null;
  createdAt: Date;
}

const memberOf = (ctx: ServiceContext): string => {
  if (ctx.caller.kind !== 'member') throw permissionError('MEMBER_REQUIRED', 'Audited reads act for a team member.');
  return ctx.caller.memberId;
};

/**
 * Appends an audit row naming the member (on `sql` when the read runs in a transaction). The
 * table refuses updates and deletes, so a row, once written, stays.
 */
export async function recordAudit(ctx: ServiceContext, entry: AuditEntry, sql?: RawSql): Promise<void> {
  // The row's environment must be one the context may act in: the select yields nothing otherwise.
  const written = await tenantSql(ctx, sql).query(
    `insert into audit_events (id, merchant_id, mode, member_id, action, verification_id, field_names, image_count, row_count, created_at)
     select $3, t.merchant_id, t.mode, $4, $5, $6, $7, $8, $9, now()
       from (select $1::text as merchant_id, $10::text as mode) t
      where t.merchant_id = $1 and t.mode = any($2::text[])
     returning id`,
    [
      newId('aud'),
      memberOf(ctx),
      entry.action,
      entry.verificationId ?? null,
      entry.fieldNames ?? null,
      entry.imageCount ?? null,
      entry.rowCount ?? null,
      entry.mode,
    ],
    'idv_record_audit',
  );
  if (written.length !== 1) throw new Error(`audit row not written (${entry.action} in ${entry.mode})`);
}

/** The account's audit rows of the seat's environments, newest first, cursor-paginated. */
export async function listAudit(
  ctx: ServiceContext,
  params: PageParams,
  filter: TrailFilter = {},
): Promise<Page<AuditRow>> {
  return trailPage(
    ctx,
    'audit_events',
    'id, member_id, action, mode, verification_id, field_names, image_count, row_count, created_at',
    params,
    (r) => ({
      id: r.id as string,
      memberId: r.member_id as string,
      action: r.action as AuditAction,
      mode: r.mode as Mode,
      verificationId: (r.verification_id as string | null) ?? null,
      fieldNames: (r.field_names as string[] | null) ?? null,
      imageCount: (r.image_count as number | null) ?? null,
      rowCount: (r.row_count as number | null) ?? null,
      createdAt: asDate(r.created_at as string),
    }),
    filter,
  );
}
