import { bundledListFiles, loadListFiles } from '../src/engine/aml/lists.js';
import { type AmlIndex, buildIndex, screen } from '../src/engine/aml/screen.js';
import { AML_CASES, type AmlCase } from './aml-cases.js';

/** One labelled case screened: the best candidate at any score, and whether the outcome at the threshold is right. */
export interface AmlCaseResult {
  case: AmlCase;
  bestScore: number | null;
  bestEntry: string | null;
  hit: string | null;
  right: boolean;
}

/** AML accuracy on the synthetic lists: per case, per variant (condition), and overall precision / recall. */
export interface AmlEvaluation {
  threshold: number;
  results: AmlCaseResult[];
  byCondition: { condition: string; right: number; total: number; expectHit: boolean }[];
  truePositives: number;
  positives: number;
  falsePositives: number;
  negatives: number;
  /** Namesakes and unrelated people who hit anything. */
  negativeHits: number;
  /** Hits on the expected entry / all hits (a hit on the wrong entry counts as false). */
  precision: number;
  recall: number;
}

/** Screens every labelled case (AML_CASES) against `index` (default: the synthetic lists of data/aml) at `threshold`. */
export async function evaluateAml(threshold: number, index?: AmlIndex): Promise<AmlEvaluation> {
  const idx = index ?? buildIndex(await loadListFiles(bundledListFiles()));
  const results = AML_CASES.map((c): AmlCaseResult => {
    const top = screen(idx, c.subject, 0)[0];
    const hit = top && top.score >= threshold ? top.entry_id : null;
    return {
      case: c,
      bestScore: top?.score ?? null,
      bestEntry: top?.entry_id ?? null,
      hit,
      right: c.expect === null ? hit === null : hit === c.expect,
    };
  });
  const conditions = [...new Set(AML_CASES.map((c) => c.condition))];
  const byCondition = conditions.map((condition) => {
    const rs = results.filter((r) => r.case.condition === condition);
    return {
      condition,
      right: rs.filter((r) => r.right).length,
      total: rs.length,
      expectHit: rs.some((r) => r.case.expect !== null),
    };
  });
  const hits = results.filter((r) => r.hit !== null);
  const truePositives = hits.filter((r) => r.hit === r.case.expect).length;
  const positives = results.filter((r) => r.case.expect !== null).length;
  return {
    threshold,
    results,
    byCondition,
    truePositives,
    positives,
    falsePositives: hits.length - truePositives,
    negatives: results.length - positives,
    negativeHits: results.filter((r) => r.case.expect === null && r.hit !== null).length,
    precision: hits.length === 0 ? 1 : truePositives / hits.length,
    recall: positives === 0 ? 1 : truePositives / positives,
  };
}
