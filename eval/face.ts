import { evaluateFaceEngine, type FaceEvalResult } from '../src/engine/face/eval.js';
import { FACE_MATCH_THRESHOLD } from '../src/engine/face/decide.js';
import type { EvalTable, Evaluator } from './run.js';

/**
 * The face rows of `npm run engine:eval`: one evaluation (src/engine/face/eval.ts, through the
 * worker pool) gives two tables, face match by selfie condition and liveness by input.
 */
let evaluation: Promise<FaceEvalResult> | null = null;
const evaluate = () => (evaluation ??= evaluateFaceEngine());

const pct = (n: number, of: number) => (of ? `${Math.round((100 * n) / of)}% (${n}/${of})` : '–');
const num = (n: number | null) => (n === null ? '–' : n.toFixed(2));

export const faceEvaluator: Evaluator = {
  name: 'face',
  async run(): Promise<EvalTable> {
    const r = await evaluate();
    return {
      title: `Face match (${r.people} people, ${r.impostorPairs} impostor pairs)`,
      columns: ['selfie condition', 'face found', 'true accepts at 1% false accepts', `true accepts at default ${FACE_MATCH_THRESHOLD}`, 'mean similarity'],
      rows: [
        ...r.conditions.map((c) => [c.condition, pct(c.faceFound, c.genuinePairs), pct(c.trueAcceptsAtFar1, c.genuinePairs), pct(c.trueAcceptsAtDefault, c.genuinePairs), num(c.meanSimilarity)]),
        ['**all**', '', `**${(100 * r.trueAcceptRateAtFar1).toFixed(1)}%**`, `**${(100 * r.trueAcceptRateAtDefault).toFixed(1)}%**`, ''],
      ],
      notes: [
        `Threshold at 1% false accepts: ${r.thresholdAtFar1.toFixed(3)}; the default ${FACE_MATCH_THRESHOLD} accepts ${(100 * r.falseAcceptRateAtDefault).toFixed(1)}% of impostor pairs.`,
        `Engine time per check (one at a time, warm thread, median): face_match ${r.timing.faceMatchMs} ms, liveness ${r.timing.livenessMs} ms.`,
      ],
    };
  },
};

export const livenessEvaluator: Evaluator = {
  name: 'liveness',
  async run(): Promise<EvalTable> {
    const r = await evaluate();
    return {
      title: 'Liveness at the default threshold (genuine photos and simulated attacks)',
      columns: ['input', 'kind', 'one face', 'approve', 'review', 'reject', 'mean antispoof', 'mean liveness'],
      rows: r.liveness.map((l) => [l.input, l.attack ? 'attack (simulated)' : 'genuine', pct(l.oneFace, l.images), pct(l.approve, l.images), pct(l.review, l.images), pct(l.reject, l.images), num(l.meanAntispoof), num(l.meanLiveness)]),
      notes: ['The attacks are simulated with sharp, not captured: the models do not separate them from genuine photos (README "Checks engine: face and liveness").'],
    };
  },
};
