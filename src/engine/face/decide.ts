import type { CheckResult, Verdict } from '../types.js';
import type { FaceMatchAnalysis, LivenessAnalysis } from './analyse.js';
import type { FaceQualityIssue } from './quality.js';

/** Step settings of face checks (the Step's `threshold` and `sensitivity`, both 0..1). */
export interface FaceStep {
  threshold?: number | null;
  sensitivity?: number | null;
}

/**
 * Defaults, chosen on the real photos' tuning people only (docs/checks-face.md: the first
 * corpus's tuning people and real-2's tuning-2 people). face_match compares a document's
 * printed portrait with a selfie: DOCUMENT_MATCH_THRESHOLD is the lowest score (to 0.01) at
 * which at most 0.1% of the tuning set's photographed-document-vs-photo impostor pairs are
 * approved (8 of 8,590). Two photos (the eval's photo-vs-photo case, a video's frames) keep
 * FACE_MATCH_THRESHOLD (2 of 4,295 photo impostor pairs on the same people): a printed,
 * re-photographed portrait scores genuine pairs lower while impostor pairs score alike, so the
 * document case gets its own point on its own pairs. Antispoof/liveness 0.5 is the models'
 * own midpoint.
 */
export const FACE_MATCH_THRESHOLD = 0.77;
export const DOCUMENT_MATCH_THRESHOLD = 0.75;
export const LIVENESS_THRESHOLD = 0.5;
export const DEFAULT_SENSITIVITY = 0.5;
/** Width of the review band below the threshold at sensitivity 1 (0 at sensitivity 0). */
export const MAX_REVIEW_BAND = 0.4;
/**
 * The cohort rule: a pair is approved only when its score is at least this much above the best
 * score either face gets against the cohort's other people (cohort.ts). 0 is the plain rank-1
 * rule, chosen by cross-validation over people on the spent sets (docs/checks-face.md, "Cohort rule").
 */
export const COHORT_MARGIN = 0;

const completed = (verdict: Verdict, score: number, reasonCodes: string[]): CheckResult => ({
  status: 'completed',
  verdict,
  score,
  reasonCodes,
  providerTier: 'standard',
});

/**
 * A score against the step: at or above `threshold` approves; within the review band below
 * it (its width grows with `sensitivity`) goes to review; lower rejects.
 */
function band(score: number, step: FaceStep, defaultThreshold: number): Verdict {
  const threshold = step.threshold ?? defaultThreshold;
  const sensitivity = step.sensitivity ?? DEFAULT_SENSITIVITY;
  if (score >= threshold) return 'approve';
  return score >= threshold - MAX_REVIEW_BAND * sensitivity ? 'review' : 'reject';
}

const QUALITY_CODES: Record<FaceQualityIssue, string> = {
  small: 'FACE_TOO_SMALL',
  turned: 'FACE_TURNED',
  uncertain: 'FACE_UNCERTAIN',
  no_descriptor: 'FACE_NOT_COMPARABLE',
};

/** The reason codes of a face not good enough to approve on: which image, then what is wrong with it. */
function qualityCodes(which: 'DOCUMENT' | 'SELFIE', issues: FaceQualityIssue[] | undefined): string[] {
  return issues?.length ? [`${which}_FACE_LOW_QUALITY`, ...issues.map((i) => QUALITY_CODES[i])] : [];
}

/**
 * face_match: the document portrait against the selfie (two photos when `analysis.pair` says
 * so: another default threshold); no face on either is a retryable rejection. A match is
 * approved only when both faces were found with good quality and the pair outscores what each
 * face scores against the cohort's strangers: otherwise an approving score goes to review, with
 * the image and the issue, or FACE_UNCERTAIN + FACE_NOT_DISTINCTIVE, in the reason codes.
 */
export function faceMatchDecision(analysis: FaceMatchAnalysis, step: FaceStep): CheckResult {
  if (!analysis.document.readable || !analysis.selfie.readable) return completed('reject', 0, ['IMAGE_UNREADABLE']);
  if (analysis.document.faces === 0) return completed('reject', 0, ['IMAGE_UNREADABLE', 'DOCUMENT_FACE_NOT_FOUND']);
  if (analysis.selfie.faces === 0) return completed('reject', 0, ['IMAGE_UNREADABLE', 'SELFIE_FACE_NOT_FOUND']);
  const quality = [
    ...new Set([
      ...qualityCodes('DOCUMENT', analysis.document.quality),
      ...qualityCodes('SELFIE', analysis.selfie.quality),
    ]),
  ];
  const similarity = analysis.similarity ?? 0;
  const threshold = analysis.pair === 'photos' ? FACE_MATCH_THRESHOLD : DOCUMENT_MATCH_THRESHOLD;
  const banded = band(similarity, step, threshold);
  if (quality.includes('FACE_NOT_COMPARABLE')) return completed('review', similarity, quality);
  if (banded === 'approve') {
    if (quality.length) return completed('review', similarity, quality);
    return notDistinctive(analysis, similarity)
      ? completed('review', similarity, ['FACE_UNCERTAIN', 'FACE_NOT_DISTINCTIVE'])
      : completed('approve', similarity, []);
  }
  return completed(banded, similarity, ['SELFIE_MISMATCH', ...quality]);
}

/**
 * Whether a face of the pair scores higher against a stranger of the cohort than against the other
 * face: then the model cannot tell this face from other people, and the match is no evidence of
 * identity (a look-alike population for the descriptor). A reason for review, never a rejection.
 */
function notDistinctive(analysis: FaceMatchAnalysis, similarity: number): boolean {
  const { document, selfie } = analysis.cohort ?? {};
  const best = Math.max(document ?? -Infinity, selfie ?? -Infinity);
  return similarity < best + COHORT_MARGIN;
}

/**
 * liveness: exactly one face, and the lower of the antispoof and liveness confidences against
 * the step. A face that fails is LIVENESS_FAILED; one in the review band LIVENESS_UNCERTAIN.
 */
export function livenessDecision(analysis: LivenessAnalysis, step: FaceStep): CheckResult {
  if (!analysis.readable || analysis.faces === 0)
    return completed('reject', 0, ['IMAGE_UNREADABLE', 'SELFIE_FACE_NOT_FOUND']);
  if (analysis.faces > 1) return completed('reject', 0, ['LIVENESS_FAILED', 'MULTIPLE_FACES']);
  const score = Math.min(analysis.real ?? 0, analysis.live ?? 0);
  const verdict = band(score, step, LIVENESS_THRESHOLD);
  return completed(
    verdict,
    score,
    verdict === 'approve' ? [] : [verdict === 'review' ? 'LIVENESS_UNCERTAIN' : 'LIVENESS_FAILED'],
  );
}

interface AgeRule {
  fromAge: number;
  toAge: number;
  action: string;
}

/**
 * The age check when no date of birth was read: the face's estimated age is a signal for a
 * reviewer, never an approval. It names the age rule the estimate falls in, if any.
 */
export function ageEstimateDecision(estimate: number | null, config: { ageRules?: AgeRule[] }): CheckResult {
  if (estimate === null) return completed('review', 0, ['DATE_OF_BIRTH_UNREADABLE']);
  const rule = (config.ageRules ?? []).find((r) => estimate >= r.fromAge && estimate <= r.toAge);
  const codes = ['DATE_OF_BIRTH_UNREADABLE', 'AGE_ESTIMATED_FROM_FACE'];
  if (rule && rule.action !== 'pass' && rule.action !== 'approve') codes.push('AGE_REVIEW');
  return completed('review', 0, codes);
}
