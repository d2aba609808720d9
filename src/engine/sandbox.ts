import { type CheckResult, result, type SandboxInput, type Verdict } from './types.js';

/** Checks whose verdict needs image analysis; the sandbox outcome decides them. */
export const IMAGE_CHECKS = ['liveness', 'face_match'];

/** Reason codes a forced verdict carries when the create body names none. */
const DEFAULT_REASON: Record<'rejected' | 'review', Record<string, string>> = {
  rejected: { liveness: 'LIVENESS_FAILED', face_match: 'SELFIE_MISMATCH', default: 'SANDBOX_REJECTED' },
  review: { liveness: 'SELFIE_MISMATCH', face_match: 'SELFIE_MISMATCH', default: 'SANDBOX_REVIEW' },
};

/**
 * The check that carries a forced sandbox verdict: a required image check (face_match
 * preferred for review, liveness for rejection), else the first required check, else the
 * first image check, else the first check. A forced rejection must land on a required check
 * to reject the session (the roll-up ignores optional rejections).
 */
export function forcedCheckIndex(types: string[], required: boolean[], outcome: SandboxInput['outcome']): number {
  const preference = outcome === 'review' ? ['face_match', 'liveness'] : ['liveness', 'face_match'];
  for (const type of preference) {
    const index = types.findIndex((t, i) => t === type && required[i]);
    if (index >= 0) return index;
  }
  const firstRequired = required.indexOf(true);
  if (firstRequired >= 0) return firstRequired;
  for (const type of preference) {
    const index = types.indexOf(type);
    if (index >= 0) return index;
  }
  return 0;
}

/** Sandbox image analysis: every face and liveness capture passes unless a verdict is forced onto it. */
export const sandboxImageResult = (): CheckResult => result('approve', 0.97, [], 'sandbox');

/**
 * Applies a forced sandbox outcome to the check carrying it, whatever its type. `rejected`
 * rejects it; `review` sends it to review unless its own rules (which run for real on the
 * simulated document) already rejected it. Other checks and outcomes keep their result.
 */
export function applySandboxOutcome(type: string, outcome: CheckResult, sandbox: SandboxInput): CheckResult {
  if (sandbox.outcome !== 'rejected' && sandbox.outcome !== 'review') return outcome;
  if (sandbox.outcome === 'review' && outcome.verdict === 'reject') return outcome;
  const verdict: Verdict = sandbox.outcome === 'rejected' ? 'reject' : 'review';
  const forced = sandbox.reason_codes?.length
    ? sandbox.reason_codes
    : [DEFAULT_REASON[sandbox.outcome][type] ?? DEFAULT_REASON[sandbox.outcome].default!];
  const codes = [...new Set([...forced, ...outcome.reasonCodes])];
  return {
    ...outcome,
    status: 'completed',
    verdict,
    score: verdict === 'reject' ? 0.08 : 0.52,
    reasonCodes: codes,
    providerTier: 'sandbox',
  };
}

/** Without image analysis (live, not built yet): an honest review, never a fake approval. */
export const imageAnalysisUnavailable = (): CheckResult => result('review', 0, ['IMAGE_ANALYSIS_UNAVAILABLE']);
