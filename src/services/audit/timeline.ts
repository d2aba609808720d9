import { asDate, tenantSql, type ServiceContext } from '../shared/index.js';

export interface VerificationEventRow {
  id: string;
  type: string;
  createdAt: Date;
}

/** The events (outbox) of one verification of the seat's environments, oldest first, at most 200; types only, never payloads. */
export async function listVerificationEvents(
  ctx: ServiceContext,
  verificationId: string,
): Promise<VerificationEventRow[]> {
  const rows = await tenantSql(ctx).query<{ id: string; type: string; created_at: string }>(
    `select e.id, e.type, e.created_at from events e
      where e.merchant_id = $1 and e.mode = any($2::text[]) and e.verification_id = $3
      order by e.created_at, e.id limit 200`,
    [verificationId],
    'idv_verification_events',
  );
  return rows.map((r) => ({ id: r.id, type: r.type, createdAt: asDate(r.created_at) }));
}
