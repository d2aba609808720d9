import {
  ROBUSTNESS_CONDITIONS,
  type RobustnessCondition,
  robustnessCases,
} from '../../test/engine/corpus/robustness.js';
import type { EvalTable } from '../run.js';
import { COLUMNS, type GradedRun, gradeGenuine, row } from './grade.js';
import { liveDocumentCheck } from './real.js';

/**
 * The synthetic robustness rows: documents rendered by test/engine/corpus/robustness.ts under
 * each capture condition, through the same live check and grading as the real pictures.
 * They say which conditions the check survives, not how accurate it is on real documents.
 */
export async function evaluateSynthetic(
  options: { perCondition?: number; conditions?: string[]; log?: (line: string) => void } = {},
): Promise<EvalTable> {
  const now = new Date();
  const conditions = ROBUSTNESS_CONDITIONS.filter((c) => !options.conditions || options.conditions.includes(c));
  const cases = robustnessCases(options.perCondition ?? 1, conditions);
  const byCondition = new Map<RobustnessCondition, GradedRun[]>();
  const all: GradedRun[] = [];
  for (const c of cases) {
    const { result, ms, cpuMs } = await liveDocumentCheck(await c.image(), now);
    const run = { graded: gradeGenuine(c.truth, result), ms, cpuMs };
    all.push(run);
    byCondition.set(c.condition, [...(byCondition.get(c.condition) ?? []), run]);
    options.log?.(`synthetic ${c.id}: ${run.graded.outcome} ${Math.round(ms)} ms`);
  }
  return {
    title: `Document check: SYNTHETIC robustness (${cases.length} rendered documents, ${conditions.length} conditions; not accuracy)`,
    columns: COLUMNS,
    rows: [row('**all**', all), ...conditions.map((c) => row(c, byCondition.get(c) ?? []))],
    notes: [
      'Rendered by test/engine/corpus/robustness.ts: TD1/TD2/TD3, the zone in OCR-B (two cuts) or a monospace stand-in, varied letter spacing, backgrounds and ink; then the condition. Same seed every run.',
      'small_scan has zone characters about 10 px high, below what the quality gate accepts: a refusal there is the gate doing its job, and the row shows how often.',
    ],
  };
}
