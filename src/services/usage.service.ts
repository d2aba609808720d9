import type { EntityManager } from '@mikro-orm/postgresql';
import type { Verification } from '../entities/verification.entity.js';

/** Stub (owned by helper C). Meters one check run; sandbox runs are recorded but not billable. */
export function recordUsage(_em: EntityManager, _verification: Verification, _checkType: string): void {}
