import { DOCUMENT_MATCH_THRESHOLD, faceMatchDecision, FACE_MATCH_THRESHOLD } from '../../src/engine/face/decide.js';
import { matchScore } from '../../src/engine/face/descriptor.js';
import {
  ALIAS,
  EAST_ASIAN,
  LEFT_OUT_FOR_TESTS,
  listOption,
  loadReadings,
  recordedGroups,
  shuffled,
} from './cohort-people.js';
import type { CohortReading } from './cohort-dump.js';

/**
 * Cohort study (tuning data only: every spent set): does comparing each face of a pair with a
 * cohort of other people's descriptors tell the pairs the model cannot separate from strangers?
 * Every figure is cross-validated over people: the cohort that scores a pair never holds either
 * person of the pair. Schemes: people in 5 random folds (cohort = the other folds, pairs within
 * the fold), leave one source out (cohort = the other sources), and leave the pair out (cohort =
 * everyone but the pair's two people, as a new applicant meets the shipped cohort).
 * `--cohort-sets=tuning,heldOut,...`: the cohort may hold only people of these sets (default: every set
 * of the readings), e.g. the shipped cohort's sets against the cohort enlarged with held-out-4;
 * `--pair-sets=heldOut4`: only pairs whose two people are of these sets are tested.
 * `node dist-eval/eval/faces/cohort-study.js readings.json [--grid] [--rule=k,margin] [--cohort-sets=...] [--pair-sets=...]`
 */
type Kind = 'photo' | 'doc';
const args = process.argv.slice(2);
const readings = await loadReadings(args[0] ?? 'cohort-readings.json');
const sourceOf = (p: string) => p.split('-')[0]!;
/** Population groups where a set's manifest records them (real-4, real-5); earlier sets: EAST_ASIAN by name. */
const GROUPS = new Map([...(await recordedGroups())].map(([person, group]) => [person, group ?? '']));
/** East or Southeast Asian: the population held-out-4's false accepts all fell in. */
const ASIAN = (p: string) =>
  GROUPS.has(p) ? ['east-asian', 'southeast-asian'].includes(GROUPS.get(p)!) : EAST_ASIAN(p);
const listArg = (name: string) => listOption(args, name);
const cohortSets = listArg('cohort-sets');
const pairSets = listArg('pair-sets');

const photos = readings.filter((r) => r.kind === 'photo');
const docOf = new Map(readings.filter((r) => r.kind === 'doc').map((r) => [`${r.set}|${r.file}`, r]));
const people = [...new Set(photos.map((r) => r.person))].sort();
const personIndex = new Map(people.map((p, i) => [p, i]));
const setsOf = (sets: string[] | undefined) =>
  new Set(photos.filter((r) => !sets || sets.includes(r.set)).map((r) => personIndex.get(r.person)!));
/** People the cohort may hold (--cohort-sets) and people whose pairs are tested (--pair-sets). */
const cohortPeople = setsOf(cohortSets);
const pairPeople = setsOf(pairSets);
/** The cohort: every photo's descriptor (when found), by person. */
const cohortPhotos = photos.filter((r) => r.embedding.length > 0);

const dot = (a: number[], b: number[]) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
};
/** The score scale without clamping (cosine 0.70 → 0, 1.00 → 1), so cohort scores below 0 still order. */
const stretched = (a: number[], b: number[]) => (dot(a, b) - 0.7) / 0.3;

/** Per reading: its best score against each cohort person (their photos), index = personIndex. */
const bestCache = new Map<CohortReading, Float64Array>();
function bestByPerson(r: CohortReading): Float64Array {
  let best = bestCache.get(r);
  if (best) return best;
  best = new Float64Array(people.length).fill(-Infinity);
  for (const c of cohortPhotos) {
    if (c === r) continue;
    const i = personIndex.get(c.person)!;
    best[i] = Math.max(best[i]!, stretched(r.embedding, c.embedding));
  }
  bestCache.set(r, best);
  return best;
}

/** The k-th highest of a reading's per-person best scores over the allowed cohort people. */
function kth(r: CohortReading, allowed: (person: number) => boolean, k: number): number {
  const best = bestByPerson(r);
  const values: number[] = [];
  for (let i = 0; i < best.length; i++) if (allowed(i) && best[i]! > -Infinity) values.push(best[i]!);
  values.sort((a, b) => b - a);
  return values[Math.min(k, values.length) - 1] ?? -Infinity;
}

interface Pair {
  kind: Kind;
  a: CohortReading; // reference: a photo, or a photographed document
  b: CohortReading; // selfie
  same: boolean;
  ea: boolean;
  score: number;
  base: 'approve' | 'review' | 'reject';
}

function decideBase(kind: Kind, a: CohortReading | undefined, b: CohortReading): Pair['base'] {
  const summary = (r: CohortReading | undefined) => ({
    readable: true,
    faces: r?.faces ?? 0,
    quality: (r?.quality ?? []) as never,
  });
  const similarity = a && a.embedding.length && b.embedding.length ? matchScore(a.embedding, b.embedding) : null;
  const analysis = {
    pair: kind === 'photo' ? ('photos' as const) : ('document_selfie' as const),
    document: summary(a),
    selfie: summary(b),
    similarity,
    ageEstimate: null,
    selfieEmbedding: null,
  };
  return faceMatchDecision(analysis, {}).verdict as Pair['base'];
}

const pairs: Pair[] = [];
for (let i = 0; i < photos.length; i++)
  for (let j = 0; j < photos.length; j++) {
    if (i === j) continue;
    const [x, y] = [photos[i]!, photos[j]!];
    const same = x.person === y.person;
    const ea = ASIAN(x.person) && ASIAN(y.person);
    const emb = (r?: CohortReading) => !!r && r.embedding.length > 0;
    if (i < j)
      pairs.push({
        kind: 'photo',
        a: x,
        b: y,
        same,
        ea,
        score: emb(x) && emb(y) ? matchScore(x.embedding, y.embedding) : 0,
        base: decideBase('photo', x, y),
      });
    const doc = docOf.get(`${x.set}|${x.file}`);
    pairs.push({
      kind: 'doc',
      a: doc ?? { ...x, kind: 'doc', faces: 0, quality: [], embedding: [] },
      b: y,
      same,
      ea,
      score: emb(doc) && emb(y) ? matchScore(doc!.embedding, y.embedding) : 0,
      base: decideBase('doc', doc, y),
    });
  }

/** A cohort rule: the pair's score must beat the k-th best cohort person of each face by `margin`. */
interface Rule {
  k: number;
  margin: number;
  /** How the two faces' cohort scores combine: the higher of the two, or their mean. */
  combine: 'max' | 'mean';
}
const ruleName = (r: Rule) => `k=${r.k} margin=${r.margin.toFixed(2)} ${r.combine}`;

/** The cohort statistic of a pair: its score minus the combined k-th cohort scores (higher: more distinctive). */
function margin(p: Pair, allowed: (person: number) => boolean, rule: Omit<Rule, 'margin'>): number {
  const ta = kth(p.a, allowed, rule.k);
  const tb = kth(p.b, allowed, rule.k);
  const t = rule.combine === 'max' ? Math.max(ta, tb) : (ta + tb) / 2;
  return p.score - t;
}

interface Tally {
  genuine: Record<Pair['base'], number>;
  impostor: Record<Pair['base'], number>;
  /** Approvals the cohort moved to review. */
  movedGenuine: number;
  movedImpostor: number;
  eaImpostorApproved: number;
  eaImpostor: number;
  eaImpostorApprovedBase: number;
  eaGenuine: number;
  eaGenuineApproved: number;
  genuineScores: number[];
  impostorScores: number[];
  genuineMargins: number[];
  impostorMargins: number[];
}
const tally = (): Tally => ({
  genuine: { approve: 0, review: 0, reject: 0 },
  impostor: { approve: 0, review: 0, reject: 0 },
  movedGenuine: 0,
  movedImpostor: 0,
  eaImpostorApproved: 0,
  eaImpostor: 0,
  eaImpostorApprovedBase: 0,
  eaGenuine: 0,
  eaGenuineApproved: 0,
  genuineScores: [],
  impostorScores: [],
  genuineMargins: [],
  impostorMargins: [],
});

/** Scores a set of test pairs with a cohort limited to `allowed` people (minus each pair's own two). */
function run(test: Pair[], allowed: (person: number) => boolean, rule: Rule | null, into: Tally) {
  for (const p of test) {
    const pa = personIndex.get(p.a.person)!;
    const pb = personIndex.get(p.b.person)!;
    const ok = (i: number) => i !== pa && i !== pb && allowed(i);
    let verdict = p.base;
    const m = rule && p.a.embedding.length && p.b.embedding.length ? margin(p, ok, rule) : null;
    if (rule && verdict === 'approve' && m !== null && m < rule.margin) {
      verdict = 'review';
      if (p.same) into.movedGenuine++;
      else into.movedImpostor++;
    }
    (p.same ? into.genuine : into.impostor)[verdict]++;
    (p.same ? into.genuineScores : into.impostorScores).push(p.score);
    if (m !== null) (p.same ? into.genuineMargins : into.impostorMargins).push(m);
    if (p.same && p.ea) {
      into.eaGenuine++;
      if (verdict === 'approve') into.eaGenuineApproved++;
    }
    if (!p.same && p.ea) {
      into.eaImpostor++;
      if (verdict === 'approve') into.eaImpostorApproved++;
      if (p.base === 'approve') into.eaImpostorApprovedBase++;
    }
  }
}

/** TAR at a FAR point of one score: the share of genuine scores at or above the score that lets `far` of impostors through; and how many impostor pairs decide it. */
function tarAt(genuine: number[], impostor: number[], far: number): { tar: number; deciding: number } {
  const sorted = [...impostor].sort((a, b) => b - a);
  const deciding = Math.floor(sorted.length * far);
  const t = (sorted[deciding] ?? -Infinity) + 1e-9;
  return { tar: genuine.filter((g) => g >= t).length / Math.max(1, genuine.length), deciding };
}

const pct = (n: number, d: number) => (d ? `${((100 * n) / d).toFixed(2)}%` : '-');
const FOLDS = 5;
const REPEATS = 4;
type Scheme = { name: string; folds: { name: string; test: Set<number>; cohort: Set<number> }[] };
function schemes(): Scheme[] {
  const all = people.map((_, i) => i);
  const random: Scheme = { name: `people, ${FOLDS} folds x ${REPEATS} splits`, folds: [] };
  for (let r = 0; r < REPEATS; r++) {
    const order = shuffled(all, 1000 + r);
    for (let f = 0; f < FOLDS; f++) {
      const test = new Set(order.filter((_, i) => i % FOLDS === f));
      random.folds.push({ name: `split ${r} fold ${f}`, test, cohort: new Set(all.filter((i) => !test.has(i))) });
    }
  }
  const sources = [...new Set(people.map(sourceOf))];
  const loso: Scheme = {
    name: 'leave one source out',
    folds: sources.map((s) => {
      const test = new Set(all.filter((i) => sourceOf(people[i]!) === s));
      return { name: s, test, cohort: new Set(all.filter((i) => !test.has(i))) };
    }),
  };
  const lpo: Scheme = {
    name: 'leave the pair out (cohort: everyone else)',
    folds: [{ name: 'all', test: new Set(all), cohort: new Set(all) }],
  };
  const left = new Set(LEFT_OUT_FOR_TESTS.map((p) => personIndex.get(ALIAS[p] ?? p)));
  const shipped: Scheme = {
    name: "leave the pair out, the shipped cohort's people (the tests' people left out)",
    folds: [{ name: 'all', test: new Set(all), cohort: new Set(all.filter((i) => !left.has(i))) }],
  };
  for (const scheme of [random, loso, lpo, shipped])
    for (const fold of scheme.folds) fold.cohort = new Set([...fold.cohort].filter((i) => cohortPeople.has(i)));
  return [random, loso, lpo, shipped];
}

function testPairs(kind: Kind, test: Set<number>) {
  return pairs.filter(
    (p) =>
      p.kind === kind &&
      [p.a, p.b].every((r) => test.has(personIndex.get(r.person)!) && pairPeople.has(personIndex.get(r.person)!)),
  );
}

function line(label: string, t: Tally) {
  const g = t.genuine.approve + t.genuine.review + t.genuine.reject;
  const i = t.impostor.approve + t.impostor.review + t.impostor.reject;
  const raw = tarAt(t.genuineScores, t.impostorScores, 0.001);
  const norm = tarAt(t.genuineMargins, t.impostorMargins, 0.001);
  return (
    `| ${label} | ${g} | ${i} | ${pct(t.genuine.approve, g)} (${t.genuine.approve}) / ${pct(t.genuine.review, g)} (${t.genuine.review}) / ${pct(t.genuine.reject, g)} (${t.genuine.reject}) ` +
    `| ${pct(t.impostor.approve, i)} (${t.impostor.approve}) / ${pct(t.impostor.review, i)} (${t.impostor.review}) / ${pct(t.impostor.reject, i)} (${t.impostor.reject}) ` +
    `| ${t.movedGenuine} / ${t.movedImpostor} | ${t.eaGenuineApproved} of ${t.eaGenuine} / ${t.eaImpostorApproved} of ${t.eaImpostor} (${t.eaImpostorApprovedBase}) ` +
    `| ${(100 * raw.tar).toFixed(1)}% / ${(100 * norm.tar).toFixed(1)}% (${raw.deciding}) |`
  );
}

const HEADER =
  '| fold | genuine | impostor | genuine: approve / review / reject | impostor: approve / review / reject | approvals moved to review: genuine / impostor | East/Southeast Asian pairs approved: genuine / impostor (impostor today) | TAR at 0.1% FAR: score / cohort margin (impostor pairs deciding) |\n|---|---|---|---|---|---|---|---|';

function report(rule: Rule | null, perFold: boolean) {
  for (const scheme of schemes())
    for (const kind of ['photo', 'doc'] as Kind[]) {
      const pooled = tally();
      const rows: string[] = [];
      for (const fold of scheme.folds) {
        const t = tally();
        const test = testPairs(kind, fold.test);
        run(test, (i) => fold.cohort.has(i), rule, t);
        run(test, (i) => fold.cohort.has(i), rule, pooled);
        if (perFold) rows.push(line(fold.name, t));
      }
      console.log(
        `\n**${scheme.name}, ${kind === 'photo' ? 'photo vs photo' : 'document vs photo'}**, ${rule ? ruleName(rule) : 'today'}\n`,
      );
      console.log(HEADER);
      for (const r of rows) console.log(r);
      console.log(line('**pooled**', pooled));
    }
}

/** The k-th best cohort scores (k = 1..KS) of a reading over the allowed people. */
const KS = [1, 2, 3, 5, 8, 12, 20];
function tops(r: CohortReading, allowed: (person: number) => boolean): number[] {
  const best = bestByPerson(r);
  const values: number[] = [];
  for (let i = 0; i < best.length; i++) if (allowed(i) && best[i]! > -Infinity) values.push(best[i]!);
  values.sort((a, b) => b - a);
  return KS.map((k) => values[Math.min(k, values.length) - 1] ?? -Infinity);
}

/** Scores at or above this are approved whatever the cohort says (`--cap=`; default: none). */
const CAP = Number(args.find((a) => a.startsWith('--cap='))?.slice(6) ?? 2);
/** The grid: approvals kept and impostor approvals left per rule, pooled over each scheme's folds. */
function grid() {
  const margins = Array.from({ length: 16 }, (_, i) => -0.05 + i * 0.01);
  for (const scheme of schemes()) {
    console.log(
      `\n**${scheme.name}** (genuine approved % / impostor approved / East or Southeast Asian impostor approved / East or Southeast Asian genuine approved), photo | document`,
    );
    const records: Record<
      Kind,
      { same: boolean; ea: boolean; base: string; score: number; ta: number[]; tb: number[] }[]
    > = {
      photo: [],
      doc: [],
    };
    for (const kind of ['photo', 'doc'] as Kind[])
      for (const fold of scheme.folds)
        for (const p of testPairs(kind, fold.test)) {
          const pa = personIndex.get(p.a.person)!;
          const pb = personIndex.get(p.b.person)!;
          const ok = (i: number) => i !== pa && i !== pb && fold.cohort.has(i);
          const has = p.a.embedding.length > 0 && p.b.embedding.length > 0;
          records[kind].push({
            same: p.same,
            ea: p.ea,
            base: p.base,
            score: p.score,
            ta: has ? tops(p.a, ok) : [],
            tb: has ? tops(p.b, ok) : [],
          });
        }
    for (const kind of ['photo', 'doc'] as Kind[]) {
      const rs = records[kind];
      const g = rs.filter((r) => r.same).length;
      const base = rs.filter((r) => r.base === 'approve');
      console.log(
        `${kind} today: ${((100 * base.filter((r) => r.same).length) / g).toFixed(1)}/${base.filter((r) => !r.same).length}/${base.filter((r) => !r.same && r.ea).length}/${base.filter((r) => r.same && r.ea).length} of ${g} genuine (${rs.filter((r) => r.same && r.ea).length} East/Southeast Asian), ${rs.length - g} impostor (${rs.filter((r) => !r.same && r.ea).length} East/Southeast Asian)`,
      );
    }
    const raise = Array.from({ length: 11 }, (_, i) => i * 0.01);
    console.log(
      `threshold raised by: ${raise
        .map((d) => {
          const parts = (['photo', 'doc'] as Kind[]).map((kind) => {
            const rs = records[kind];
            const t = (kind === 'photo' ? FACE_MATCH_THRESHOLD : DOCUMENT_MATCH_THRESHOLD) + d - 1e-9;
            const ok = rs.filter((r) => r.base === 'approve' && r.score >= t);
            const g = rs.filter((r) => r.same).length;
            return `${((100 * ok.filter((r) => r.same).length) / g).toFixed(1)}/${ok.filter((r) => !r.same).length}/${ok.filter((r) => !r.same && r.ea).length}`;
          });
          return `\n  +${d.toFixed(2)}: ${parts.join(' | ')}`;
        })
        .join('')}`,
    );
    for (const combine of ['max', 'mean'] as const)
      for (const [ki, k] of KS.entries()) {
        const cells: string[] = [];
        for (const m of margins) {
          const parts: string[] = [];
          for (const kind of ['photo', 'doc'] as Kind[]) {
            const rs = records[kind];
            let ga = 0;
            let ia = 0;
            let ea = 0;
            let eg = 0;
            let g = 0;
            for (const r of rs) {
              if (r.same) g++;
              if (r.base !== 'approve') continue;
              const t = combine === 'max' ? Math.max(r.ta[ki]!, r.tb[ki]!) : (r.ta[ki]! + r.tb[ki]!) / 2;
              if (r.ta.length && r.score < CAP && r.score - t < m) continue;
              if (r.same) {
                ga++;
                if (r.ea) eg++;
              } else {
                ia++;
                if (r.ea) ea++;
              }
            }
            parts.push(`${((100 * ga) / g).toFixed(1)}/${ia}/${ea}/${eg}`);
          }
          cells.push(`${m.toFixed(2)}: ${parts.join(' | ')}`);
        }
        console.log(`${combine} k=${k}:\n  ${cells.join('\n  ')}`);
      }
  }
}

console.error(
  `${people.length} people, ${photos.length} photos, ${pairs.length} pairs; cohort people ${cohortPeople.size}, pair people ${pairPeople.size}`,
);
const ruleArg = args.find((a) => a.startsWith('--rule='))?.slice(7);
if (args.includes('--grid')) grid();
else if (ruleArg) {
  const [k, m, combine] = ruleArg.split(',');
  report({ k: Number(k), margin: Number(m), combine: (combine as Rule['combine']) ?? 'max' }, true);
} else report(null, true);
