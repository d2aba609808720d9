import type { FilterQuery } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AccountSettings, DEFAULT_REPEAT_POLICY, type RepeatPolicy } from '../../entities/account-settings.entity.js';
import { Flow } from '../../entities/flow.entity.js';
import { ManualReview } from '../../entities/manual-review.entity.js';
import { ReverificationGrant } from '../../entities/reverification-grant.entity.js';
import { Verification } from '../../entities/verification.entity.js';
import type { Runtime } from '../../runtime.js';
import { recordVerificationEvent } from '../webhooks/index.js';
import { type Fingerprints, expire } from '../verifications/index.js';

export type MatchedOn = 'reference' | 'email' | 'document';

/** R2's order: reference, then email, then numbers on the document (the national id matches too). */
const ORDER: { on: MatchedOn; field: 'referenceFingerprint' | 'emailFingerprint' | 'documentFingerprint' | 'nationalIdFingerprint'; key: keyof Fingerprints }[] = [
  { on: 'reference', field: 'referenceFingerprint', key: 'reference' },
  { on: 'email', field: 'emailFingerprint', key: 'email' },
  { on: 'document', field: 'documentFingerprint', key: 'document' },
  { on: 'document', field: 'nationalIdFingerprint', key: 'nationalId' },
];

export async function accountSettings(em: EntityManager, merchantId: string): Promise<AccountSettings | null> {
  return em.findOne(AccountSettings, { merchant: merchantId }, { filters: { merchant: { merchantId } } });
}

/** R1/R10: the flow's repeat_policy replaces the account setting (no merge); on by default, same_flow. */
export async function repeatPolicyFor(em: EntityManager, merchantId: string, flow: Flow): Promise<RepeatPolicy> {
  const own = ownRepeatPolicy(flow.repeatPolicy);
  return own ?? (await accountSettings(em, merchantId))?.repeatVerification ?? DEFAULT_REPEAT_POLICY;
}

function ownRepeatPolicy(flowPolicy: Record<string, unknown> | null | undefined): RepeatPolicy | null {
  const own = flowPolicy as Partial<RepeatPolicy> | null | undefined;
  return own && typeof own.enabled === 'boolean' ? { enabled: own.enabled, scope: own.scope ?? 'same_flow' } : null;
}

/** The same rule for a flow and settings already read (the create reads both in one statement). */
export const repeatPolicyOf = (flowPolicy: Record<string, unknown> | null | undefined, accountPolicy: RepeatPolicy): RepeatPolicy =>
  ownRepeatPolicy(flowPolicy) ?? accountPolicy;

/**
 * Serialises everything about one person within the transaction (creates, document matches,
 * approvals) with advisory locks on their fingerprints, taken in a fixed order.
 */
export async function lockPerson(em: EntityManager, merchantId: string, mode: string, f: Partial<Fingerprints>): Promise<void> {
  const keys = [f.reference, f.email, f.document, f.nationalId].filter((k): k is string => !!k).sort();
  for (const key of keys) await em.getConnection().execute('select pg_advisory_xact_lock(hashtextextended(?, 0))', [`${merchantId}:${mode}:${key}`], 'all', em.getTransactionContext());
}

export const fingerprintsOfVerification = (v: Verification): Fingerprints => ({
  reference: v.referenceFingerprint ?? null,
  email: v.emailFingerprint ?? null,
  document: v.documentFingerprint ?? null,
  nationalId: v.nationalIdFingerprint ?? null,
});

function personWhere(f: Partial<Fingerprints>, keys: (keyof Fingerprints)[]): FilterQuery<Verification>[] {
  return ORDER.filter((o) => keys.includes(o.key) && f[o.key]).map((o) => ({ [o.field]: f[o.key] }) as FilterQuery<Verification>);
}

/** When an approval stops refusing by age (R9): its document's expiry or the re-verification period, whichever first. */
export function approvalValidUntil(v: Verification, periodDays: number | null | undefined): Date | null {
  const candidates: number[] = [];
  if (v.documentExpiresOn) candidates.push(Date.parse(`${v.documentExpiresOn}T23:59:59Z`));
  if (periodDays && v.decidedAt) candidates.push(v.decidedAt.getTime() + periodDays * 86400_000);
  return candidates.length ? new Date(Math.min(...candidates)) : null;
}

/**
 * The grant that lets a repeat of `v` through: an open one, or the one the verification being
 * gated already spent (a session let in at create is gated again when its document is read).
 */
async function openGrant(em: EntityManager, v: Verification, gatedId?: string): Promise<ReverificationGrant | null> {
  const open = { spentAt: null, revokedAt: null, expiresAt: { $gt: new Date() } };
  const where = gatedId ? { verification: v, $or: [open, { spentByVerificationId: gatedId }] } : { verification: v, ...open };
  return em.findOne(ReverificationGrant, where as FilterQuery<ReverificationGrant>);
}

export interface Match {
  verification: Verification;
  matchedOn: MatchedOn;
}

/** The first approval matching in R2's order that still refuses (R9); an open grant lets one through and is returned. */
async function findApproval(em: EntityManager, merchantId: string, mode: string, flowId: string, policy: RepeatPolicy, f: Partial<Fingerprints>, keys: (keyof Fingerprints)[], excludeId?: string) {
  const periodDays = (await accountSettings(em, merchantId))?.reverificationPeriodDays;
  for (const o of ORDER.filter((x) => keys.includes(x.key) && f[x.key])) {
    const where: FilterQuery<Verification> = { mode, status: 'approved', [o.field]: f[o.key] } as FilterQuery<Verification>;
    if (policy.scope === 'same_flow') Object.assign(where, { flow: flowId });
    if (excludeId) Object.assign(where, { id: { $ne: excludeId } });
    for (const v of await em.find(Verification, where, { orderBy: { decidedAt: 'desc' }, limit: 20 })) {
      const until = approvalValidUntil(v, periodDays);
      if (until && until.getTime() <= Date.now()) continue;
      const grant = await openGrant(em, v, excludeId);
      return { match: { verification: v, matchedOn: o.on }, until, grant };
    }
  }
  return null;
}

async function findWaitingReview(em: EntityManager, mode: string, flowId: string, policy: RepeatPolicy, f: Partial<Fingerprints>, keys: (keyof Fingerprints)[], excludeId?: string): Promise<Match | null> {
  for (const o of ORDER.filter((x) => keys.includes(x.key) && f[x.key])) {
    const where: FilterQuery<Verification> = { mode, status: 'manual_review', [o.field]: f[o.key] } as FilterQuery<Verification>;
    if (policy.scope === 'same_flow') Object.assign(where, { flow: flowId });
    if (excludeId) Object.assign(where, { id: { $ne: excludeId } });
    const v = await em.findOne(Verification, where, { orderBy: { createdAt: 'desc' } });
    if (v) return { verification: v, matchedOn: o.on };
  }
  return null;
}

// Repeat control at create (R2, R3, R5, R9, R10) runs on the create's connection: create-gate.ts.

/**
 * R4/R7 when the document is read (and again before a verdict): an approval with the same
 * document number or national id closes this session expired + ALREADY_VERIFIED; a person
 * waiting on review closes it expired + REVIEW_IN_PROGRESS. Returns true when it closed it.
 * The caller holds the person lock and the verification row.
 */
export async function gateDocument(em: EntityManager, v: Verification): Promise<boolean> {
  const f = fingerprintsOfVerification(v);
  if (!f.document && !f.nationalId) return false;
  const flow = await em.findOneOrFail(Flow, { id: v.flow.id }, { filters: false });
  const policy = await repeatPolicyFor(em, v.merchant.id, flow);
  if (!policy.enabled) return false;
  const approval = await findApproval(em, v.merchant.id, v.mode, flow.id, policy, f, ['document', 'nationalId'], v.id);
  if (approval) {
    if (approval.grant) {
      if (!approval.grant.spentAt) spendGrant(approval.grant, v.id);
      return false;
    }
    v.reasonCodes = [...new Set([...v.reasonCodes, 'ALREADY_VERIFIED'])];
    recordVerificationEvent(em, v, 'verification.already_verified', { gate: 'document', matched_on: 'document', matched_verification_id: approval.match.verification.id });
    expire(em, v, 'ALREADY_VERIFIED');
    return true;
  }
  if (await findWaitingReview(em, v.mode, flow.id, policy, f, ['document', 'nationalId'], v.id)) {
    expire(em, v, 'REVIEW_IN_PROGRESS');
    return true;
  }
  return false;
}

export function spendGrant(grant: ReverificationGrant, verificationId: string): void {
  grant.spentAt = new Date();
  grant.spentByVerificationId = verificationId;
}

/**
 * R8: after `approved` was approved (engine or reviewer), the person's other open cases
 * (pending, processing, manual_review) move to expired + ALREADY_VERIFIED with no decision
 * recorded: verification.already_verified (gate superseded), then completed and expired.
 * Escalated cases are left alone. Call inside the approving transaction.
 */
export async function supersedeOtherCases(em: EntityManager, _runtime: Runtime, approved: Verification): Promise<Verification[]> {
  const flow = await em.findOneOrFail(Flow, { id: approved.flow.id }, { filters: false });
  const policy = await repeatPolicyFor(em, approved.merchant.id, flow);
  const f = fingerprintsOfVerification(approved);
  const person = personWhere(f, ['reference', 'email', 'document', 'nationalId']);
  if (!policy.enabled || person.length === 0) return [];
  await lockPerson(em, approved.merchant.id, approved.mode, f);
  const where: FilterQuery<Verification> = { mode: approved.mode, id: { $ne: approved.id }, status: { $in: ['pending', 'processing', 'manual_review'] }, $or: person };
  if (policy.scope === 'same_flow') Object.assign(where, { flow: flow.id });
  const closed: Verification[] = [];
  for (const other of await em.find(Verification, where)) {
    const review = await em.findOne(ManualReview, { verification: other, status: { $in: ['queued', 'in_review', 'escalated'] } });
    if (review && (review.status === 'escalated' || review.escalatedAt)) continue;
    if (review) review.status = 'resolved';
    other.reasonCodes = [...new Set([...other.reasonCodes, 'ALREADY_VERIFIED'])];
    recordVerificationEvent(em, other, 'verification.already_verified', { gate: 'superseded', matched_verification_id: approved.id });
    expire(em, other, 'ALREADY_VERIFIED', 'auto_policy');
    closed.push(other);
  }
  return closed;
}
