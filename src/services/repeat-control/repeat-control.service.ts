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
import { rawSqlOf } from '../shared/index.js';
import { findPersonMatches } from './person-matches.js';

/** The person's fingerprint columns (R8 closes open cases matching any of them). */
const PERSON_FIELDS: {
  field: 'referenceFingerprint' | 'emailFingerprint' | 'documentFingerprint' | 'nationalIdFingerprint';
  key: keyof Fingerprints;
}[] = [
  { field: 'referenceFingerprint', key: 'reference' },
  { field: 'emailFingerprint', key: 'email' },
  { field: 'documentFingerprint', key: 'document' },
  { field: 'nationalIdFingerprint', key: 'nationalId' },
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
export const repeatPolicyOf = (
  flowPolicy: Record<string, unknown> | null | undefined,
  accountPolicy: RepeatPolicy,
): RepeatPolicy => ownRepeatPolicy(flowPolicy) ?? accountPolicy;

/**
 * Serialises everything about one person within the transaction (creates, document matches,
 * approvals) with advisory locks on their fingerprints, taken in a fixed order.
 */
export async function lockPerson(
  em: EntityManager,
  merchantId: string,
  mode: string,
  f: Partial<Fingerprints>,
): Promise<void> {
  const keys = [f.reference, f.email, f.document, f.nationalId].filter((k): k is string => !!k).sort();
  for (const key of keys)
    await rawSqlOf(em).query('select pg_advisory_xact_lock(hashtextextended($1, 0))', [`${merchantId}:${mode}:${key}`]);
}

/** The columns `fingerprintsOfVerification` and `lockPerson` need: a partial load's `fields`, with the owner. */
export const PERSON_LOCK_FIELDS = [
  'merchant',
  'mode',
  'referenceFingerprint',
  'emailFingerprint',
  'documentFingerprint',
  'nationalIdFingerprint',
] as never;

export const fingerprintsOfVerification = (v: Verification): Fingerprints => ({
  reference: v.referenceFingerprint ?? null,
  email: v.emailFingerprint ?? null,
  document: v.documentFingerprint ?? null,
  nationalId: v.nationalIdFingerprint ?? null,
});

function personWhere(f: Partial<Fingerprints>, keys: (keyof Fingerprints)[]): FilterQuery<Verification>[] {
  return PERSON_FIELDS.filter((o) => keys.includes(o.key) && f[o.key]).map(
    (o) => ({ [o.field]: f[o.key] }) as FilterQuery<Verification>,
  );
}

// Which approval or review matches a person is one rule for create and document: findPersonMatches (person-matches.ts).

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
  const periodDays = (await accountSettings(em, v.merchant.id))?.reverificationPeriodDays ?? null;
  const scope = {
    merchantId: v.merchant.id,
    mode: v.mode,
    flowId: policy.scope === 'same_flow' ? flow.id : null,
    reverificationPeriodDays: periodDays,
    gatedId: v.id,
  };
  const { approval, review } = await findPersonMatches(rawSqlOf(em), scope, {
    document: f.document,
    nationalId: f.nationalId,
  });
  if (approval) {
    if (approval.grant) {
      if (!approval.grant.spent)
        spendGrant(await em.findOneOrFail(ReverificationGrant, { id: approval.grant.id }), v.id);
      return false;
    }
    v.reasonCodes = [...new Set([...v.reasonCodes, 'ALREADY_VERIFIED'])];
    recordVerificationEvent(em, v, 'verification.already_verified', {
      gate: 'document',
      matched_on: 'document',
      matched_verification_id: approval.id,
    });
    expire(em, v, 'ALREADY_VERIFIED');
    return true;
  }
  if (review) {
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
export async function supersedeOtherCases(
  em: EntityManager,
  _runtime: Runtime,
  approved: Verification,
): Promise<Verification[]> {
  const flow = await em.findOneOrFail(Flow, { id: approved.flow.id }, { filters: false });
  const policy = await repeatPolicyFor(em, approved.merchant.id, flow);
  const f = fingerprintsOfVerification(approved);
  const person = personWhere(f, ['reference', 'email', 'document', 'nationalId']);
  if (!policy.enabled || person.length === 0) return [];
  await lockPerson(em, approved.merchant.id, approved.mode, f);
  const where: FilterQuery<Verification> = {
    mode: approved.mode,
    id: { $ne: approved.id },
    status: { $in: ['pending', 'processing', 'manual_review'] },
    $or: person,
  };
  if (policy.scope === 'same_flow') Object.assign(where, { flow: flow.id });
  const closed: Verification[] = [];
  for (const other of await em.find(Verification, where)) {
    const review = await em.findOne(ManualReview, {
      verification: other,
      status: { $in: ['queued', 'in_review', 'escalated'] },
    });
    if (review && (review.status === 'escalated' || review.escalatedAt)) continue;
    if (review) review.status = 'resolved';
    other.reasonCodes = [...new Set([...other.reasonCodes, 'ALREADY_VERIFIED'])];
    recordVerificationEvent(em, other, 'verification.already_verified', {
      gate: 'superseded',
      matched_verification_id: approved.id,
    });
    expire(em, other, 'ALREADY_VERIFIED', 'auto_policy');
    closed.push(other);
  }
  return closed;
}
