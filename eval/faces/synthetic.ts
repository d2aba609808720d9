import { performance } from 'node:perf_hooks';
import { EnginePool, defaultConcurrency } from '../../src/engine/pool/index.js';
import {
  CONDITIONS,
  documentImage,
  loadIdentities,
  printedPhoto,
  screenReplay,
  variant,
  type Condition,
} from './corpus.js';
import { DOCUMENT_MATCH_THRESHOLD, livenessDecision } from '../../src/engine/face/decide.js';

/**
 * The face rows of `npm run engine:eval` (and `npm run engine:eval:face` on its own): face
 * match on the corpus of test/engine/faces (each person's document rendering against every
 * person's selfie under each capture condition), liveness on the corpus's captures and on
 * simulated replays, and the engine's time per check. Runs through the worker pool the
 * service uses, so the figures are the service's.
 */
export interface FaceEvalOptions {
  /** A pool to use (left open); default: a new pool of ENGINE_CONCURRENCY threads, closed at the end. */
  pool?: EnginePool;
  /** Source photos (default: all of test/engine/faces). */
  files?: string[];
}

export interface FaceConditionRow {
  condition: Condition;
  genuinePairs: number;
  faceFound: number;
  trueAcceptsAtFar1: number;
  trueAcceptsAtDefault: number;
  meanSimilarity: number | null;
}

export interface LivenessRow {
  input: string;
  /** Whether these images are real captures (should pass) or simulated attacks (should not). */
  attack: boolean;
  images: number;
  oneFace: number;
  approve: number;
  review: number;
  reject: number;
  meanAntispoof: number | null;
  meanLiveness: number | null;
}

export interface FaceEvalResult {
  people: number;
  impostorPairs: number;
  /** The lowest similarity threshold at which at most 1% of impostor pairs are accepted. */
  thresholdAtFar1: number;
  falseAcceptRateAtDefault: number;
  trueAcceptRateAtFar1: number;
  trueAcceptRateAtDefault: number;
  conditions: FaceConditionRow[];
  liveness: LivenessRow[];
  /** Engine time of one check, measured one at a time on a warm thread (ms, median). */
  timing: { faceMatchMs: number; livenessMs: number; concurrency: number };
  seconds: number;
  /** The README's tables. */
  markdown: string;
}

const mean = (xs: number[]): number | null =>
  xs.length ? Math.round((1000 * xs.reduce((a, b) => a + b, 0)) / xs.length) / 1000 : null;
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

/**
 * The lowest threshold that accepts at most 1% of impostor pairs (a score counts as accepted
 * at or above the threshold): just above the (n - 1 - floor(n / 100))-th lowest score.
 */
export function thresholdAtFalseAcceptRate(impostor: number[], rate = 0.01): number {
  if (impostor.length === 0) return DOCUMENT_MATCH_THRESHOLD;
  const sorted = [...impostor].sort((a, b) => a - b);
  const allowed = Math.floor(sorted.length * rate);
  return Math.round((sorted[sorted.length - 1 - allowed]! + 0.001) * 1000) / 1000;
}

export async function evaluateFaceEngine(options: FaceEvalOptions = {}): Promise<FaceEvalResult> {
  const started = performance.now();
  const pool =
    options.pool ??
    new EnginePool({ concurrency: Number(process.env.ENGINE_CONCURRENCY) || defaultConcurrency(), timeoutMs: 300_000 });
  try {
    const read = (image: Buffer) => pool.run('face.read', { image });
    const people = await loadIdentities({ read, files: options.files });
    const embeddingOf = async (image: Buffer) => (await read(image)).faces[0]?.embedding ?? null;
    const documents = await Promise.all(people.map(async (p) => embeddingOf(await documentImage(p.portrait))));
    const impostor: number[] = [];
    const genuine = new Map<Condition, (number | null)[]>();
    for (const condition of CONDITIONS) {
      const selfies = await Promise.all(people.map(async (p) => embeddingOf(await variant(p.portrait, condition))));
      const found = (xs: (number[] | null)[]) =>
        xs.map((x, i) => [x, i] as const).filter((e): e is readonly [number[], number] => e[0] !== null);
      const docs = found(documents);
      const shots = found(selfies);
      const matrix = await pool.run('face.similarities', { a: docs.map(([e]) => e), b: shots.map(([e]) => e) });
      const scores: (number | null)[] = people.map(() => null);
      docs.forEach(([, i], r) =>
        shots.forEach(([, j], c) => (i === j ? (scores[i] = matrix[r]![c]!) : impostor.push(matrix[r]![c]!))),
      );
      genuine.set(condition, scores);
    }
    const far1 = thresholdAtFalseAcceptRate(impostor);
    const conditions = CONDITIONS.map((condition) => conditionRow(condition, genuine.get(condition)!, far1));
    const all = [...genuine.values()].flat();
    const rate = (t: number) => all.filter((s) => s !== null && s >= t).length / all.length;
    const liveness = await livenessRows(
      pool,
      people.map((p) => p.portrait),
    );
    const timing = await timeChecks(
      pool,
      people.map((p) => p.portrait),
    );
    const result: Omit<FaceEvalResult, 'markdown'> = {
      people: people.length,
      impostorPairs: impostor.length,
      thresholdAtFar1: far1,
      falseAcceptRateAtDefault:
        impostor.filter((s) => s >= DOCUMENT_MATCH_THRESHOLD).length / Math.max(1, impostor.length),
      trueAcceptRateAtFar1: rate(far1),
      trueAcceptRateAtDefault: rate(DOCUMENT_MATCH_THRESHOLD),
      conditions,
      liveness,
      timing: {
        ...timing,
        concurrency: pool === options.pool ? 0 : Number(process.env.ENGINE_CONCURRENCY) || defaultConcurrency(),
      },
      seconds: Math.round((performance.now() - started) / 1000),
    };
    return { ...result, markdown: formatFaceEval(result) };
  } finally {
    if (pool !== options.pool) await pool.close();
  }
}

function conditionRow(condition: Condition, scores: (number | null)[], far1: number): FaceConditionRow {
  const found = scores.filter((s): s is number => s !== null);
  return {
    condition,
    genuinePairs: scores.length,
    faceFound: found.length,
    trueAcceptsAtFar1: found.filter((s) => s >= far1).length,
    trueAcceptsAtDefault: found.filter((s) => s >= DOCUMENT_MATCH_THRESHOLD).length,
    meanSimilarity: mean(found),
  };
}

/** Liveness at the default threshold: the corpus's captures (should pass) and simulated attacks (should not). */
async function livenessRows(pool: EnginePool, portraits: Buffer[]): Promise<LivenessRow[]> {
  const sets: [string, boolean, Buffer[]][] = [['photo of a real face (corpus portrait)', false, portraits]];
  for (const condition of ['dark', 'blur', 'low_res'] as const) {
    sets.push([`the same, ${condition}`, false, await Promise.all(portraits.map((p) => variant(p, condition)))]);
  }
  sets.push(['simulated screen replay of that photo', true, await Promise.all(portraits.map(screenReplay))]);
  sets.push(['simulated printed photo held to the camera', true, await Promise.all(portraits.map(printedPhoto))]);
  const rows: LivenessRow[] = [];
  for (const [input, attack, images] of sets) {
    const results = await Promise.all(images.map((image) => pool.run('face.liveness', { frames: [image] })));
    const decisions = results.map((r) => livenessDecision(r, {}).verdict);
    rows.push({
      input,
      attack,
      images: images.length,
      oneFace: results.filter((r) => r.faces === 1).length,
      approve: decisions.filter((d) => d === 'approve').length,
      review: decisions.filter((d) => d === 'review').length,
      reject: decisions.filter((d) => d === 'reject').length,
      meanAntispoof: mean(results.map((r) => r.real ?? 0)),
      meanLiveness: mean(results.map((r) => r.live ?? 0)),
    });
  }
  return rows;
}

/** One check at a time on a warm thread: what a check costs, without queueing. */
async function timeChecks(pool: EnginePool, portraits: Buffer[]): Promise<{ faceMatchMs: number; livenessMs: number }> {
  const sample = portraits.slice(0, 6);
  const docs = await Promise.all(sample.map(documentImage));
  const selfies = await Promise.all(sample.map((p) => variant(p, 'tight_crop')));
  const match: number[] = [];
  const live: number[] = [];
  for (let i = 0; i < sample.length; i++) {
    let t = performance.now();
    await pool.run('face.match', { document: docs[i]!, selfie: selfies[i]! });
    match.push(performance.now() - t);
    t = performance.now();
    await pool.run('face.liveness', { frames: [selfies[i]!] });
    live.push(performance.now() - t);
  }
  return { faceMatchMs: Math.round(median(match)), livenessMs: Math.round(median(live)) };
}

const pct = (n: number, of: number) => (of ? `${((100 * n) / of).toFixed(1)}%` : 'n/a');
const num = (n: number | null) => (n === null ? 'n/a' : n.toFixed(2));

export function formatFaceEval(r: Omit<FaceEvalResult, 'markdown'>): string {
  const lines = [
    `Face match: ${r.people} people, ${r.impostorPairs} impostor pairs. Threshold at 1% false accepts: ${r.thresholdAtFar1.toFixed(3)}; ` +
      `the default threshold ${DOCUMENT_MATCH_THRESHOLD} accepts ${pct(r.falseAcceptRateAtDefault * r.impostorPairs, r.impostorPairs)} of impostor pairs.`,
    '',
    '| selfie condition | genuine pairs | face found | true accepts at 1% false accepts | true accepts at default threshold | mean similarity |',
    '|---|---|---|---|---|---|',
  ];
  for (const c of r.conditions) {
    lines.push(
      `| ${c.condition} | ${c.genuinePairs} | ${pct(c.faceFound, c.genuinePairs)} | ${pct(c.trueAcceptsAtFar1, c.genuinePairs)} | ${pct(c.trueAcceptsAtDefault, c.genuinePairs)} | ${num(c.meanSimilarity)} |`,
    );
  }
  lines.push(
    `| **all** | ${r.conditions.reduce((s, c) => s + c.genuinePairs, 0)} | | **${(100 * r.trueAcceptRateAtFar1).toFixed(1)}%** | **${(100 * r.trueAcceptRateAtDefault).toFixed(1)}%** | |`,
  );
  lines.push(
    '',
    '| liveness input | kind | images | one face | approve | review | reject | mean antispoof | mean liveness |',
    '|---|---|---|---|---|---|---|---|---|',
  );
  for (const l of r.liveness) {
    lines.push(
      `| ${l.input} | ${l.attack ? 'attack (simulated)' : 'genuine'} | ${l.images} | ${pct(l.oneFace, l.images)} | ${pct(l.approve, l.images)} | ${pct(l.review, l.images)} | ${pct(l.reject, l.images)} | ${num(l.meanAntispoof)} | ${num(l.meanLiveness)} |`,
    );
  }
  lines.push(
    '',
    `Engine time per check (one at a time, warm thread, median): face_match ${r.timing.faceMatchMs} ms (two images), liveness ${r.timing.livenessMs} ms (one frame). Whole face eval ${r.seconds} s.`,
  );
  return lines.join('\n');
}
