// AML rows of `npm run engine:eval`: hit/miss on the synthetic lists by variant, and precision.
import { amlOptions } from '../src/engine/aml/runner.js';
import { evaluateAml } from './aml-evaluate.js';
import type { Evaluator } from './run.js';

const pct = (n: number, d: number) => (d === 0 ? '–' : `${Math.round((100 * n) / d)}% (${n}/${d})`);

export const amlEvaluator: Evaluator = {
  name: 'aml',
  async run(options) {
    const threshold = amlOptions({ config: {}, sensitivity: null, threshold: null } as never, {
      acceptedDocumentTypes: [],
    }).threshold;
    const e = await evaluateAml(threshold);
    const rows = e.byCondition
      .filter((c) => !options.conditions || options.conditions.includes(c.condition))
      .map((c) => [c.condition, c.expectHit ? 'hit on the listed entry' : 'no hit', pct(c.right, c.total)]);
    return {
      title: `AML screening on the synthetic lists (default threshold ${threshold})`,
      columns: ['variant', 'expected', 'right'],
      rows,
      notes: [
        `Precision ${(e.precision * 100).toFixed(0)}% (${e.truePositives} right hits of ${e.truePositives + e.falsePositives}); recall ${pct(e.truePositives, e.positives)}; false hits on namesakes and unrelated people ${e.negativeHits}/${e.negatives}.`,
        'Per-case scores and the index cost at 100,000 entries: `npm run engine:eval:aml`.',
      ],
    };
  },
};
