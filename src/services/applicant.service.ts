import type { EntityManager } from '@mikro-orm/postgresql';
import type { Applicant } from '../entities/applicant.entity.js';
import type { Verification } from '../entities/verification.entity.js';

/**
 * Stub (owned by helper C). Called by the engine, inside its transaction, when a face_match
 * check approves: finds the person's applicant by `personFingerprint` (document or national-id
 * fingerprint; may be null) or creates one, links `verification.applicant`, and applies the
 * tags waiting on the applicant to the verification.
 */
export async function linkApplicantAfterFaceMatch(_em: EntityManager, _verification: Verification, _personFingerprint: string | null): Promise<Applicant | null> {
  return null;
}
