import type { Mode } from '../../config.js';
import type { ChangeReason, Verdict, VerificationStatus } from '../../entities/verification.entity.js';
import { conflict } from '../../errors.js';
import { newId } from '../../ids.js';
import { DEFAULT_REPEAT_POLICY, type RepeatPolicy } from '../../entities/account-settings.entity.js';
import { verificationEventData, type EventSubject } from '../webhooks/index.js';
import type { Fingerprints } from '../verifications/index.js';
import {
  answerParams,
  IDEMPOTENCY_ANSWER,
  placeFragment,
  tenantSql,
  TENANT_ROW,
  type AnswerSlot,
  type RawSql,
} from '../shared/index.js';
import { findPersonMatches, type MatchedOn } from './person-matches.js';
import { repeatPolicyOf } from './repeat-control.service.js';

/**
 * Repeat control at create (R2, R3, R5, R9, R10) on the create's own connection: the match
 * is findPersonMatches (the same rule gateDocument applies when the document is read), in
 * one statement after the person's locks (two more for a refusal).
 */

/** Bumps the approval's sequence (its events stay ordered) and returns what its event carries. */
const BUMP = `update verifications set sequence = sequence + 1, updated_at = $4
  where id = $3 and merchant_id = $1 and mode = any($2::text[])
  returning id, status, verdict, decline_type, reason_codes, change_reason, flow_id, sequence, mode`;

interface BumpedRow {
  id: string;
  status: VerificationStatus;
  verdict: Verdict | null;
  decline_type: 'final' | 'retryable' | null;
  reason_codes: string[];
  change_reason: ChangeReason | null;
  flow_id: string;
  sequence: number;
  mode: Mode;
}

/** The refusal's event, and (when the create claimed a key) its stored 409 answer. */
const EVENT = `with ${TENANT_ROW}, ${placeFragment(IDEMPOTENCY_ANSWER, 5)}
insert into events (id, merchant_id, created_at, mode, updated_at, type, verification_id, api_key_id, payload, test)
select $3, t.merchant_id, $4, t.mode, $4, 'verification.already_verified', $5, $6, $7::jsonb, false from tenant t`;

export interface RawGate {
  /** Throw after the transaction commits (the event it wrote must survive). */
  refusal?: ReturnType<typeof conflict>;
  /** An open re-verification grant the new verification spends. */
  grantId?: string;
}

/** The stored answer of a refused create that claimed an Idempotency-Key; null without one. */
export type RefusalAnswer = (refusal: ReturnType<typeof conflict>) => AnswerSlot | null;

export interface GateScope {
  merchantId: string;
  mode: Mode;
  callerKeyId: string | null;
}

/** The person's advisory lock keys (lockPerson's keys) at create: reference and email, when given. */
export const personLockKeys = (scope: Pick<GateScope, 'merchantId' | 'mode'>, f: Fingerprints): string[] =>
  [f.reference, f.email].filter((k): k is string => !!k).map((k) => `${scope.merchantId}:${scope.mode}:${k}`);

/**
 * The person's locks as a piece of the create's first statement (a CTE `person_lock`, `$3` from
 * personLockParams), in a fixed order, so creates for one person queue and the match that
 * follows runs with a snapshot taken after the locks are held.
 */
export const PERSON_LOCKS = `person_lock as (
  select count(pg_advisory_xact_lock(hashtextextended(k, 0))) as locks from unnest($3::text[]) as k
)`;

/** PERSON_LOCKS' one parameter: the person's lock keys, sorted. */
export const personLockParams = (scope: Pick<GateScope, 'merchantId' | 'mode'>, f: Fingerprints): unknown[] => [
  personLockKeys(scope, f).sort(),
];

/** What repeat control at create weighs: the policy in force and the re-verification period. */
export interface RepeatRules {
  repeatPolicy: RepeatPolicy;
  reverificationPeriodDays: number | null;
}

/**
 * The account settings repeat control needs, as a piece of a tenant-bound statement (a subquery
 * joined `on true`; at most one row, none before the settings are first written).
 */
export const REPEAT_SETTINGS = `select repeat_verification, reverification_period_days from account_settings where merchant_id = $1`;

/** A row of REPEAT_SETTINGS, all null when the account has none yet. */
export interface RepeatSettingsRow {
  repeat_verification: RepeatPolicy | null;
  reverification_period_days: number | null;
}

/** R1/R10 for a flow and settings read by the create: the flow's own policy replaces the account's. */
export const repeatRulesOf = (flowPolicy: Record<string, unknown> | null, row: RepeatSettingsRow): RepeatRules => ({
  repeatPolicy: repeatPolicyOf(flowPolicy, row.repeat_verification ?? DEFAULT_REPEAT_POLICY),
  reverificationPeriodDays: row.reverification_period_days,
});

/** The verification.already_verified event of a refused create, on the approval it matched. */
async function recordRefusal(
  sql: RawSql,
  scope: GateScope,
  approvalId: string,
  matchedOn: MatchedOn,
  answer: AnswerSlot | null,
): Promise<void> {
  const now = new Date();
  const [row] = await sql.query<BumpedRow>(BUMP, [approvalId, now], 'idv_create_refusal_bump');
  const subject: EventSubject = {
    id: row!.id,
    status: row!.status,
    verdict: row!.verdict,
    declineType: row!.decline_type,
    reasonCodes: row!.reason_codes,
    changeReason: row!.change_reason,
    flow: { id: row!.flow_id },
    sequence: row!.sequence,
  };
  const payload = { verification: verificationEventData(subject), gate: 'create', matched_on: matchedOn };
  await sql.query(
    EVENT,
    [newId('evt'), now, row!.id, scope.callerKeyId, JSON.stringify(payload), ...answerParams(answer)],
    'idv_create_refusal_event',
  );
}

/**
 * An approval match refuses with ALREADY_VERIFIED (event verification.already_verified, no
 * session, no charge) unless an open grant lets this one through; a case waiting on review
 * refuses with VERIFICATION_IN_REVIEW even then. Nothing to match on: no lock, no query.
 */
export async function gateCreateRaw(
  sql: RawSql,
  scope: GateScope,
  flow: { id: string } & RepeatRules,
  f: Fingerprints,
  answer: RefusalAnswer,
): Promise<RawGate> {
  const policy = flow.repeatPolicy;
  if (!policy.enabled || (!f.reference && !f.email)) return {};
  // The person's locks were taken by the create's first statement (PERSON_LOCKS in OPEN_CREATE).
  const { approval, review } = await findPersonMatches(
    sql,
    {
      merchantId: scope.merchantId,
      mode: scope.mode,
      flowId: policy.scope === 'same_flow' ? flow.id : null,
      reverificationPeriodDays: flow.reverificationPeriodDays,
    },
    { reference: f.reference, email: f.email },
  );
  if (approval && !approval.grant) {
    const refusal = conflict(
      'ALREADY_VERIFIED',
      'This applicant already holds an approval; no session was created and nothing was charged. Do not retry.',
      {
        detail: {
          verification_id: approval.id,
          status: approval.status,
          verdict: approval.verdict,
          matched_on: approval.matchedOn,
          approval_valid_until: approval.validUntil?.toISOString() ?? null,
        },
      },
    );
    await recordRefusal(
      tenantSql({ merchantId: scope.merchantId, modes: [scope.mode] }, sql),
      scope,
      approval.id,
      approval.matchedOn,
      answer(refusal),
    );
    return { refusal };
  }
  if (review) {
    return {
      refusal: conflict(
        'VERIFICATION_IN_REVIEW',
        'This applicant has a verification waiting on manual review; wait for its decision instead of retrying.',
        {
          detail: { verification_id: review.id, matched_on: review.matchedOn },
        },
      ),
    };
  }
  // R9: an open grant lifts the approval's refusal only; a case waiting on review still refuses (R5).
  return approval?.grant ? { grantId: approval.grant.id } : {};
}
