import type { EntityManager } from '@mikro-orm/postgresql';
import type { CheckResult, Identity } from '../../engine/types.js';
import { Upload } from '../../entities/upload.entity.js';
import type { Verification } from '../../entities/verification.entity.js';
import type { Runtime } from '../../runtime.js';
import { lockPerson } from '../repeat-control/index.js';
import { sealIdentity } from '../verifications/index.js';

const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * Saves what the document check read (in the check's transaction, before the R4/R7 gate):
 * the identity re-sealed with the document, its fingerprints and expiry, the person's lock
 * on the new fingerprints, and each image's evidence flags on its upload.
 */
export async function recordDocumentRead(
  tx: EntityManager,
  runtime: Runtime,
  v: Verification,
  identity: Identity,
  outcome: CheckResult,
): Promise<void> {
  if (outcome.document) {
    const sealed = sealIdentity(runtime.vault, { ...identity, document: outcome.document });
    await lockPerson(tx, v.merchant.id, v.mode, sealed.fingerprints);
    v.identity = sealed.ciphertext;
    v.documentFingerprint = sealed.fingerprints.document;
    v.nationalIdFingerprint = sealed.fingerprints.nationalId;
    v.documentExpiresOn =
      outcome.document.expiry_date && ISO_DAY.test(outcome.document.expiry_date) ? outcome.document.expiry_date : null;
  }
  for (const item of outcome.evidence ?? []) {
    const upload = await tx.findOne(
      Upload,
      {
        verification: v,
        kind: item.kind,
        status: 'uploaded',
        ...(item.kind === 'document' ? { side: item.side ?? 'front' } : {}),
      },
      { orderBy: { uploadedAt: 'desc' } },
    );
    if (upload) upload.analysis = { ...(upload.analysis ?? {}), ...item.analysis };
  }
}
