import type { EntityManager } from '@mikro-orm/postgresql';
import type { Step } from '../../entities/flow.entity.js';
import { ManualReview } from '../../entities/manual-review.entity.js';
import { Upload } from '../../entities/upload.entity.js';
import {
  Verification,
  type ChangeReason,
  type Verdict,
  type VerificationStatus,
} from '../../entities/verification.entity.js';
import { conflict } from '../../errors.js';
import type { Runtime } from '../../runtime.js';
import { recordVerificationEvent } from '../webhooks/index.js';

/** Work to do once the transaction that made a change has committed (queueing jobs). */
export type AfterCommit = (() => Promise<void>)[];

export async function runAfterCommit(after: AfterCommit): Promise<void> {
  for (const task of after) await task();
}

export const OPEN_STATUSES: VerificationStatus[] = ['pending', 'processing'];
export const TERMINAL_STATUSES: VerificationStatus[] = ['approved', 'rejected', 'manual_review', 'expired'];

/** The verification state machine of the spec; every status change goes through `moveTo`. */
const TRANSITIONS: Record<VerificationStatus, VerificationStatus[]> = {
  pending: ['processing', 'expired'],
  processing: ['approved', 'rejected', 'manual_review', 'expired'],
  manual_review: ['approved', 'rejected', 'expired'],
  approved: ['manual_review'],
  rejected: ['manual_review'],
  expired: [],
};

export function canMove(from: VerificationStatus, to: VerificationStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

function moveTo(verification: Verification, to: VerificationStatus): void {
  if (!canMove(verification.status, to)) {
    throw conflict('INVALID_STATE_TRANSITION', `A ${verification.status} verification cannot become ${to}.`, {
      detail: { verification_id: verification.id, status: verification.status },
    });
  }
  verification.status = to;
}

export const RUN_CHECKS_JOB = 'verification.run-checks';
export const EXPIRE_JOB = 'verification.expire';
/** Expires every session due by its run time; scheduled once per second of expires_at. */
export const EXPIRE_DUE_JOB = 'verifications.expire-due';
const EXPIRY_WINDOW_MS = 1000;

const jobData = (v: Verification) => ({ verificationId: v.id, merchantId: v.merchant.id, mode: v.mode });

/**
 * Makes sure an expire-due job runs at (or within a second after) `expiresAt`; sessions
 * expiring in the same second share one job. Call after the session's transaction commits.
 */
export async function scheduleExpiry(runtime: Runtime, v: { id: string; expiresAt: Date }): Promise<void> {
  await runtime.jobs.scheduleCoalesced(v.expiresAt, EXPIRE_DUE_JOB, EXPIRY_WINDOW_MS).catch((error) => {
    // The periodic sweep expires the session anyway; losing this job delays nothing beyond a sweep interval.
    runtime.logger.warn({ err: error }, `expiry job for ${v.id} not scheduled; the sweep will expire it`);
  });
}

/** pending -> processing: the submissions are in; writes verification.awaiting_service and queues the checks. */
export function startProcessing(
  em: EntityManager,
  runtime: Runtime,
  verification: Verification,
  after: AfterCommit,
): void {
  moveTo(verification, 'processing');
  recordVerificationEvent(em, verification, 'verification.awaiting_service');
  after.push(() => runtime.jobs.now(RUN_CHECKS_JOB, jobData(verification)));
}

/** Upload kinds the flow's steps need before the checks can run. */
export function neededUploads(steps: Step[]): { document: boolean; selfie: boolean } {
  const types = new Set(steps.map((s) => s.type));
  return {
    document: ['document', 'face_match', 'age', 'aml'].some((t) => types.has(t)),
    selfie: ['liveness', 'face_match'].some((t) => types.has(t)),
  };
}

/**
 * Called (in the caller's transaction) when an upload of the session completes: once every
 * upload the flow's steps need is in storage, the session moves to processing.
 */
export async function onUploadCompleted(
  em: EntityManager,
  runtime: Runtime,
  verification: Verification,
  after: AfterCommit,
): Promise<void> {
  if (verification.status !== 'pending') return;
  const uploads = await em.find(Upload, { verification, status: 'uploaded' });
  const need = neededUploads(verification.flowSnapshot.steps);
  const hasDocument = uploads.some((u) => u.kind === 'document' && (u.side ?? 'front') === 'front');
  const hasSelfie = uploads.some((u) => u.kind === 'selfie' || u.kind === 'video');
  if ((need.document && !hasDocument) || (need.selfie && !hasSelfie)) return;
  startProcessing(em, runtime, verification, after);
}

export interface Outcome {
  status: 'approved' | 'rejected' | 'manual_review';
  verdict: Verdict;
  score: number | null;
  reasonCodes: string[];
  declineType: 'final' | 'retryable' | null;
  changeReason: ChangeReason;
}

const VERDICT_EVENT = {
  approved: 'verification.approved',
  rejected: 'verification.rejected',
  manual_review: 'verification.review',
} as const;

/**
 * Settles a verification: status, verdict, score, reason codes, who settled it, and the
 * events verification.completed then the verdict event. A manual_review outcome queues a
 * Manual review case.
 */
export function settle(em: EntityManager, verification: Verification, outcome: Outcome): void {
  moveTo(verification, outcome.status);
  verification.verdict = outcome.verdict;
  verification.score = outcome.score;
  verification.reasonCodes = [...new Set(outcome.reasonCodes)];
  verification.declineType = outcome.declineType;
  verification.changeReason = outcome.changeReason;
  verification.decidedAt = new Date();
  recordVerificationEvent(em, verification, 'verification.completed');
  recordVerificationEvent(em, verification, VERDICT_EVENT[outcome.status]);
  if (outcome.status === 'manual_review') {
    const review = em.create(ManualReview, { merchant: verification.merchant, mode: verification.mode, verification });
    recordVerificationEvent(em, verification, 'action.pending', { review: { id: review.id } });
  }
}

/**
 * Closes an open session as expired (time ran out, or R4/R7/R8 with a reason code):
 * verification.expired then verification.completed. Time running out on a session whose
 * applicant declined consent on the hosted page says so with CONSENT_DECLINED.
 */
export function expire(
  em: EntityManager,
  verification: Verification,
  reasonCode?: string,
  changeReason: ChangeReason = 'engine',
): void {
  reasonCode ??= verification.consentDeclinedAt ? 'CONSENT_DECLINED' : undefined;
  moveTo(verification, 'expired');
  verification.verdict = null;
  verification.changeReason = changeReason;
  if (reasonCode) verification.reasonCodes = [...new Set([...verification.reasonCodes, reasonCode])];
  verification.decidedAt = new Date();
  recordVerificationEvent(em, verification, 'verification.expired');
  recordVerificationEvent(em, verification, 'verification.completed');
}

/**
 * Reopens a decided verification (a reviewer's `review` on a resolved case): approved or
 * rejected -> manual_review with verdict, score, decline type and who/when settled cleared;
 * writes verification.review. The caller holds verification:reopen and re-queues the review.
 */
export function reopen(em: EntityManager, verification: Verification): void {
  moveTo(verification, 'manual_review');
  verification.verdict = null;
  verification.score = null;
  verification.declineType = null;
  verification.changeReason = null;
  verification.decidedAt = null;
  recordVerificationEvent(em, verification, 'verification.review');
}
