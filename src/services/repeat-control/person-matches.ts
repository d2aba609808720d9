import type { Mode } from '../../config.js';
import { tenantSql, type RawSql } from '../shared/index.js';
import type { Fingerprints } from '../verifications/index.js';

export type MatchedOn = 'reference' | 'email' | 'document';

/**
 * The one matching rule of repeat control (R2, R3, R5, R9, R10), used at create (reference,
 * email) and when the document is read (document number, national id): among the person's
 * verifications of this account and environment (and flow, for scope same_flow), the newest
 * approval that still refuses (R9: before its document's expiry and the re-verification
 * period) and the newest case waiting on review, each in R2's order (reference, email,
 * document). Runs after the person's locks, so it sees what a concurrent create committed.
 */
const PERSON_MATCHES = `
with candidates as (
  select v.id, case when v.reference_fingerprint = $3 then 0 when v.email_fingerprint = $4 then 1 else 2 end as rank
  from verifications v
  where v.merchant_id = $1 and v.mode = any($2::text[]) and v.status in ('approved', 'manual_review')
    and (v.reference_fingerprint = $3 or v.email_fingerprint = $4 or v.document_fingerprint = $5 or v.national_id_fingerprint = $6)
  union all
  -- Team edits add the fingerprints of each new identity version (decisions.md): they match too.
  select iv.verification_id, case when iv.reference_fingerprint = $3 then 0 when iv.email_fingerprint = $4 then 1 else 2 end
  from identity_versions iv
  where iv.merchant_id = $1 and iv.mode = any($2::text[])
    and (iv.reference_fingerprint = $3 or iv.email_fingerprint = $4 or iv.document_fingerprint = $5 or iv.national_id_fingerprint = $6)
),
person as (
  select v.id, v.status, v.verdict, v.created_at, v.decided_at, c.rank,
         least(case when v.document_expires_on is not null then (v.document_expires_on + time '23:59:59') at time zone 'UTC' end,
               case when $8::int > 0 and v.decided_at is not null then v.decided_at + make_interval(days => $8::int) end) as valid_until
  from (select id, min(rank) as rank from candidates group by id) c
  join verifications v on v.id = c.id
  where v.merchant_id = $1 and v.mode = any($2::text[]) and v.status in ('approved', 'manual_review')
    and ($7::text is null or v.flow_id = $7) and ($9::text is null or v.id <> $9)
)
(select 'approval' as kind, a.id, a.status, a.verdict, a.rank, (extract(epoch from a.valid_until) * 1000)::float8 as valid_until_ms,
        g.id as grant_id, g.spent_at is not null as grant_spent
 from person a
 left join lateral (
   select g.id, g.spent_at from reverification_grants g
   where g.verification_id = a.id and g.merchant_id = $1
     and ((g.spent_at is null and g.revoked_at is null and g.expires_at > now()) or ($9::text is not null and g.spent_by_verification_id = $9))
   order by g.spent_at nulls last limit 1
 ) g on true
 where a.status = 'approved' and (a.valid_until is null or a.valid_until > now())
 order by a.rank, a.decided_at desc limit 1)
union all
(select 'review', r.id, r.status, r.verdict, r.rank, null, null, null
 from person r where r.status = 'manual_review' order by r.rank, r.created_at desc limit 1)`;

interface MatchRow {
  kind: 'approval' | 'review';
  id: string;
  status: string;
  verdict: string | null;
  rank: number;
  valid_until_ms: number | null;
  grant_id: string | null;
  grant_spent: boolean | null;
}

export interface ApprovalMatch {
  id: string;
  status: string;
  verdict: string | null;
  matchedOn: MatchedOn;
  validUntil: Date | null;
  /** An open grant that lets a repeat through, or the one `gatedId` already spent. */
  grant: { id: string; spent: boolean } | null;
}

export interface PersonMatches {
  approval: ApprovalMatch | null;
  review: { id: string; matchedOn: MatchedOn } | null;
}

export interface MatchScope {
  merchantId: string;
  mode: Mode;
  /** Set for scope same_flow; null matches every flow. */
  flowId: string | null;
  reverificationPeriodDays: number | null;
  /** The verification being gated (excluded, and its own spent grant still counts). */
  gatedId?: string;
}

const MATCHED_ON: MatchedOn[] = ['reference', 'email', 'document'];

/** On `sql` (the caller's connection or transaction), bound to the scope's account and environment by tenantSql. */
export async function findPersonMatches(
  sql: RawSql,
  scope: MatchScope,
  f: Partial<Fingerprints>,
): Promise<PersonMatches> {
  const rows = await tenantSql({ merchantId: scope.merchantId, modes: [scope.mode] }, sql).query<MatchRow>(
    PERSON_MATCHES,
    [
      f.reference ?? null,
      f.email ?? null,
      f.document ?? null,
      f.nationalId ?? null,
      scope.flowId,
      scope.reverificationPeriodDays,
      scope.gatedId ?? null,
    ],
    'idv_person_matches',
  );
  const a = rows.find((r) => r.kind === 'approval');
  const r = rows.find((x) => x.kind === 'review');
  return {
    approval: a
      ? {
          id: a.id,
          status: a.status,
          verdict: a.verdict,
          matchedOn: MATCHED_ON[a.rank]!,
          validUntil: a.valid_until_ms === null ? null : new Date(a.valid_until_ms),
          grant: a.grant_id ? { id: a.grant_id, spent: !!a.grant_spent } : null,
        }
      : null,
    review: r ? { id: r.id, matchedOn: MATCHED_ON[r.rank]! } : null,
  };
}
