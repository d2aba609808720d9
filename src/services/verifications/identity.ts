import type { Identity } from '../../engine/types.js';
import { normaliseDocumentNumber, normaliseEmailForMatch, type Vault } from '../shared/index.js';

export interface Fingerprints {
  email: string | null;
  reference: string | null;
  document: string | null;
  nationalId: string | null;
}

/** The keyed fingerprints matching uses (R2, R4, lookup); never plaintext. */
export function fingerprintsOf(vault: Vault, identity: Identity): Fingerprints {
  const doc = identity.document;
  const country = (doc?.issuing_country ?? '').toUpperCase();
  return {
    email: identity.email ? vault.fingerprint('email', normaliseEmailForMatch(identity.email)) : null,
    reference: identity.reference_id ? vault.fingerprint('reference', identity.reference_id.trim()) : null,
    document: doc?.number ? vault.fingerprint('document', `${country}:${normaliseDocumentNumber(doc.number)}`) : null,
    nationalId: doc?.national_id
      ? vault.fingerprint('national_id', `${country}:${normaliseDocumentNumber(doc.national_id)}`)
      : null,
  };
}

/** The person behind a document: national id first (a different document of the same person matches), else the document. */
export const personFingerprint = (f: Fingerprints): string | null => f.nationalId ?? f.document;

/** applicant.fields is the engine's rule too (the aml check screens them), so it lives there. */
export { applicantFields } from '../../engine/identity.js';

export interface SealedIdentity {
  ciphertext: string | null;
  fingerprints: Fingerprints;
}

/** Encrypts the identity for storage and derives its fingerprints. */
export function sealIdentity(vault: Vault, identity: Identity): SealedIdentity {
  const empty = !identity.email && !identity.reference_id && !identity.document && !identity.fields;
  return { ciphertext: empty ? null : vault.encrypt(identity), fingerprints: fingerprintsOf(vault, identity) };
}
