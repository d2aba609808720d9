import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { SessionFaces } from '../../engine/face/runners.js';
import { EngineTaskError } from '../../engine/pool/index.js';
import { RUNNERS } from '../../engine/runners.js';
import { applySandboxOutcome, forcedCheckIndex } from '../../engine/sandbox.js';
import type { CheckInput, CheckResult, CheckSpec, Identity, CheckImages } from '../../engine/types.js';
import { Check } from '../../entities/check.entity.js';
import { Verification } from '../../entities/verification.entity.js';
import { scopedFork } from '../../orm.js';
import type { Runtime } from '../../runtime.js';
import { recordVerificationEvent } from '../webhooks/index.js';
import { recordUsage } from '../reporting/index.js';
import { searchFaces, signalFaceNetwork, signalFraudNetworks } from '../fraud-networks/index.js';
import {
  fingerprintsOfVerification,
  PERSON_LOCK_FIELDS,
  gateDocument,
  lockPerson,
  supersedeOtherCases,
} from '../repeat-control/index.js';
import { linkApplicantAfterFaceMatch, fingerprintsOf, personFingerprint, settle } from '../verifications/index.js';
import { recordDocumentRead } from './document-record.js';
import { loadCheckImages } from './images.js';
import { rollUp } from './rollup.js';

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
  const peek = await tx.findOne(Verification, { id }, { fields: PERSON_LOCK_FIELDS });
  if (!peek) return null;
  await lockPerson(tx, peek.merchant.id, peek.mode, fingerprintsOfVerification(peek));
  const v = await tx.findOne(
    Verification,
    { id },
    { lockMode: LockMode.PESSIMISTIC_WRITE, populate: populateIdentity ? (['identity'] as never) : [], refresh: true },
  );
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

const errored: CheckResult = {
  status: 'errored',
  verdict: 'review',
  score: null,
  reasonCodes: ['CHECK_UNAVAILABLE'],
  providerTier: 'standard',
};

/** The engine's view of a check row: its type and its step's options. */
const checkSpec = (c: Check): CheckSpec => ({
  type: c.type,
  config: c.config,
  sensitivity: c.sensitivity,
  threshold: c.threshold,
});

/** What a check's analysis needs, read without a transaction or a lock. */
interface Prepared {
  check: Check;
  verification: Verification;
  identity: Identity;
}

/** The session's images, read from the store at most once per run and only when a live check needs them. */
type ImageLoader = () => Promise<CheckImages>;

/** What one run shares between its checks: the images, read once, and the faces read on them. */
interface RunContext {
  images: ImageLoader;
  faces?: SessionFaces;
}

/** The analysis: the runner (engine work in the pool) with no transaction open. A failure errors the check. */
async function analyse(runtime: Runtime, prepared: Prepared, run: RunContext, forced: number): Promise<CheckResult> {
  const { check, verification: v, identity } = prepared;
  const runner = RUNNERS[check.type];
  if (!runner) return errored;
  try {
    const input: CheckInput = {
      check: checkSpec(check),
      snapshot: v.flowSnapshot,
      identity,
      sandbox: v.sandbox ?? null,
      now: new Date(),
      engine: runtime.engine,
      faces: run.faces,
      hosted: !!v.consent,
    };
    let outcome = await runner.run(runner.needsImages && !v.sandbox ? { ...input, images: await run.images() } : input);
    if (v.sandbox && check.position === forced) outcome = applySandboxOutcome(check.type, outcome, v.sandbox);
    return outcome;
  } catch (error) {
    // A stopping pool is not the check's failure: the job is retried and the check stays pending.
    if (error instanceof EngineTaskError && error.reason === 'closed') throw error;
    runtime.logger.error({ err: error }, `check ${check.id} (${check.type}) failed`);
    return errored;
  }
}

/**
 * Saves an analysed check with check.completed in one short transaction that first re-checks
 * the state under the person's and the verification's locks: still processing, check still
 * pending (another run, an expiry or a reviewer may have moved on meanwhile).
 */
async function saveResult(
  em: EntityManager,
  runtime: Runtime,
  prepared: Prepared,
  outcome: CheckResult,
): Promise<boolean> {
  // The same-face search runs before the transaction, through the index and without a lock.
  const faces = outcome.faceEmbedding
    ? await searchFaces(em, runtime.vault, prepared.verification, prepared.identity, outcome.faceEmbedding)
    : null;
  return em.transactional(async (tx) => {
    const v = await lockProcessing(tx, prepared.verification.id, true);
    if (!v) return false;
    const check = await tx.findOne(Check, { id: prepared.check.id }, { refresh: true });
    if (!check || check.status !== 'pending') return true;
    outcome = await signalFraudNetworks(tx, runtime.vault, v, prepared.identity, outcome);
    if (outcome.faceEmbedding && faces)
      outcome = await signalFaceNetwork(tx, runtime.vault, v, prepared.identity, outcome.faceEmbedding, faces, outcome);
    Object.assign(check, {
      status: outcome.status,
      verdict: outcome.verdict,
      score: outcome.score,
      reasonCodes: outcome.reasonCodes,
      providerTier: outcome.providerTier,
      findings: outcome.findings ?? [],
    });
    if (outcome.status === 'completed') recordUsage(tx, v, check.type);
    await recordDocumentRead(tx, runtime, v, v.identity ? runtime.vault.decrypt<Identity>(v.identity) : {}, outcome);
    recordVerificationEvent(tx, v, 'check.completed', { check: checkEventData(check) });
    // R4/R7: the document has been read; a match closes the session before any verdict.
    if (check.type === 'document' && (await gateDocument(tx, v))) return false;
    if (check.type === 'face_match' && outcome.verdict === 'approve') {
      const identity: Identity = v.identity ? runtime.vault.decrypt<Identity>(v.identity) : {};
      await linkApplicantAfterFaceMatch(tx, v, personFingerprint(fingerprintsOf(runtime.vault, identity)));
    }
    return true;
  });
}

/** Reads, analyses (no transaction, no lock), then saves one pending check. False: stop the run. */
async function runOne(
  em: EntityManager,
  runtime: Runtime,
  id: string,
  position: number,
  forced: number,
  run: RunContext,
): Promise<boolean> {
  em.clear();
  const verification = await em.findOne(Verification, { id }, { populate: ['identity'] as never });
  if (!verification || verification.status !== 'processing') return false;
  const check = await em.findOne(Check, { verification, position });
  if (!check || check.status !== 'pending') return true;
  const identity: Identity = verification.identity ? runtime.vault.decrypt<Identity>(verification.identity) : {};
  const prepared = { check, verification, identity };
  const outcome = await analyse(runtime, prepared, run, forced);
  return saveResult(em, runtime, prepared, outcome);
}

/** Loads the session's images once, on first use, through its own fork (it may run beside the checks' reads). */
function imageLoader(runtime: Runtime, data: SessionJobData): ImageLoader {
  let loaded: Promise<CheckImages> | null = null;
  return () =>
    (loaded ??= loadCheckImages(
      runtime,
      scopedFork(runtime.orm, { merchantId: data.merchantId, modes: [data.mode] }),
      data.verificationId,
    ));
}

/**
 * The `verification.run-checks` job: each check in flow order, analysed outside any
 * transaction and saved as it finishes; then the roll-up settles the verification.
 * Re-running it resumes where it stopped.
 */
export async function runChecks(runtime: Runtime, data: SessionJobData): Promise<void> {
  const em = scopedFork(runtime.orm, { merchantId: data.merchantId, modes: [data.mode] });
  const v = await em.findOne(Verification, { id: data.verificationId });
  if (!v || v.status !== 'processing') return;
  const checks = await em.find(Check, { verification: v }, { orderBy: { position: 'asc' } });
  const forced = v.sandbox
    ? forcedCheckIndex(
        checks.map((c) => c.type),
        checks.map((c) => c.required),
        v.sandbox.outcome,
      )
    : -1;
  const run: RunContext = { images: imageLoader(runtime, data) };
  if (runtime.engine && !v.sandbox) {
    const faces = (run.faces = new SessionFaces(runtime.engine));
    // face_match's readings start now, beside the document's analysis, instead of after it.
    if (checks.some((c) => c.type === 'face_match' && c.status === 'pending'))
      run.images().then(
        (images) => faces.warm(images),
        () => undefined,
      );
  }
  for (const check of checks) {
    if (!(await runOne(em, runtime, data.verificationId, check.position, forced, run))) return;
  }
  em.clear();
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
