import type { Mode } from '../../config.js';
import type { Check } from '../../entities/check.entity.js';
import type { ChangeReason, Consent, Verdict, VerificationStatus } from '../../entities/verification.entity.js';
import {
  type ServiceContext,
  type Page,
  type PageParams,
  asDate,
  tenantSql,
  normaliseEmailForMatch,
} from '../shared/index.js';

/** A verification as a list page shows it: plain values, no identity, relations by id. */
export interface VerificationListItem {
  id: string;
  status: VerificationStatus;
  mode: Mode;
  verdict: Verdict | null;
  score: number | null;
  reasonCodes: string[];
  changeReason: ChangeReason | null;
  identityVersion: number;
  identityEditedAt: Date | null;
  locale: string;
  metadata: Record<string, string>;
  expiresAt: Date;
  createdAt: Date;
  updatedAt: Date;
  flow: { id: string };
  applicant: { id: string } | null;
  consent: Consent | null;
  returnUrl: string | null;
}

interface Row {
  id: string;
  status: VerificationStatus;
  mode: Mode;
  verdict: Verdict | null;
  score: number | null;
  reason_codes: string[];
  change_reason: ChangeReason | null;
  identity_version: number;
  identity_edited_at: string | Date | null;
  locale: string;
  metadata: Record<string, string>;
  expires_at: string | Date;
  created_at: string | Date;
  updated_at: string | Date;
  flow_id: string;
  applicant_id: string | null;
  consent: Consent | null;
  return_url: string | null;
}

const COLUMNS = `v.id, v.status, v.mode, v.verdict, v.score, v.reason_codes, v.change_reason, v.identity_version,
  v.identity_edited_at, v.locale, v.metadata, v.expires_at, v.created_at, v.updated_at, v.flow_id, v.applicant_id,
  v.consent, v.return_url`;

const toItem = (r: Row): VerificationListItem => ({
  id: r.id,
  status: r.status,
  mode: r.mode,
  verdict: r.verdict,
  score: r.score,
  reasonCodes: r.reason_codes,
  changeReason: r.change_reason,
  identityVersion: r.identity_version,
  identityEditedAt: r.identity_edited_at === null ? null : asDate(r.identity_edited_at),
  locale: r.locale,
  metadata: r.metadata,
  expiresAt: asDate(r.expires_at),
  createdAt: asDate(r.created_at),
  updatedAt: asDate(r.updated_at),
  flow: { id: r.flow_id },
  applicant: r.applicant_id === null ? null : { id: r.applicant_id },
  consent: r.consent ?? null,
  returnUrl: r.return_url ?? null,
});

/**
 * The statement for one combination of filters. Each combination is its own prepared
 * statement (not `$n is null or ...`), so PostgreSQL plans the email lookup on its index
 * instead of a generic plan that walks the account's newest rows.
 */
function statement(
  ctx: ServiceContext,
  filter: { status?: string; fingerprint?: string; tagId?: string; createdFrom?: Date; createdBefore?: Date },
  params: PageParams,
) {
  // $1 and $2 are the account and environments tenantSql binds.
  const values: unknown[] = [null, null];
  const where = ['v.merchant_id = $1', 'v.mode = any($2::text[])'];
  let name = 'idv_verification_page_';
  if (filter.status !== undefined) {
    values.push(filter.status);
    where.push(`v.status = $${values.length}`);
    name += 's';
  }
  if (filter.fingerprint !== undefined) {
    values.push(filter.fingerprint);
    where.push(`v.email_fingerprint = $${values.length}`);
    name += 'e';
  }
  if (filter.tagId !== undefined) {
    values.push(filter.tagId);
    // The tag must be the context's own: another account's tag id filters to nothing.
    where.push(`exists (select 1 from verification_tags vt join tags t on t.id = vt.tag_id
                        where vt.verification_id = v.id and vt.tag_id = $${values.length} and t.merchant_id = $1)`);
    name += 't';
  }
  if (filter.createdFrom !== undefined) {
    values.push(filter.createdFrom);
    where.push(`v.created_at >= $${values.length}`);
    name += 'f';
  }
  if (filter.createdBefore !== undefined) {
    values.push(filter.createdBefore);
    where.push(`v.created_at < $${values.length}`);
    name += 'b';
  }
  if (params.startingAfter !== undefined) {
    values.push(params.startingAfter);
    // An id unknown in the caller's scope is ignored and the first page returned (as paginate() does).
    const c = `select c.created_at, c.id from verifications c where c.id = $${values.length} and c.merchant_id = $1 and c.mode = any($2::text[])`;
    where.push(`(not exists (${c}) or (v.created_at, v.id) < (${c}))`);
    name += 'c';
  }
  values.push(params.limit + 1);
  const text = `select ${COLUMNS} from verifications v where ${where.join(' and ')} order by v.created_at desc, v.id desc limit $${values.length}`;
  return { name, text, values: values.slice(2) };
}

/**
 * A page of the context's verifications, newest first on (created_at, id), with the same
 * filters, cursor and `limit + 1` has-more rule as the REST list, read as plain rows: GraphQL
 * pages of up to 100 verifications spent most of their time hydrating managed entities.
 * tenantSql binds the account and environments.
 */
export async function listVerificationItems(
  ctx: ServiceContext,
  filter: { status?: VerificationStatus; email?: string; tagId?: string; createdFrom?: Date; createdBefore?: Date },
  params: PageParams,
): Promise<Page<VerificationListItem>> {
  const fingerprint =
    filter.email === undefined
      ? undefined
      : ctx.runtime.vault.fingerprint('email', normaliseEmailForMatch(filter.email));
  const { name, text, values } = statement(
    ctx,
    {
      status: filter.status,
      fingerprint,
      tagId: filter.tagId,
      createdFrom: filter.createdFrom,
      createdBefore: filter.createdBefore,
    },
    params,
  );
  const rows = await tenantSql(ctx).query<Row>(text, values, name);
  const hasMore = rows.length > params.limit;
  const data = (hasMore ? rows.slice(0, params.limit) : rows).map(toItem);
  return { data, hasMore, nextCursor: hasMore ? data[data.length - 1]!.id : null };
}

/**
 * One of the context's verifications as a plain row, or null (unknown, malformed, or another
 * account's or environment's id): the read integrators poll, without hydrating entities.
 */
export async function verificationItem(ctx: ServiceContext, id: string): Promise<VerificationListItem | null> {
  if (!/^vs_[0-9A-Za-z]+$/.test(id)) return null;
  const rows = await tenantSql(ctx).query<Row>(
    `select ${COLUMNS} from verifications v where v.id = $3 and v.merchant_id = $1 and v.mode = any($2::text[])`,
    [id],
    'idv_verification_item',
  );
  return rows[0] ? toItem(rows[0]) : null;
}

/** A check as a list shows it: plain values (the REST presenter and GraphQL's CheckType read these). */
export type CheckItem = Pick<
  Check,
  | 'id'
  | 'type'
  | 'status'
  | 'required'
  | 'verdict'
  | 'score'
  | 'providerTier'
  | 'reasonCodes'
  | 'findings'
  | 'createdAt'
  | 'updatedAt'
  | 'position'
>;

interface CheckRow {
  id: string;
  verification_id: string;
  type: Check['type'];
  status: Check['status'];
  required: boolean;
  verdict: Check['verdict'];
  score: number | null;
  provider_tier: Check['providerTier'];
  reason_codes: string[];
  findings: Check['findings'];
  position: number;
  created_at: string | Date;
  updated_at: string | Date;
}

/**
 * The checks of many verifications (a page's), in their order, as plain rows in one prepared
 * statement: a page of 100 verifications carries a few hundred checks, and hydrating them as
 * managed entities cost more than the rest of the request; nothing in a read writes them back.
 * tenantSql binds the account and environments.
 */
export async function checksOfVerifications(
  ctx: ServiceContext,
  ids: readonly string[],
): Promise<Map<string, CheckItem[]>> {
  const grouped = new Map<string, CheckItem[]>(ids.map((id) => [id, []]));
  if (ids.length === 0) return grouped;
  const rows = await tenantSql(ctx).query<CheckRow>(
    `select id, verification_id, type, status, required, verdict, score, provider_tier, reason_codes, findings, position, created_at, updated_at
       from checks where merchant_id = $1 and mode = any($2::text[]) and verification_id = any($3::text[])
      order by verification_id, position`,
    [[...ids]],
    'idv_checks_by_verification',
  );
  for (const row of rows) {
    grouped.get(row.verification_id)?.push({
      id: row.id,
      type: row.type,
      status: row.status,
      required: row.required,
      verdict: row.verdict,
      score: row.score,
      providerTier: row.provider_tier,
      reasonCodes: row.reason_codes,
      findings: row.findings,
      position: row.position,
      createdAt: asDate(row.created_at),
      updatedAt: asDate(row.updated_at),
    });
  }
  return grouped;
}

/** Plain rows of several of the context's verifications in one statement (a GraphQL page's); unknown ids are absent. */
export async function verificationItemsByIds(
  ctx: ServiceContext,
  ids: readonly string[],
): Promise<Map<string, VerificationListItem>> {
  if (ids.length === 0) return new Map();
  const rows = await tenantSql(ctx).query<Row>(
    `select ${COLUMNS} from verifications v where v.merchant_id = $1 and v.mode = any($2::text[]) and v.id = any($3::text[])`,
    [[...ids]],
    'idv_verification_items',
  );
  return new Map(rows.map((row) => [row.id, toItem(row)]));
}
