import type { Mode } from '../../config.js';
import type { VerificationStatus, Verdict } from '../../entities/verification.entity.js';
import { ApiError, serviceUnavailable } from '../../errors.js';
import {
  actingEnvironment,
  type ServiceContext,
  withConnection,
  withStatementTimeout,
  tenantSql,
  normaliseEmailForMatch,
  type Vault,
} from '../shared/index.js';

/** Spec Limits: at most 1,000 addresses per call. */
export const LOOKUP_MAX_EMAILS = 1000;
/** A lookup that cannot finish in this time answers 503 LOOKUP_UNAVAILABLE instead of hanging. */
export const LOOKUP_STATEMENT_TIMEOUT_MS = 5000;

export interface LookupLatest {
  id: string;
  status: VerificationStatus;
  verdict: Verdict | null;
  score: number | null;
  reasonCodes: string[];
  flowId: string;
  mode: Mode;
  createdAt: Date;
  updatedAt: Date;
  expiresAt: Date | null;
}

export interface LookupRow {
  /** The input, echoed verbatim. */
  email: string;
  found: boolean;
  attempts: number;
  everApproved: boolean;
  firstAttemptAt: Date | null;
  latest: LookupLatest | null;
}

export interface LookupResult {
  mode: Mode;
  rows: LookupRow[];
}

/** What the batch query returns: one row per distinct fingerprint, in the order sent. */
export interface LookupSqlRow {
  fp: string;
  attempts: number;
  ever_approved: boolean | null;
  first_attempt_at: Date | string | null;
  id: string | null;
  status: VerificationStatus | null;
  verdict: Verdict | null;
  score: number | null;
  reason_codes: string[] | null;
  flow_id: string | null;
  mode: Mode | null;
  created_at: Date | string | null;
  updated_at: Date | string | null;
  expires_at: Date | string | null;
}

/**
 * The whole batch in one statement: the distinct fingerprints as a text[] unnested with
 * ordinality, each joined laterally on the (merchant_id, mode, email_fingerprint) index: one
 * index scan per address gives its most recent attempt, with the window aggregates (computed
 * over all its attempts before `limit 1`) giving attempts, ever_approved and first_attempt_at.
 * Parameters: the account and its environment (what tenantSql binds), then the fingerprints as
 * a Postgres array literal ('{a,b}').
 */
export const LOOKUP_SQL = `
with input as (
  select t.fp, t.ord from unnest($3::text[]) with ordinality as t(fp, ord)
)
select i.fp, coalesce(l.attempts, 0)::int as attempts, l.ever_approved, l.first_attempt_at,
       l.id, l.status, l.verdict, l.score, l.reason_codes, l.flow_id, l.mode, l.created_at, l.updated_at, l.expires_at
from input i
left join lateral (
  select v.id, v.status, v.verdict, v.score, v.reason_codes, v.flow_id, v.mode, v.created_at, v.updated_at, v.expires_at,
         count(*) over () as attempts,
         bool_or(v.status = 'approved') over () as ever_approved,
         min(v.created_at) over () as first_attempt_at
  from verifications v
  where v.merchant_id = $1 and v.mode = any($2::text[]) and v.email_fingerprint = i.fp and v.retention_purged_at is null
  order by v.created_at desc, v.id desc
  limit 1
) l on true
order by i.ord`;

/** Fingerprints are lower-case hex, so the array literal needs no quoting. */
export const pgTextArray = (values: string[]): string => {
  for (const value of values)
    if (!/^[0-9a-f]+$/.test(value)) throw new Error('pgTextArray: only hex values are accepted');
  return `{${values.join(',')}}`;
};

/** Each input's fingerprint plus the distinct fingerprints, first occurrence first. */
export function fingerprintEmails(vault: Vault, emails: string[]): { perInput: string[]; distinct: string[] } {
  const cache = new Map<string, string>();
  const perInput = emails.map((email) => {
    const normalised = normaliseEmailForMatch(email);
    let fp = cache.get(normalised);
    if (fp === undefined) {
      fp = vault.fingerprint('email', normalised);
      cache.set(normalised, fp);
    }
    return fp;
  });
  return { perInput, distinct: [...new Set(perInput)] };
}

export const lookupParams = (distinct: string[], merchantId: string, mode: Mode): unknown[] => [
  merchantId,
  [mode],
  pgTextArray(distinct),
];

const asDate = (value: Date | string | null): Date | null =>
  value === null ? null : value instanceof Date ? value : new Date(value);

function toRow(email: string, hit: LookupSqlRow | undefined): LookupRow {
  if (!hit || hit.attempts === 0 || hit.id === null) {
    return { email, found: false, attempts: 0, everApproved: false, firstAttemptAt: null, latest: null };
  }
  return {
    email,
    found: true,
    attempts: hit.attempts,
    everApproved: hit.ever_approved === true,
    firstAttemptAt: asDate(hit.first_attempt_at),
    latest: {
      id: hit.id,
      status: hit.status!,
      verdict: hit.verdict ?? null,
      score: hit.score ?? null,
      reasonCodes: hit.reason_codes ?? [],
      flowId: hit.flow_id!,
      mode: hit.mode!,
      createdAt: asDate(hit.created_at)!,
      updatedAt: asDate(hit.updated_at)!,
      expiresAt: asDate(hit.expires_at),
    },
  };
}

/**
 * POST /v1/verifications/lookup: one row per input, in input order, echoed verbatim; only the
 * caller's account and environment; no identity. Any database failure or a statement over
 * LOOKUP_STATEMENT_TIMEOUT_MS answers 503 LOOKUP_UNAVAILABLE, never an empty result.
 */
export async function lookupVerifications(ctx: ServiceContext, emails: string[]): Promise<LookupResult> {
  const mode = actingEnvironment(ctx);
  const { perInput, distinct } = fingerprintEmails(ctx.runtime.vault, emails);
  let hits: LookupSqlRow[];
  try {
    hits = await withConnection(ctx.runtime.orm, (sql) =>
      withStatementTimeout(sql, LOOKUP_STATEMENT_TIMEOUT_MS, () =>
        tenantSql({ ...ctx, modes: [mode] }, sql).query<LookupSqlRow>(LOOKUP_SQL, [pgTextArray(distinct)]),
      ),
    );
  } catch (error) {
    if (error instanceof ApiError) throw error;
    ctx.log.error({ err: error }, 'lookup unavailable');
    throw serviceUnavailable(
      'LOOKUP_UNAVAILABLE',
      'The lookup cannot be answered right now; treat the addresses as unknown, not unverified, and retry with backoff.',
    );
  }
  const byFingerprint = new Map(hits.map((hit) => [hit.fp, hit]));
  return { mode, rows: emails.map((email, i) => toRow(email, byFingerprint.get(perInput[i]!))) };
}
