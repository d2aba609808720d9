import type { DocumentRead, Identity } from '../../engine/types.js';
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

/** applicant.fields (decisions.md keys) as read off the document, plus the email given at create. */
export function applicantFields(identity: Identity): Record<string, string> {
  const doc: DocumentRead = identity.document ?? {};
  const fields: Record<string, string | undefined> = {
    first_name: doc.first_name,
    last_name: doc.last_name,
    date_of_birth: doc.date_of_birth,
    sex: doc.sex,
    nationality: doc.nationality,
    document_type: doc.type,
    document_number: doc.number,
    issuing_country: doc.issuing_country,
    expiry_date: doc.expiry_date,
    national_id: doc.national_id,
    address: doc.address,
    email: identity.email,
    ...identity.fields,
  };
  return Object.fromEntries(Object.entries(fields).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

export interface SealedIdentity {
  ciphertext: string | null;
  fingerprints: Fingerprints;
}

/** Encrypts the identity for storage and derives its fingerprints. */
export function sealIdentity(vault: Vault, identity: Identity): SealedIdentity {
  const empty = !identity.email && !identity.reference_id && !identity.document && !identity.fields;
  return { ciphertext: empty ? null : vault.encrypt(identity), fingerprints: fingerprintsOf(vault, identity) };
}
