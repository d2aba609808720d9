import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Check } from '../entities/check.entity.js';
import { Verification } from '../entities/verification.entity.js';
import { scopedFork } from '../orm.js';
import type { Runtime } from '../runtime.js';
import { recordVerificationEvent } from '../services/webhooks/index.js';
import { recordUsage } from '../services/reporting/index.js';
import { fingerprintsOfVerification, gateDocument, lockPerson, supersedeOtherCases } from '../services/repeat-control/index.js';
import { linkApplicantAfterFaceMatch, fingerprintsOf, personFingerprint, settle } from '../services/verifications/index.js';
import { recordDocumentRead } from './document-record.js';
import { loadCheckImages } from './images.js';
import { rollUp } from './rollup.js';
import { RUNNERS } from './runners.js';
import { applySandboxOutcome, forcedCheckIndex } from './sandbox.js';
import type { CheckImages, CheckResult, Identity } from './types.js';

export interface SessionJobData {
  verificationId: string;
  merchantId: string;
  mode: 'sandbox' | 'live';
}

/**
 * Takes the person's lock, then loads and locks the verification for the rest of the
 * transaction (always in that order, so approvals of one person never deadlock); null
 * unless it is processing.
 */
async function lockProcessing(tx: EntityManager, id: string, populateIdentity = false): Promise<Verification | null> {
  const peek = await tx.findOne(Verification, { id }, { fields: ['merchant', 'mode', 'referenceFingerprint', 'emailFingerprint', 'documentFingerprint', 'nationalIdFingerprint'] as never });
  if (!peek) return null;
  await lockPerson(tx, peek.merchant.id, peek.mode, fingerprintsOfVerification(peek));
  const v = await tx.findOne(Verification, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE, populate: populateIdentity ? (['identity'] as never) : [], refresh: true });
  return v && v.status === 'processing' ? v : null;
}

export const checkEventData = (c: Check) => ({
  id: c.id,
  type: c.type,
  status: c.status,
  verdict: c.verdict ?? null,
  score: c.score ?? null,
  reason_codes: [...c.reasonCodes],
});

const errored: CheckResult = { status: 'errored', verdict: 'review', score: null, reasonCodes: ['CHECK_UNAVAILABLE'], providerTier: 'standard' };

/** Runs one pending check and saves its result with check.completed, in one transaction. */
async function runOne(em: EntityManager, runtime: Runtime, id: string, position: number, forced: number, images?: CheckImages): Promise<boolean> {
  return em.transactional(async (tx) => {
    const v = await lockProcessing(tx, id, true);
    if (!v) return false;
    const check = await tx.findOne(Check, { verification: v, position });
    if (!check || check.status !== 'pending') return true;
    const identity: Identity = v.identity ? runtime.vault.decrypt<Identity>(v.identity) : {};
    const runner = RUNNERS[check.type];
    let outcome: CheckResult;
    try {
      outcome = runner
        ? await runner.run({ check, snapshot: v.flowSnapshot, identity, sandbox: v.sandbox ?? null, now: new Date(), images })
        : errored;
      if (v.sandbox && position === forced) outcome = applySandboxOutcome(check.type, outcome, v.sandbox);
    } catch (error) {
      runtime.logger.error({ err: error }, `check ${check.id} (${check.type}) failed`);
      outcome = errored;
    }
    Object.assign(check, { status: outcome.status, verdict: outcome.verdict, score: outcome.score, reasonCodes: outcome.reasonCodes, providerTier: outcome.providerTier });
    if (outcome.status === 'completed') recordUsage(tx, v, check.type);
    await recordDocumentRead(tx, runtime, v, identity, outcome);
    recordVerificationEvent(tx, v, 'check.completed', { check: checkEventData(check) });
    // R4/R7: the document has been read; a match closes the session before any verdict.
    if (check.type === 'document' && (await gateDocument(tx, v))) return false;
    if (check.type === 'face_match' && outcome.verdict === 'approve') {
      await linkApplicantAfterFaceMatch(tx, v, personFingerprint(fingerprintsOf(runtime.vault, identity)));
    }
    return true;
  });
}

/**
 * The `verification.run-checks` job: each check in flow order, its result saved as it
 * finishes; then the roll-up settles the verification. Re-running it resumes where it stopped.
 */
export async function runChecks(runtime: Runtime, data: SessionJobData): Promise<void> {
  const em = scopedFork(runtime.orm, { merchantId: data.merchantId, modes: [data.mode] });
  const v = await em.findOne(Verification, { id: data.verificationId });
  if (!v || v.status !== 'processing') return;
  const checks = await em.find(Check, { verification: v }, { orderBy: { position: 'asc' } });
  const forced = v.sandbox ? forcedCheckIndex(checks.map((c) => c.type), checks.map((c) => c.required), v.sandbox.outcome) : -1;
  // Live sessions' images are read from the store once, outside any transaction (sandbox simulates).
  const images = v.mode !== 'live' || v.sandbox ? undefined : await loadCheckImages(runtime, em, v.id).catch((error) => {
    runtime.logger.error({ err: error }, `images of ${v.id} could not be loaded`);
    return undefined;
  });
  em.clear();
  for (const check of checks) {
    if (!(await runOne(em, runtime, data.verificationId, check.position, forced, images))) return;
    em.clear();
  }
  await em.transactional(async (tx) => {
    const locked = await lockProcessing(tx, data.verificationId);
    if (!locked) return;
    const all = await tx.find(Check, { verification: locked }, { orderBy: { position: 'asc' } });
    if (all.some((c) => c.status === 'pending' || c.status === 'processing')) return;
    if (await gateDocument(tx, locked)) return;
    const outcome = rollUp(all);
    settle(tx, locked, outcome);
    if (outcome.status === 'approved') await supersedeOtherCases(tx, runtime, locked);
  });
}
