import { pipeline, Readable } from 'node:stream';
import type { Mode } from '../../config.js';
import type { Identity } from '../../engine/types.js';
import type { Consent } from '../../entities/verification.entity.js';
import { recordAudit } from '../audit/index.js';
import { authorize } from '../access/index.js';
import { asDate, tenantSql, type ServiceContext } from '../shared/index.js';
import { csvWriter } from './csv.js';

/** Spec, Limits: a back-office export carries at most 5,000 rows. */
export const EXPORT_ROW_CAP = 5_000;
const BATCH = 1_000;

/** A CSV answer: the row count and whether the cap cut it (X-Rows, X-Truncated), then the stream. */
export interface CsvExport {
  rows: number;
  truncated: boolean;
  filename: string;
  stream: Readable;
}

export interface VerificationExportInput {
  since?: Date;
  includeIdentity: boolean;
  /** One environment of the seat; omitted: every environment it holds. */
  mode?: Mode;
}

const OUTCOME_COLUMNS = [
  'id',
  'mode',
  'status',
  'verdict',
  'decline_type',
  'reason_codes',
  'change_reason',
  'flow_id',
  'created_at',
  'decided_at',
  'consent_version',
  'consent_language',
  'consent_given_at',
  'return_url',
] as const;
/** The identity columns (decisions.md applicant field keys) added with include_identity. */
const IDENTITY_COLUMNS = [
  'identity_status',
  'email',
  'reference_id',
  'first_name',
  'last_name',
  'date_of_birth',
  'sex',
  'nationality',
  'document_type',
  'document_number',
  'issuing_country',
  'expiry_date',
  'national_id',
] as const;

/** The applicant's consent recorded by the hosted page (empty cells until given). */
const consentCells = (consent: Consent | null) => ({
  consent_version: consent?.version ?? null,
  consent_language: consent?.language ?? null,
  consent_given_at: consent?.given_at ?? null,
});

const modesOf = (ctx: ServiceContext, mode?: Mode): Mode[] => (mode ? ctx.modes.filter((m) => m === mode) : ctx.modes);

/** Identity cells of one row; `identity_status` says whether data is held, purged/none, or unreadable. */
function identityCells(ctx: ServiceContext, ciphertext: string | null): Record<string, string | null> {
  if (!ciphertext) return { identity_status: 'none' };
  let identity: Identity;
  try {
    identity = ctx.runtime.vault.decrypt<Identity>(ciphertext);
  } catch {
    return { identity_status: 'unreadable' };
  }
  const doc = identity.document ?? {};
  return {
    identity_status: 'held',
    email: identity.email ?? null,
    reference_id: identity.reference_id ?? null,
    first_name: doc.first_name ?? null,
    last_name: doc.last_name ?? null,
    date_of_birth: doc.date_of_birth ?? null,
    sex: doc.sex ?? null,
    nationality: doc.nationality ?? null,
    document_type: doc.type ?? null,
    document_number: doc.number ?? null,
    issuing_country: doc.issuing_country ?? null,
    expiry_date: doc.expiry_date ?? null,
    national_id: doc.national_id ?? null,
  };
}

/**
 * Verifications of the seat's environments as CSV, newest first, at most 5,000 rows. The rows
 * are bounded by the moment of the request, so the counted rows (X-Rows) are exactly the rows
 * streamed. Audited before the first byte, per environment, as export.verifications or, with
 * identity, export.verifications_with_identity (row counts only, never values).
 */
export async function exportVerifications(ctx: ServiceContext, input: VerificationExportInput): Promise<CsvExport> {
  // Spec: verifications.export requires verifications.reveal (both surfaces, whatever the grant path).
  await authorize(ctx, { permission: 'verifications.export' });
  await authorize(ctx, { permission: 'verifications.reveal' });
  const modes = modesOf(ctx, input.mode);
  const scoped = { ...ctx, modes };
  const upTo = new Date();
  const since = input.since ?? new Date(0);
  const head = modes.length
    ? await tenantSql(scoped).query<{ mode: Mode }>(
        `select v.mode from verifications v
          where v.merchant_id = $1 and v.mode = any($2::text[]) and v.created_at >= $3 and v.created_at <= $4
          order by v.created_at desc, v.id desc limit $5`,
        [since.toISOString(), upTo.toISOString(), EXPORT_ROW_CAP + 1],
      )
    : [];
  const rows = Math.min(head.length, EXPORT_ROW_CAP);
  const action = input.includeIdentity ? 'export.verifications_with_identity' : 'export.verifications';
  for (const mode of modes) {
    const count = head.slice(0, rows).filter((r) => r.mode === mode).length;
    await recordAudit(ctx, { action, mode, rowCount: count });
  }
  const columns = input.includeIdentity ? [...OUTCOME_COLUMNS, ...IDENTITY_COLUMNS] : [...OUTCOME_COLUMNS];

  async function* records(): AsyncGenerator<Record<string, unknown>> {
    let sent = 0;
    let after: { createdAt: string; id: string } | null = null;
    while (sent < rows) {
      const batch: Record<string, unknown>[] = await tenantSql(scoped).query<Record<string, unknown>>(
        `select v.id, v.mode, v.status, v.verdict, v.decline_type, v.reason_codes, v.change_reason, v.flow_id, v.created_at, v.decided_at, v.consent, v.return_url${input.includeIdentity ? ', v.identity' : ''}
           from verifications v
          where v.merchant_id = $1 and v.mode = any($2::text[]) and v.created_at >= $3 and v.created_at <= $4
            and ($5::timestamptz is null or (v.created_at, v.id) < ($5::timestamptz, $6::text))
          order by v.created_at desc, v.id desc limit $7`,
        [
          since.toISOString(),
          upTo.toISOString(),
          after?.createdAt ?? null,
          after?.id ?? null,
          Math.min(BATCH, rows - sent),
        ],
      );
      if (batch.length === 0) return;
      for (const r of batch) {
        yield {
          id: r.id,
          mode: r.mode,
          status: r.status,
          verdict: r.verdict,
          decline_type: r.decline_type,
          reason_codes: ((r.reason_codes as string[] | null) ?? []).join(' '),
          change_reason: r.change_reason,
          flow_id: r.flow_id,
          created_at: asDate(r.created_at as string),
          decided_at: r.decided_at ? asDate(r.decided_at as string) : null,
          ...consentCells(r.consent as Consent | null),
          return_url: r.return_url ?? null,
          ...(input.includeIdentity ? identityCells(ctx, r.identity as string | null) : {}),
        };
      }
      sent += batch.length;
      const last = batch[batch.length - 1]!;
      after = { createdAt: asDate(last.created_at as string).toISOString(), id: last.id as string };
    }
  }

  return {
    rows,
    truncated: head.length > EXPORT_ROW_CAP,
    filename: `verifications-${upTo.toISOString().slice(0, 10)}.csv`,
    stream: csvStream(ctx, columns, records()),
  };
}

/** Metered check runs per UTC day, environment and check type since `since` (default: everything), as CSV; audited as export.usage. */
export async function exportUsage(ctx: ServiceContext, input: { since?: Date; mode?: Mode }): Promise<CsvExport> {
  await authorize(ctx, { permission: 'usage.export' });
  const modes = modesOf(ctx, input.mode);
  const found = modes.length
    ? await tenantSql({ ...ctx, modes }).query<{
        day: string;
        mode: Mode;
        check_type: string;
        count: number;
        billable: number;
      }>(
        `select to_char(u.created_at at time zone 'UTC', 'YYYY-MM-DD') as day, u.mode, u.check_type,
                count(*)::int as count, (count(*) filter (where u.billable))::int as billable
           from usage_records u
          where u.merchant_id = $1 and u.mode = any($2::text[]) and ($3::timestamptz is null or u.created_at >= $3)
          group by 1, 2, 3 order by 1 desc, 2, 3 limit $4`,
        [input.since?.toISOString() ?? null, EXPORT_ROW_CAP + 1],
      )
    : [];
  const rows = found.slice(0, EXPORT_ROW_CAP);
  for (const mode of modes)
    await recordAudit(ctx, { action: 'export.usage', mode, rowCount: rows.filter((r) => r.mode === mode).length });
  const records = rows.map((r) => ({
    day: r.day,
    environment: r.mode,
    check_type: r.check_type,
    count: Number(r.count),
    billable: Number(r.billable),
  }));
  return {
    rows: rows.length,
    truncated: found.length > EXPORT_ROW_CAP,
    filename: `usage-${new Date().toISOString().slice(0, 10)}.csv`,
    stream: csvStream(ctx, ['day', 'environment', 'check_type', 'count', 'billable'], Readable.from(records)),
  };
}

/** Rows through the CSV writer; a failure mid-stream is logged and ends the answer early. */
function csvStream(
  ctx: ServiceContext,
  columns: readonly string[],
  source: AsyncIterable<Record<string, unknown>> | Readable,
): Readable {
  const writer = csvWriter(columns);
  pipeline(source instanceof Readable ? source : Readable.from(source), writer, (error) => {
    if (error) ctx.log.error({ err: error }, 'export stream failed');
  });
  return writer;
}
