import type { SandboxInput, Verdict } from '../entities/verification.entity.js';
import type { CheckInput, CheckResult } from './types.js';
import { result } from './types.js';

/** Checks whose verdict needs image analysis; the sandbox outcome decides them. */
export const IMAGE_CHECKS = ['liveness', 'face_match'];

const DEFAULT_REASON: Record<'rejected' | 'review', string> = { rejected: 'LIVENESS_FAILED', review: 'SELFIE_MISMATCH' };

/**
 * The check that carries a forced sandbox verdict: the first image check of the flow
 * (face_match preferred for review), else the first required check.
 */
export function forcedCheckIndex(types: string[], required: boolean[], outcome: SandboxInput['outcome']): number {
  const preference = outcome === 'review' ? ['face_match', 'liveness'] : ['liveness', 'face_match'];
  for (const type of preference) {
    const index = types.indexOf(type);
    if (index >= 0) return index;
  }
  const firstRequired = required.indexOf(true);
  return firstRequired >= 0 ? firstRequired : 0;
}

/** A sandbox verdict for one check: the forced one on the carrying check, approve elsewhere. */
export function sandboxImageResult(input: CheckInput, carries: boolean): CheckResult {
  const sandbox = input.sandbox!;
  if (!carries || sandbox.outcome === 'approved' || sandbox.outcome === 'pending') return result('approve', 0.97, [], 'sandbox');
  const verdict: Verdict = sandbox.outcome === 'rejected' ? 'reject' : 'review';
  const codes = sandbox.reason_codes?.length ? sandbox.reason_codes : [DEFAULT_REASON[sandbox.outcome]];
  return result(verdict, verdict === 'reject' ? 0.08 : 0.52, codes, 'sandbox');
}

/** Without image analysis (live, not built yet): an honest review, never a fake approval. */
export const imageAnalysisUnavailable = (): CheckResult => result('review', 0, ['IMAGE_ANALYSIS_UNAVAILABLE']);
