import { evaluateFaceEngine, type FaceEvalResult } from './faces/synthetic.js';
import { FACE_MATCH_THRESHOLD } from '../src/engine/face/decide.js';
import { evaluateRealFaces, type RealEvalResult } from './faces/real.js';
import { EnginePool, defaultConcurrency } from '../src/engine/pool/index.js';
import type { EvalTable, Evaluator } from './run.js';

/**
 * The face rows of `npm run engine:eval`: first face match on real photos (held-out people,
 * then the tuning people the defaults were chosen on; eval/faces/real.ts), then the
 * synthetic robustness rows (eval/faces/synthetic.ts: one crop per person under capture
 * conditions) and liveness by input, all through the worker pool.
 */
let evaluation: Promise<FaceEvalResult> | null = null;
const evaluate = () => (evaluation ??= evaluateFaceEngine());

const pct = (n: number, of: number) => (of ? `${Math.round((100 * n) / of)}% (${n}/${of})` : '–');
const num = (n: number | null) => (n === null ? '–' : n.toFixed(2));

let real: Promise<RealEvalResult[]> | null = null;
const evaluateReal = () =>
  (real ??= (async () => {
    const pool = new EnginePool({
      concurrency: Number(process.env.ENGINE_CONCURRENCY) || defaultConcurrency(),
      timeoutMs: 300_000,
    });
    try {
      return [await evaluateRealFaces(pool, 'heldOut'), await evaluateRealFaces(pool, 'tuning')];
    } finally {
      await pool.close();
    }
  })());

const rate = (x: number) => `${(100 * x).toFixed(1)}%`;
const counts = (c: { approve: number; review: number; reject: number }, of: number) =>
  `${pct(c.approve, of)} / ${pct(c.review, of)} / ${pct(c.reject, of)}`;

export const faceRealEvaluator: Evaluator = {
  name: 'face-real',
  async run(): Promise<EvalTable> {
    const sets = await evaluateReal();
    return {
      title: `Face match on real photos at the defaults (threshold ${FACE_MATCH_THRESHOLD}): held-out people first, then the tuning people`,
      columns: [
        'set',
        'case',
        'people / photos',
        'genuine pairs',
        'impostor pairs',
        'AUC',
        'TAR at 1% FAR',
        'TAR at 0.1% FAR',
        'genuine approve / review / reject',
        'impostor approve / review / reject',
      ],
      rows: sets.flatMap((r) =>
        r.rows.map((row) => [
          r.set === 'heldOut' ? '**held-out**' : 'tuning',
          row.case,
          `${r.people} / ${r.photos}`,
          String(row.genuinePairs),
          String(row.impostorPairs),
          row.auc.toFixed(3),
          rate(row.tarAtFar1),
          rate(row.tarAtFar01),
          counts(row.genuine, row.genuinePairs),
          counts(row.impostor, row.impostorPairs),
        ]),
      ),
      notes: [
        "Real photos: test/engine/faces/real (sources, licences, the split frozen before tuning). TAR at a FAR uses the threshold where that share of the same set's impostor pairs passes.",
        `Faces with a quality issue (held-out): ${sets[0]!.lowQuality.length ? sets[0]!.lowQuality.map((q) => `${q.file} ${q.issues.join('+')}`).join(', ') : 'none'}.`,
      ],
    };
  },
};

export const faceEvaluator: Evaluator = {
  name: 'face',
  async run(): Promise<EvalTable> {
    const r = await evaluate();
    return {
      title: `Face match, synthetic robustness (one crop per person of test/engine/faces under capture conditions; ${r.people} people, ${r.impostorPairs} impostor pairs)`,
      columns: [
        'selfie condition',
        'face found',
        'true accepts at 1% false accepts',
        `true accepts at default ${FACE_MATCH_THRESHOLD}`,
        'mean similarity',
      ],
      rows: [
        ...r.conditions.map((c) => [
          c.condition,
          pct(c.faceFound, c.genuinePairs),
          pct(c.trueAcceptsAtFar1, c.genuinePairs),
          pct(c.trueAcceptsAtDefault, c.genuinePairs),
          num(c.meanSimilarity),
        ]),
        [
          '**all**',
          '',
          `**${(100 * r.trueAcceptRateAtFar1).toFixed(1)}%**`,
          `**${(100 * r.trueAcceptRateAtDefault).toFixed(1)}%**`,
          '',
        ],
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
      rows: r.liveness.map((l) => [
        l.input,
        l.attack ? 'attack (simulated)' : 'genuine',
        pct(l.oneFace, l.images),
        pct(l.approve, l.images),
        pct(l.review, l.images),
        pct(l.reject, l.images),
        num(l.meanAntispoof),
        num(l.meanLiveness),
      ]),
      notes: [
        'The attacks are simulated with sharp, not captured: the models do not separate them from genuine photos (README "Checks engine: face and liveness").',
      ],
    };
  },
};
