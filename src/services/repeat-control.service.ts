import type { EntityManager } from '@mikro-orm/postgresql';
import type { Verification } from '../entities/verification.entity.js';
import type { Runtime } from '../runtime.js';

/**
 * R8 (stub, being written): when `approved` has just been approved (engine or reviewer), the
 * person's other open cases move to expired + ALREADY_VERIFIED (no decision recorded;
 * escalated cases left alone). Call inside the approving transaction, after the approval.
 */
export async function supersedeOtherCases(_em: EntityManager, _runtime: Runtime, _approved: Verification): Promise<void> {}
