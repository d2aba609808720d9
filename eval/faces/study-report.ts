import { readFile } from 'node:fs/promises';
import { faceMatchDecision, DOCUMENT_MATCH_THRESHOLD, FACE_MATCH_THRESHOLD } from '../../src/engine/face/decide.js';
import { matchScore } from '../../src/engine/face/descriptor.js';
import { qualityOf } from '../../src/engine/face/quality.js';
import type { StudyReading } from './study.js';

/**
 * The failure study's tables (docs/checks-face.md, third round) from study.ts's dump, tuning data
 * only: chip variants and fusion (TAR at each set's own 0.1% FAR point), size and sharpness
 * floors, the default thresholds on the pooled data, and thresholds by face-size band
 * cross-validated over people. `node dist-eval/eval/faces/study-report.js study.json [pad.json]`.
 */
type Kind = 'photo' | 'doc';
const [file, padFile] = process.argv.slice(2);
const readings = JSON.parse(await readFile(file ?? 'study.json', 'utf8')) as StudyReading[];
if (padFile) {
  const pad = JSON.parse(await readFile(padFile, 'utf8')) as StudyReading[];
  const byKey = new Map(pad.map((r) => [`${r.set}|${r.file}|${r.kind}`, r]));
  for (const r of readings) Object.assign(r.raw ?? {}, byKey.get(`${r.set}|${r.file}|${r.kind}`)?.raw ?? {});
}
/** One person under two labels in the first corpus (deepface's img1... is Angelina Jolie). */
const ALIAS: Record<string, string> = { 'fp-angelina-jolie': 'df-person06' };
for (const r of readings) r.person = ALIAS[r.person] ?? r.person;

const SETS: Record<string, string[]> = {
  pooled: ['tuning', 'heldOut', 'heldOut2'],
  tuning: ['tuning'],
  'first held-out': ['heldOut'],
  'held-out-2': ['heldOut2'],
};
const photos = readings.filter((r) => r.kind === 'photo');
const docs = new Map(readings.filter((r) => r.kind === 'doc').map((r) => [`${r.set}|${r.file}`, r]));

const unit = (v: number[]): number[] | null => {
  const n = Math.hypot(...v);
  return n > 0 ? v.map((x) => x / n) : null;
};
const sum = (parts: number[][]) => parts[0]!.map((_, i) => parts.reduce((a, p) => a + p[i]!, 0));
const dot = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);
const small = (r: StudyReading) => (r.interEye ?? 99) < 50;

/** The descriptor of a variant: which raw chip descriptors are averaged. */
const VARIANTS: Record<string, (r: StudyReading) => number[][] | undefined> = {
  base: (r) => r.raw?.base,
  jitter: (r) => r.raw?.base && [...r.raw.base, ...(r.raw.jitter ?? [])],
  scale2: (r) => r.raw?.base && [...r.raw.base, ...(r.raw.jitter ?? []).slice(8, 12)],
  jitterSmall: (r) => r.raw?.base && [...r.raw.base, ...(small(r) ? (r.raw.jitter ?? []) : [])],
  upscaleSmall: (r) => r.raw?.up ?? r.raw?.base,
  sharpen: (r) => r.raw?.sharpen,
  stretch: (r) => r.raw?.stretch,
  lm2: (r) => r.raw?.lm2,
  'pad0.2': (r) => r.raw?.['pad0.2'],
  'pad0.3': (r) => r.raw?.['pad0.3'],
  'pad0.35': (r) => r.raw?.['pad0.35'],
};
const cache = new Map<string, number[] | null>();
function descriptor(r: StudyReading, variant: string): number[] | null {
  const key = `${r.set}|${r.file}|${r.kind}|${variant}`;
  if (!cache.has(key)) {
    const parts = VARIANTS[variant]!(r);
    cache.set(key, parts?.length ? unit(sum(parts)) : null);
  }
  return cache.get(key)!;
}
const faceres = (r: StudyReading) => (r.faceres ? unit(r.faceres) : null);

interface Pair {
  a: StudyReading | undefined;
  b: StudyReading;
  same: boolean;
}
/** Photo case: every pair of photos once; document case: each photo's document against every other photo. */
function pairs(sets: string[], kind: Kind): Pair[] {
  const ps = photos.filter((p) => sets.includes(p.set));
  const out: Pair[] = [];
  for (let i = 0; i < ps.length; i++)
    for (let j = 0; j < ps.length; j++) {
      if (i === j || (kind === 'photo' && i > j)) continue;
      const a = kind === 'photo' ? ps[i] : docs.get(`${ps[i]!.set}|${ps[i]!.file}`);
      out.push({ a, b: ps[j]!, same: ps[i]!.person === ps[j]!.person });
    }
  return out;
}

type Similarity = (a: StudyReading, b: StudyReading) => number | null;
const cosineOf =
  (variant: string): Similarity =>
  (a, b) => {
    const [x, y] = [descriptor(a, variant), descriptor(b, variant)];
    return x && y ? dot(x, y) : null;
  };
const fusion =
  (w: number): Similarity =>
  (a, b) => {
    const [x, y, fx, fy] = [descriptor(a, 'base'), descriptor(b, 'base'), faceres(a), faceres(b)];
    if (!x || !y || !fx || !fy) return null;
    return (w * (dot(x, y) - 0.8)) / 0.07 + ((1 - w) * (dot(fx, fy) - 0.3)) / 0.15;
  };
const faceresAlone: Similarity = (a, b) => {
  const [x, y] = [faceres(a), faceres(b)];
  return x && y ? dot(x, y) : null;
};

/** TAR at the set's own 0.1% FAR point, AUC, and how many impostor pairs decide the point. */
function separation(ps: Pair[], similarity: Similarity) {
  const gen: number[] = [];
  const imp: number[] = [];
  for (const p of ps) (p.same ? gen : imp).push((p.a && similarity(p.a, p.b)) ?? -1);
  imp.sort((x, y) => y - x);
  const k = Math.floor(imp.length * 0.001);
  const t = imp[k] ?? 0;
  let auc = 0;
  for (const g of gen) auc += imp.filter((s) => s < g).length / imp.length;
  return { tar: gen.filter((g) => g > t).length / gen.length, auc: auc / gen.length, k };
}

/** What the engine decides on a pair at `threshold` (quality rules as shipped), and the face-size feature. */
function decided(p: Pair, kind: Kind) {
  const summary = (r: StudyReading | undefined) => ({
    readable: true,
    faces: r?.faces ?? 0,
    quality:
      r && r.faces
        ? qualityOf({ box: r.box!, score: r.score!, yaw: r.yaw ?? null, interEye: r.interEye }, !!r.embedding)
        : [],
  });
  const score = p.a?.embedding && p.b.embedding ? matchScore(p.a.embedding, p.b.embedding) : 0;
  const analysis = {
    pair: kind === 'photo' ? ('photos' as const) : ('document_selfie' as const),
    document: summary(p.a),
    selfie: summary(p.b),
    similarity: p.a?.faces && p.b.faces ? score : null,
    ageEstimate: null,
    selfieEmbedding: null,
  };
  // threshold 0: `approvable` says whether any threshold could approve it (both faces found with good quality)
  const approvable = faceMatchDecision(analysis, { threshold: 0 }).verdict === 'approve';
  const eyes = kind === 'photo' ? Math.min(p.a?.interEye ?? 0, p.b.interEye ?? 0) : (p.b.interEye ?? 0);
  const lap = kind === 'photo' ? Math.min(p.a?.lap ?? 0, p.b.lap ?? 0) : (p.b.lap ?? 0);
  return { same: p.same, score, approvable, eyes, lap, people: [p.a?.person ?? '', p.b.person].sort().join('/') };
}
type Decided = ReturnType<typeof decided>;

const pct = (n: number, of: number, digits = 1) => `${((100 * n) / Math.max(1, of)).toFixed(digits)}%`;
const defaultOf = (kind: Kind) => (kind === 'photo' ? FACE_MATCH_THRESHOLD : DOCUMENT_MATCH_THRESHOLD);

console.log("## Variants: TAR at each set's own 0.1% FAR point (photo / document; impostor pairs deciding it)\n");
const similarities: Record<string, Similarity> = {
  ...Object.fromEntries(Object.keys(VARIANTS).map((v) => [v, cosineOf(v)])),
  faceres: faceresAlone,
  'fusion 0.9': fusion(0.9),
  'fusion 0.8': fusion(0.8),
};
const pairCache = new Map<string, Pair[]>();
const pairsOf = (set: string, kind: Kind) => {
  const key = `${set}|${kind}`;
  if (!pairCache.has(key)) pairCache.set(key, pairs(SETS[set]!, kind));
  return pairCache.get(key)!;
};
console.log(`| variant | ${Object.keys(SETS).join(' | ')} |`);
for (const [name, similarity] of Object.entries(similarities)) {
  const cells = Object.keys(SETS).map((set) => {
    const [p, d] = (['photo', 'doc'] as const).map((kind) => separation(pairsOf(set, kind), similarity));
    return `${pct(p!.tar * 1000, 1000)} / ${pct(d!.tar * 1000, 1000)} (k ${p!.k} / ${d!.k}; AUC ${p!.auc.toFixed(3)} / ${d!.auc.toFixed(3)})`;
  });
  console.log(`| ${name} | ${cells.join(' | ')} |`);
}

const decidedCache = new Map<string, Decided[]>();
const decidedOf = (set: string, kind: Kind) => {
  const key = `${set}|${kind}`;
  if (!decidedCache.has(key))
    decidedCache.set(
      key,
      pairsOf(set, kind).map((p) => decided(p, kind)),
    );
  return decidedCache.get(key)!;
};

console.log(
  '\n## Floors (pooled): never approve below; genuine approvals lost / impostor approvals removed at the default\n',
);
for (const kind of ['photo', 'doc'] as const) {
  const ds = decidedOf('pooled', kind);
  const t = defaultOf(kind);
  const approved = ds.filter((d) => d.approvable && d.score >= t);
  console.log(`${kind}: ${approved.filter((d) => !d.same).length} impostor approvals at ${t}`);
  for (const [name, pick, cuts] of [
    ['eyes px', (d: Decided) => d.eyes, [35, 45, 50]],
    ['chip Laplacian', (d: Decided) => d.lap, [40, 100]],
  ] as const)
    for (const cut of cuts) {
      const below = approved.filter((d) => pick(d) < cut);
      console.log(`  ${name} < ${cut}: ${below.filter((d) => d.same).length} / ${below.filter((d) => !d.same).length}`);
    }
}

console.log('\n## Thresholds: genuine approved / impostors approved (pairs; pairs of people)\n');
for (const kind of ['photo', 'doc'] as const)
  for (const t of [0.74, 0.75, 0.76, 0.77, 0.78]) {
    const cells = Object.keys(SETS).map((set) => {
      const ds = decidedOf(set, kind);
      const gen = ds.filter((d) => d.same);
      const imp = ds.filter((d) => !d.same);
      const ia = imp.filter((d) => d.approvable && d.score >= t);
      const ga = gen.filter((d) => d.approvable && d.score >= t).length;
      return `${pct(ga, gen.length)} (${ga}/${gen.length}) / ${pct(ia.length, imp.length, 3)} (${ia.length}; ${new Set(ia.map((d) => d.people)).size})`;
    });
    console.log(`| ${kind} ${t} | ${cells.join(' | ')} |`);
  }

console.log('\n## Thresholds by face-size band, cross-validated over people (5 folds x 20 splits)\n');
const people = [...new Set(photos.map((p) => p.person))].sort();
let seed = 7;
const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
/** The lowest score (to 0.001) at which at most 0.1% of these impostor pairs are approved. */
const point = (imp: Decided[], far = 0.001) => {
  const s = imp.map((d) => (d.approvable ? d.score : 0)).sort((x, y) => y - x);
  return (s[Math.floor(s.length * far)] ?? 0) + 0.0005;
};
for (const kind of ['photo', 'doc'] as const) {
  const ds = decidedOf('pooled', kind);
  const ps = pairsOf('pooled', kind);
  const totals: Record<string, number[]> = {};
  for (let split = 0; split < 20; split++) {
    const fold = new Map(people.map((p) => [p, Math.floor(random() * 5)]));
    for (let f = 0; f < 5; f++) {
      const inFold = (p: Pair) => fold.get(p.b.person) === f && !!p.a && fold.get(p.a.person) === f;
      const outFold = (p: Pair) => fold.get(p.b.person) !== f && !!p.a && fold.get(p.a.person) !== f;
      const train = ds.filter((_, i) => outFold(ps[i]!) && !ds[i]!.same);
      const test = ds.filter((_, i) => inFold(ps[i]!));
      const [one, strict] = [point(train), point(train, 0.0005)];
      const rules: Record<string, (d: Decided) => number> = {
        'one threshold': () => one,
        'one threshold at the 0.05% point': () => strict,
      };
      for (const cut of [45, 50, 60]) {
        const [big, low] = [point(train.filter((d) => d.eyes >= cut)), point(train.filter((d) => d.eyes < cut))];
        rules[`bands at ${cut} px`] = (d) => (d.eyes >= cut ? big : low);
        if (cut === 50) rules['floor at 50 px'] = (d) => (d.eyes >= cut ? big : 9);
      }
      for (const [name, rule] of Object.entries(rules)) {
        const t = totals[name] ?? (totals[name] = [0, 0, 0, 0]);
        for (const d of test) {
          const ok = d.approvable && d.score >= rule(d);
          t[d.same ? 0 : 2]! += ok ? 1 : 0;
          t[d.same ? 1 : 3]! += 1;
        }
      }
    }
  }
  for (const [name, [ga, g, ia, i]] of Object.entries(totals))
    console.log(
      `${kind} ${name}: approved ${pct(ga!, g!)} of ${g} genuine, ${pct(ia!, i!, 3)} (${ia}) of ${i} impostor test pairs`,
    );
}
