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
 * Two-dimensional face_match rules (tuning data only: every spent set, cohort-dump.ts's readings):
 * a lower threshold together with the cohort margin (the pair's score minus the best score either
 * face gets against a cohort stranger). Families, per case (photo vs photo, document vs photo),
 * every one requiring both faces found, described and of good quality:
 *   threshold t          score >= t (no cohort)
 *   and t,m              score >= t and margin >= m (today: t = 0.77 / 0.75, m = 0)
 *   sum a,f,t            score >= f and score + a * margin >= t
 * Every figure is cross-validated over people: the cohort that scores a pair never holds either
 * person of the pair (schemes as cohort-study.ts: people in 5 folds x 4 splits, leave the pair out,
 * leave one source out). An operating point is admissible when impostors approved are <= 0.1%
 * pooled, among East/Southeast Asian pairs and in every group pairing of at least 1,000 impostor pairs
 * (`--min-pairing=`; smaller pairings are reported, not constrained: 0.1% of them is under one pair). "Nested" chooses each family's operating point on
 * the training people of each people fold (their pairs scored leave-the-pair-out against the
 * training people) and counts only the test fold's pairs: the selection itself cross-validated.
 * `--cohort-sets=...` limits the cohort's people as in cohort-study.ts; `--why=and,0.70,0.00`
 * sorts the genuine non-approvals of one rule (leave the pair out) by cause.
 * `node dist-eval/eval/faces/cohort-rule2d.js readings.json [--cohort-sets=...] [--why=...]`
 */
type Kind = 'photo' | 'doc';
const args = process.argv.slice(2);
const readings = await loadReadings(args[0] ?? 'cohort-readings.json');
const sourceOf = (p: string) => p.split('-')[0]!;
const GROUPS = new Map([...(await recordedGroups())].map(([person, group]) => [person, group ?? 'unrecorded']));
/** A person's group: the manifest's (real-4, real-5); earlier sets: East Asian by name, else unrecorded. */
const groupOf = (p: string) => GROUPS.get(p) ?? (EAST_ASIAN(p) ? 'east-asian' : 'unrecorded');
const ASIAN = (g: string) => g === 'east-asian' || g === 'southeast-asian';
const listArg = (name: string) => listOption(args, name);
const cohortSets = listArg('cohort-sets');

const photos = readings.filter((r) => r.kind === 'photo');
const docOf = new Map(readings.filter((r) => r.kind === 'doc').map((r) => [`${r.set}|${r.file}`, r]));
const people = [...new Set(photos.map((r) => r.person))].sort();
const P = people.length;
const personIndex = new Map(people.map((p, i) => [p, i]));
const cohortAllowed = new Uint8Array(P);
for (const r of photos) if (!cohortSets || cohortSets.includes(r.set)) cohortAllowed[personIndex.get(r.person)!] = 1;
const cohortPhotos = photos.filter((r) => r.embedding.length > 0);

const dot = (a: number[], b: number[]) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
};
/** Per reading (index into `all`): best stretched score against each person's cohort photos, as the engine rounds it. */
const all: CohortReading[] = [];
const readingIndex = new Map<CohortReading, number>();
const best: Float64Array[] = [];
function idx(r: CohortReading): number {
  let i = readingIndex.get(r);
  if (i !== undefined) return i;
  i = all.length;
  all.push(r);
  readingIndex.set(r, i);
  const b = new Float64Array(P).fill(-Infinity);
  if (r.embedding.length)
    for (const c of cohortPhotos) {
      if (c === r) continue;
      const p = personIndex.get(c.person)!;
      b[p] = Math.max(b[p]!, dot(r.embedding, c.embedding));
    }
  for (let p = 0; p < P; p++) if (b[p]! > -Infinity) b[p] = Math.round(((b[p]! - 0.7) / 0.3) * 1000) / 1000;
  best.push(b);
  return i;
}

interface Pair {
  kind: Kind;
  a: number;
  b: number;
  pa: number;
  pb: number;
  same: boolean;
  /** Both faces found, described and of good quality. */
  ok: boolean;
  /** The first quality issue holding the pair back, or 'no face'. */
  why: string;
  score: number;
  pairing: string;
  asian: boolean;
}
const good = (r: CohortReading | undefined) => !!r && r.faces > 0 && r.embedding.length > 0 && r.quality.length === 0;
const issue = (r: CohortReading | undefined) =>
  !r || r.faces === 0 ? 'no face' : r.embedding.length === 0 ? 'no_descriptor' : (r.quality[0] ?? '');
const pairs: Pair[] = [];
for (let i = 0; i < photos.length; i++)
  for (let j = 0; j < photos.length; j++) {
    if (i === j) continue;
    const [x, y] = [photos[i]!, photos[j]!];
    const [gx, gy] = [groupOf(x.person), groupOf(y.person)].sort();
    const base = {
      pa: personIndex.get(x.person)!,
      pb: personIndex.get(y.person)!,
      same: x.person === y.person,
      pairing: `${gx} x ${gy}`,
      asian: ASIAN(gx!) && ASIAN(gy!),
    };
    const add = (kind: Kind, a: CohortReading | undefined) =>
      pairs.push({
        ...base,
        kind,
        a: a ? idx(a) : -1,
        b: idx(y),
        ok: good(a) && good(y),
        why: issue(a) || issue(y),
        score: a && a.embedding.length && y.embedding.length ? matchScore(a.embedding, y.embedding) : 0,
      });
    if (i < j) add('photo', x);
    add('doc', docOf.get(`${x.set}|${x.file}`));
  }

/** The best score of reading r against the allowed cohort people, less the two people of the pair. */
function cohortOf(r: number, allowed: Uint8Array, pa: number, pb: number): number {
  const b = best[r]!;
  let m = -Infinity;
  for (let p = 0; p < P; p++) if (allowed[p] && p !== pa && p !== pb && b[p]! > m) m = b[p]!;
  return m;
}

/** A pair as a rule sees it. Only pairs that some rule could approve are kept (good faces, score >= FLOOR). */
interface Rec {
  kind: Kind;
  same: boolean;
  score: number;
  margin: number;
  pairing: string;
  asian: boolean;
  pair: Pair;
}
const FLOOR = 0.55;
interface Pool {
  recs: Rec[];
  genuine: Record<Kind, number>;
  asianGenuine: Record<Kind, number>;
  impostor: Record<Kind, number>;
  asianImpostor: Record<Kind, number>;
  pairingImpostor: Record<Kind, Map<string, number>>;
}
const pool = (): Pool => ({
  recs: [],
  genuine: { photo: 0, doc: 0 },
  asianGenuine: { photo: 0, doc: 0 },
  impostor: { photo: 0, doc: 0 },
  asianImpostor: { photo: 0, doc: 0 },
  pairingImpostor: { photo: new Map(), doc: new Map() },
});
function collect(into: Pool, test: Set<number>, cohort: Uint8Array) {
  const allowed = new Uint8Array(P);
  for (let p = 0; p < P; p++) allowed[p] = cohort[p]! & cohortAllowed[p]!;
  for (const p of pairs) {
    if (!test.has(p.pa) || !test.has(p.pb)) continue;
    if (p.same) {
      into.genuine[p.kind]++;
      if (p.asian) into.asianGenuine[p.kind]++;
    } else {
      into.impostor[p.kind]++;
      if (p.asian) into.asianImpostor[p.kind]++;
      const m = into.pairingImpostor[p.kind];
      m.set(p.pairing, (m.get(p.pairing) ?? 0) + 1);
    }
    if (!p.ok || p.score < FLOOR) continue;
    const c = Math.max(cohortOf(p.a, allowed, p.pa, p.pb), cohortOf(p.b, allowed, p.pa, p.pb));
    into.recs.push({
      kind: p.kind,
      same: p.same,
      score: p.score,
      margin: p.score - c,
      pairing: p.pairing,
      asian: p.asian,
      pair: p,
    });
  }
}

type Rule = { family: string; name: string; approve: (score: number, margin: number) => boolean };
const r2 = (x: number) => x.toFixed(3);
function rules(): Rule[] {
  const out: Rule[] = [];
  for (let t = 0.6; t <= 0.951; t += 0.005) {
    const tt = Math.round(t * 1000) / 1000;
    out.push({ family: 'threshold', name: `threshold ${r2(tt)}`, approve: (s) => s >= tt - 1e-9 });
  }
  for (let t = 0.6; t <= 0.801; t += 0.01)
    for (let m = -0.05; m <= 0.101; m += 0.01) {
      const [tt, mm] = [Math.round(t * 100) / 100, Math.round(m * 100) / 100];
      out.push({
        family: 'and',
        name: `score >= ${tt.toFixed(2)} and margin >= ${mm.toFixed(2)}`,
        approve: (s, g) => s >= tt - 1e-9 && g >= mm - 1e-9,
      });
    }
  for (const a of [0.5, 1, 2])
    for (const f of [0.6, 0.65, 0.7])
      for (let t = 0.6; t <= 1.001; t += 0.005) {
        const tt = Math.round(t * 1000) / 1000;
        out.push({
          family: `sum a=${a}`,
          name: `score >= ${f.toFixed(2)} and score + ${a} x margin >= ${r2(tt)}`,
          approve: (s, g) => s >= f - 1e-9 && s + a * g >= tt - 1e-9,
        });
      }
  return out;
}
const RULES = rules();

interface Count {
  genuine: number;
  asianGenuine: number;
  impostor: number;
  asianImpostor: number;
  pairing: Map<string, number>;
}
function count(p: Pool, kind: Kind, rule: Rule): Count {
  const c: Count = { genuine: 0, asianGenuine: 0, impostor: 0, asianImpostor: 0, pairing: new Map() };
  for (const r of p.recs) {
    if (r.kind !== kind || !rule.approve(r.score, r.margin)) continue;
    if (r.same) {
      c.genuine++;
      if (r.asian) c.asianGenuine++;
    } else {
      c.impostor++;
      if (r.asian) c.asianImpostor++;
      c.pairing.set(r.pairing, (c.pairing.get(r.pairing) ?? 0) + 1);
    }
  }
  return c;
}
/**
 * Impostors approved <= 0.1% pooled, among East/Southeast Asian pairs, and in every group pairing of
 * at least `--min-pairing=` impostor pairs (default 1,000: below it 0.1% is not measurable; 0 makes
 * every pairing count, so a pairing under 1,000 pairs may approve none).
 */
/** `--pooled-only`: the pooled constraint alone (to see how far the cohort lets the threshold fall). */
const POOLED_ONLY = args.includes('--pooled-only');
const MIN_PAIRING = Number(listArg('min-pairing')?.[0] ?? 1000);
function admissible(p: Pool, kind: Kind, c: Count): boolean {
  if (c.impostor > 0.001 * p.impostor[kind]) return false;
  if (POOLED_ONLY) return true;
  if (c.asianImpostor > 0.001 * p.asianImpostor[kind]) return false;
  for (const [k, n] of c.pairing) {
    const of = p.pairingImpostor[kind].get(k) ?? 0;
    if (of >= MIN_PAIRING && n > 0.001 * of) return false;
  }
  return true;
}
/** The admissible rule of a family approving most genuine pairs (ties: fewest impostors). */
function bestOf(p: Pool, kind: Kind, family: string): { rule: Rule; c: Count } | null {
  let top: { rule: Rule; c: Count } | null = null;
  for (const rule of RULES) {
    if (rule.family !== family) continue;
    const c = count(p, kind, rule);
    if (!admissible(p, kind, c)) continue;
    if (!top || c.genuine > top.c.genuine || (c.genuine === top.c.genuine && c.impostor < top.c.impostor))
      top = { rule, c };
  }
  return top;
}

const pct = (n: number, d: number) => (d ? `${((100 * n) / d).toFixed(2)}%` : '-');
function row(label: string, p: Pool, kind: Kind, c: Count) {
  const pairings = [...c.pairing.entries()].map(([k, n]) => `${k} ${n}/${p.pairingImpostor[kind].get(k)}`).join('; ');
  return `| ${label} | ${pct(c.genuine, p.genuine[kind])} (${c.genuine}/${p.genuine[kind]}) | ${pct(c.impostor, p.impostor[kind])} (${c.impostor}/${p.impostor[kind]}) | ${c.asianGenuine}/${p.asianGenuine[kind]} | ${c.asianImpostor}/${p.asianImpostor[kind]} | ${pairings || 'none'} |`;
}
const HEADER =
  '| rule | genuine approved | impostor approved | East/SE Asian genuine approved | East/SE Asian impostor approved | impostor approved by group pairing |\n|---|---|---|---|---|---|';
const FAMILIES = ['threshold', 'and', 'sum a=0.5', 'sum a=1', 'sum a=2'];
const TODAY: Record<Kind, Rule> = {
  photo: {
    family: 'today',
    name: 'today: score >= 0.77 and margin >= 0',
    approve: (s, g) => s >= 0.77 - 1e-9 && g >= 0,
  },
  doc: { family: 'today', name: 'today: score >= 0.75 and margin >= 0', approve: (s, g) => s >= 0.75 - 1e-9 && g >= 0 },
};
const NO_COHORT: Record<Kind, Rule> = {
  photo: { family: 'x', name: 'no cohort: score >= 0.77', approve: (s) => s >= 0.77 - 1e-9 },
  doc: { family: 'x', name: 'no cohort: score >= 0.75', approve: (s) => s >= 0.75 - 1e-9 },
};
const NAMED = listArg('rule');

const all5 = people.map((_, i) => i);
const everyone = new Uint8Array(P).fill(1);
const FOLDS = 5;
const REPEATS = 4;
const asMask = (s: Set<number>) => {
  const m = new Uint8Array(P);
  for (const i of s) m[i] = 1;
  return m;
};
const peopleFolds: { test: Set<number>; train: Set<number> }[] = [];
for (let r = 0; r < REPEATS; r++) {
  const order = shuffled(all5, 1000 + r); // the same folds as cohort-study.ts
  for (let f = 0; f < FOLDS; f++) {
    const test = new Set(order.filter((_, i) => i % FOLDS === f));
    peopleFolds.push({ test, train: new Set(all5.filter((i) => !test.has(i))) });
  }
}

console.error(
  `${people.length} people, ${photos.length} photos, ${pairs.length} pairs; cohort people ${cohortAllowed.reduce((a, b) => a + b, 0)}`,
);

const whyArg = listArg('why');
if (whyArg) {
  // Causes of the genuine non-approvals of one rule, leave the pair out.
  const [family, t, x] = whyArg;
  const p = pool();
  collect(p, new Set(all5), everyone);
  for (const kind of ['photo', 'doc'] as Kind[]) {
    const causes = new Map<string, number>();
    const add = (k: string) => causes.set(k, (causes.get(k) ?? 0) + 1);
    const recOf = new Map(p.recs.filter((r) => r.kind === kind).map((r) => [r.pair, r]));
    const list: string[] = [];
    for (const pr of pairs) {
      if (pr.kind !== kind || !pr.same) continue;
      const rec = recOf.get(pr);
      if (!pr.ok) {
        add(`quality: ${pr.why}`);
        continue;
      }
      if (!rec) {
        add(`score < ${FLOOR}`);
        list.push(`${people[pr.pa]} ${pr.score.toFixed(3)} (low)`);
        continue;
      }
      const tt = Number(t);
      const mm = Number(x);
      if (family === 'and') {
        if (rec.score >= tt - 1e-9 && rec.margin >= mm - 1e-9) continue;
        if (rec.score < tt - 1e-9)
          add(rec.margin >= mm - 1e-9 ? 'score below threshold (cohort fine)' : 'score below threshold and cohort');
        else add('cohort margin only');
      }
      list.push(`${people[pr.pa]} ${rec.score.toFixed(3)} margin ${rec.margin.toFixed(3)}`);
    }
    console.log(`\n${kind}: ${[...causes.entries()].map(([k, n]) => `${k} ${n}`).join('; ')}`);
    console.log(list.sort().join('\n'));
  }
} else {
  const schemes: { name: string; folds: { test: Set<number>; cohort: Uint8Array }[] }[] = [
    { name: 'people, 5 folds x 4 splits', folds: peopleFolds.map((f) => ({ test: f.test, cohort: asMask(f.train) })) },
    { name: 'leave the pair out', folds: [{ test: new Set(all5), cohort: everyone }] },
    {
      name: 'leave the pair out, tests people left out of the cohort (the shipped file)',
      folds: [
        {
          test: new Set(all5),
          cohort: asMask(
            new Set(all5.filter((i) => !LEFT_OUT_FOR_TESTS.map((p) => ALIAS[p] ?? p).includes(people[i]!))),
          ),
        },
      ],
    },
    {
      name: 'leave one source out',
      folds: [...new Set(people.map(sourceOf))].map((s) => {
        const test = new Set(all5.filter((i) => sourceOf(people[i]!) === s));
        return { test, cohort: asMask(new Set(all5.filter((i) => !test.has(i)))) };
      }),
    },
  ];
  for (const scheme of schemes) {
    const p = pool();
    for (const f of scheme.folds) collect(p, f.test, f.cohort);
    for (const kind of ['photo', 'doc'] as Kind[]) {
      console.log(
        `\n**${scheme.name}, ${kind === 'photo' ? 'photo vs photo' : 'document vs photo'}** (best admissible point per family)\n`,
      );
      console.log(HEADER);
      console.log(row(NO_COHORT[kind].name, p, kind, count(p, kind, NO_COHORT[kind])));
      console.log(row(TODAY[kind].name, p, kind, count(p, kind, TODAY[kind])));
      for (const family of FAMILIES) {
        const b = bestOf(p, kind, family);
        console.log(b ? row(`${family}: ${b.rule.name}`, p, kind, b.c) : `| ${family}: none admissible | | | | | |`);
      }
      for (const name of NAMED ?? []) {
        const rule = RULES.find((r) => r.name === name);
        if (rule) console.log(row(`(named) ${rule.name}`, p, kind, count(p, kind, rule)));
      }
    }
  }
  // Nested: each family's point chosen on the training people of each people fold, counted on its test fold.
  const folds = peopleFolds.map((f) => {
    const train = pool();
    collect(train, f.train, asMask(f.train));
    const test = pool();
    collect(test, f.test, asMask(f.train));
    return { train, test };
  });
  const total = pool();
  for (const f of peopleFolds) collect(total, f.test, asMask(f.train));
  for (const kind of ['photo', 'doc'] as Kind[]) {
    console.log(
      `\n**nested (point chosen on each fold's training people), ${kind === 'photo' ? 'photo vs photo' : 'document vs photo'}**\n`,
    );
    console.log(HEADER);
    for (const family of FAMILIES) {
      const sum: Count = { genuine: 0, asianGenuine: 0, impostor: 0, asianImpostor: 0, pairing: new Map() };
      const chosen = new Map<string, number>();
      for (const { train, test } of folds) {
        const b = bestOf(train, kind, family);
        if (!b) continue;
        chosen.set(b.rule.name, (chosen.get(b.rule.name) ?? 0) + 1);
        const c = count(test, kind, b.rule);
        sum.genuine += c.genuine;
        sum.asianGenuine += c.asianGenuine;
        sum.impostor += c.impostor;
        sum.asianImpostor += c.asianImpostor;
        for (const [k, n] of c.pairing) sum.pairing.set(k, (sum.pairing.get(k) ?? 0) + n);
      }
      console.log(row(family, total, kind, sum));
      console.log(`  chosen: ${[...chosen.entries()].map(([k, n]) => `${k} (${n})`).join('; ')}`);
    }
  }
}
