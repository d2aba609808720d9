import { evaluateFaceEngine, type FaceEvalResult } from './faces/synthetic.js';
import { DOCUMENT_MATCH_THRESHOLD, FACE_MATCH_THRESHOLD } from '../src/engine/face/decide.js';
import { evaluateRealFaces, REAL_SETS, realSetsNamed, type RealEvalResult, type RealSet } from './faces/real.js';
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

const LABELS = Object.fromEntries(Object.entries(REAL_SETS).map(([set, spec]) => [set, spec.label])) as Record<
  RealSet,
  string
>;

async function evaluateReal(sets: RealSet[]): Promise<RealEvalResult[]> {
  const pool = new EnginePool({
    concurrency: Number(process.env.ENGINE_CONCURRENCY) || defaultConcurrency(),
    timeoutMs: 300_000,
  });
  try {
    const out = [];
    for (const set of sets) out.push(await evaluateRealFaces(pool, set));
    return out;
  } finally {
    await pool.close();
  }
}

const rate = (x: number) => `${(100 * x).toFixed(1)}%`;
/** Shares with two decimals: an impostor rate of 0.1% must read as such, not as "0%". */
const share = (n: number, of: number) => (of ? `${((100 * n) / of).toFixed(2)}% (${n})` : '–');
const counts = (c: { approve: number; review: number; reject: number }, of: number) =>
  `${share(c.approve, of)} / ${share(c.review, of)} / ${share(c.reject, of)}`;

export const faceRealEvaluator: Evaluator = {
  name: 'face-real',
  async run(options): Promise<EvalTable> {
    const wanted = realSetsNamed(options.sets);
    const sets = await evaluateReal(wanted);
    return {
      title: `Face match on real photos at the defaults (document portrait vs photo ${DOCUMENT_MATCH_THRESHOLD}, photo vs photo ${FACE_MATCH_THRESHOLD}): held-out-3 (only when named: --sets=heldout3; measured once and spent), then held-out-2, the first held-out set and the tuning people (tuning data)`,
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
        'genuine, both faces of good quality: approved',
      ],
      rows: sets.flatMap((r) =>
        r.rows.map((row) => [
          LABELS[r.set],
          `${row.case} (default ${row.defaultThreshold})`,
          `${r.people} / ${r.photos}`,
          String(row.genuinePairs),
          String(row.impostorPairs),
          row.auc.toFixed(3),
          rate(row.tarAtFar1),
          rate(row.tarAtFar01),
          counts(row.genuine, row.genuinePairs),
          counts(row.impostor, row.impostorPairs),
          share(row.genuineGoodQualityApproved, row.genuineGoodQuality),
        ]),
      ),
      notes: [
        "Real photos: test/engine/faces/real, real-2 and real-3 (sources, licences, splits frozen before tuning). TAR at a FAR uses the threshold where that share of the same set's impostor pairs passes.",
        ...sets.map(
          (r) =>
            `Score at 1% / 0.1% FAR (${LABELS[r.set]}): ${r.rows.map((row) => `${row.case} ${row.thresholdAtFar1} / ${row.thresholdAtFar01}`).join('; ')}.`,
        ),
        ...sets.map(
          (r) =>
            `Faces with a quality issue (${LABELS[r.set]}): ${r.lowQuality.length ? r.lowQuality.map((q) => `${q.file} ${q.issues.join('+')}`).join(', ') : 'none'}; genuine pairs held back by a quality rule alone: ${r.rows.map((row) => `${row.case} ${row.genuineHeldByQuality}`).join(', ')}.`,
        ),
        ...sets
          .filter((r) => r.byGroup.length)
          .map(
            (r) =>
              `By population group (${LABELS[r.set]}; groups as the manifest records them), pairs approved of pairs: ${r.byGroup
                .filter((g) => g.impostorApproved || g.genuine)
                .map(
                  (g) =>
                    `${g.case === 'photo vs photo' ? 'photo' : 'document'} ${g.groups}: genuine ${g.genuineApproved}/${g.genuine}, impostor ${g.impostorApproved}/${g.impostor}`,
                )
                .join('; ')}.`,
          ),
        ...sets.map(
          (r) =>
            `Approving scores sent to review by the cohort rule, FACE_NOT_DISTINCTIVE (${LABELS[r.set]}; a spent set's pair meets the cohort less its own two people): ${r.rows.map((row) => `${row.case} genuine ${row.genuineHeldByCohort}, impostor ${row.impostorHeldByCohort}`).join('; ')}.`,
        ),
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
        `true accepts at default ${DOCUMENT_MATCH_THRESHOLD}`,
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
        `Threshold at 1% false accepts: ${r.thresholdAtFar1.toFixed(3)}; the default ${DOCUMENT_MATCH_THRESHOLD} accepts ${(100 * r.falseAcceptRateAtDefault).toFixed(1)}% of impostor pairs.`,
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
