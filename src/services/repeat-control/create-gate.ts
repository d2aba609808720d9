import type { Mode } from '../../config.js';
import type { ChangeReason, Verdict, VerificationStatus } from '../../entities/verification.entity.js';
import { conflict } from '../../errors.js';
import { newId } from '../../ids.js';
import type { CreateFlow } from '../catalog/index.js';
import { verificationEventData, type EventSubject } from '../webhooks/index.js';
import type { Fingerprints, AnswerSlot } from '../verifications/index.js';
import type { RawSql } from '../shared/index.js';
import { findPersonMatches, type MatchedOn } from './person-matches.js';

/**
 * Repeat control at create (R2, R3, R5, R9, R10) on the create's own connection: the match
 * is findPersonMatches (the same rule gateDocument applies when the document is read), in
 * one statement after the person's locks (two more for a refusal).
 */

/** Bumps the approval's sequence (its events stay ordered) and returns what its event carries. */
const BUMP = `update verifications set sequence = sequence + 1, updated_at = $3 where id = $1 and merchant_id = $2
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
const EVENT = `with e as (
  insert into events (id, merchant_id, created_at, mode, updated_at, type, verification_id, api_key_id, payload, test)
  values ($1, $2, $3, $4, $3, 'verification.already_verified', $5, $6, $7::jsonb, false)
)
update idempotency_keys set status = 'completed', response_status = $8, response_body = $9::jsonb where api_key_id = $10 and key = $11`;

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

/** The verification.already_verified event of a refused create, on the approval it matched. */
async function recordRefusal(
  sql: RawSql,
  scope: GateScope,
  approvalId: string,
  matchedOn: MatchedOn,
  answer: AnswerSlot | null,
): Promise<void> {
  const now = new Date();
  const [row] = await sql.query<BumpedRow>(BUMP, [approvalId, scope.merchantId, now], 'idv_create_refusal_bump');
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
  const a = [answer?.status ?? null, answer?.sealedBody ?? null, answer?.apiKeyId ?? null, answer?.key ?? null];
  await sql.query(
    EVENT,
    [newId('evt'), scope.merchantId, now, row!.mode, row!.id, scope.callerKeyId, JSON.stringify(payload), ...a],
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
  flow: CreateFlow,
  f: Fingerprints,
  answer: RefusalAnswer,
): Promise<RawGate> {
  const policy = flow.repeatPolicy;
  if (!policy.enabled || (!f.reference && !f.email)) return {};
  // The person's locks were taken by the create's first statement (OPEN_CREATE in create-flow.ts).
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
    await recordRefusal(sql, scope, approval.id, approval.matchedOn, answer(refusal));
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
