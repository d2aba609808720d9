import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import type { EnginePool } from '../../src/engine/pool/index.js';
import type { FaceReading } from '../../src/engine/face/analyse.js';
import { documentImage, FACES_DIR } from './corpus.js';
import { DOCUMENT_MATCH_THRESHOLD, faceMatchDecision, FACE_MATCH_THRESHOLD } from '../../src/engine/face/decide.js';
import { cohortBest } from '../../src/engine/face/cohort.js';
import { matchScore } from '../../src/engine/face/descriptor.js';

/**
 * face_match on the real photos of test/engine/faces/real, real-2 and real-3 (sources, licences
 * and the frozen splits in their READMEs): every photo against every other (photo vs photo,
 * decided as two photos), and every photo's face printed on a card and that card photographed
 * (tilted, blurred, JPEG) against every other photo (the document case, decided as face_match
 * decides a document). Thresholds are read off the tuning people; the held-out sets are only measured.
 */
export const REAL_DIR = path.join(FACES_DIR, 'real');
/** The second corpus (new people; its held-out-2 frozen before the round that tuned on its tuning-2 people). */
export const REAL_2_DIR = path.join(FACES_DIR, 'real-2');
/**
 * The third corpus (new people, all held out; frozen before any run). Its photos are not in the
 * repository: its manifest names them, and `eval/faces/materialise.ts` brings them from copies of
 * the source repositories, checked against the frozen checksums (README of real-3).
 */
export const REAL_3_DIR = path.join(FACES_DIR, 'real-3');
/** The fourth corpus (new people, many East Asian, all held out; frozen before any run; brought in as real-3's). */
export const REAL_4_DIR = path.join(FACES_DIR, 'real-4');
/** The fifth corpus (new people, mostly East and Southeast Asian, all held out; frozen before any run; brought in as real-3's). */
export const REAL_5_DIR = path.join(FACES_DIR, 'real-5');
/** The sixth corpus (new people, many East and Southeast Asian, a few from outside LFW, all held out; frozen before any run; brought in as real-3's). */
export const REAL_6_DIR = path.join(FACES_DIR, 'real-6');

/** One set of real photos: which people of which corpus, its report label and its `--sets=` name. */
export interface RealSetSpec {
  /** The name given to `--sets=`. */
  flag: string;
  label: string;
  /** Corpus folders and the keys of their split.json whose people make up the set. */
  parts: { dir: string; split: string[] }[];
  /** Measured only when named in `--sets=` (an untouched set is run once, on purpose). */
  optIn?: boolean;
  /** Every photo is checked against the manifest's sha256 before it is read (photos brought in, not committed). */
  checked?: boolean;
}

/**
 * The face set registry, in report order. heldOut6: real-6 (opt-in; run once, at 16:58 UTC 2026-11-26, by name); heldOut5: real-5 (opt-in; run once, at 15:43 UTC 2026-11-26, by name);
 * heldOut4: real-4 (opt-in; run once, at 15:16 UTC 2026-11-26, by name);
 * heldOut3: real-3 (opt-in; run once, at 13:03 UTC 2026-11-26,
 * by name); heldOut2 and heldOut: earlier held-out sets, measured and now tuning data;
 * tuning: the first corpus's tuning people plus real-2's tuning-2 people.
 */
export const REAL_SETS = {
  heldOut6: {
    flag: 'heldout6',
    label: 'held-out-6 (measured once at 16:58 UTC, 2026-11-26; tuning data since)',
    parts: [{ dir: REAL_6_DIR, split: ['heldOut6'] }],
    optIn: true,
    checked: true,
  },
  heldOut5: {
    flag: 'heldout5',
    label: 'held-out-5 (measured once at 15:43 UTC, 2026-11-26; tuning data since)',
    parts: [{ dir: REAL_5_DIR, split: ['heldOut5'] }],
    optIn: true,
    checked: true,
  },
  heldOut4: {
    flag: 'heldout4',
    label: 'held-out-4 (measured once at 15:16 UTC, 2026-11-26; tuning data and cohort people since)',
    parts: [{ dir: REAL_4_DIR, split: ['heldOut4'] }],
    optIn: true,
    checked: true,
  },
  heldOut3: {
    flag: 'heldout3',
    label: '**held-out-3** (measured once, 2026-11-26; spent)',
    parts: [{ dir: REAL_3_DIR, split: ['heldOut3'] }],
    optIn: true,
    checked: true,
  },
  heldOut2: {
    flag: 'heldout2',
    label: 'held-out-2 (measured once; tuning data since 2026-11-26)',
    parts: [{ dir: REAL_2_DIR, split: ['heldOut2'] }],
  },
  heldOut: {
    flag: 'heldout',
    label: 'held-out (first set; measured twice; tuning data since 2026-11-26)',
    parts: [{ dir: REAL_DIR, split: ['heldOut'] }],
  },
  tuning: {
    flag: 'tuning',
    label: 'tuning (first corpus + tuning-2)',
    parts: [
      { dir: REAL_DIR, split: ['tuning'] },
      { dir: REAL_2_DIR, split: ['tuning2'] },
    ],
  },
} satisfies Record<string, RealSetSpec>;
export type RealSet = keyof typeof REAL_SETS;

/** The sets a `--sets=` list names (every set but the opt-in ones when there is no list), in report order. */
export function realSetsNamed(flags?: string[]): RealSet[] {
  return (Object.entries(REAL_SETS) as [RealSet, RealSetSpec][])
    .filter(([, spec]) => (flags ? flags.includes(spec.flag) : !spec.optIn))
    .map(([set]) => set);
}

export interface RealImage {
  file: string;
  person: string;
  /** The corpus folder the file is in. */
  dir: string;
}

interface ManifestImage {
  file: string;
  person: string;
  sha256: string;
}

async function corpus(dir: string, sets: string[], checked: boolean): Promise<RealImage[]> {
  const manifest = JSON.parse(await readFile(path.join(dir, 'manifest.json'), 'utf8')) as { images: ManifestImage[] };
  const split = JSON.parse(await readFile(path.join(dir, 'split.json'), 'utf8')) as Record<string, string[]>;
  const people = sets.flatMap((s) => split[s] ?? []);
  const images = manifest.images.filter((i) => people.includes(i.person));
  if (checked)
    for (const image of images) {
      const bytes = await readFile(path.join(dir, image.file)).catch(() => null);
      const digest = bytes && createHash('sha256').update(bytes).digest('hex');
      if (digest !== image.sha256)
        throw new Error(
          `${path.join(dir, image.file)} is ${bytes ? 'not the frozen photo (sha256 differs)' : 'missing'}: bring the set in with eval/faces/materialise.ts (README of ${path.basename(dir)})`,
        );
    }
  return images.map((i) => ({ file: i.file, person: i.person, dir }));
}

export async function realImages(set: RealSet): Promise<RealImage[]> {
  const spec: RealSetSpec = REAL_SETS[set];
  const parts = await Promise.all(spec.parts.map((p) => corpus(p.dir, p.split, !!spec.checked)));
  return parts.flat();
}

/** The face of a photo as printed on an ID card, and the card photographed on a desk: tilted and sheared, softened, JPEG. */
export async function photographedDocument(photo: Buffer, face: FaceReading): Promise<Buffer> {
  const meta = await sharp(photo).rotate().metadata();
  const [x, y, w, h] = face.box;
  const side = Math.round(Math.max(w, h) * 1.9);
  const left = Math.max(0, Math.round(x + w / 2 - side / 2));
  const top = Math.max(0, Math.round(y + h / 2 - side / 2.2));
  const portrait = await sharp(photo)
    .rotate()
    .extract({ left, top, width: Math.min(side, meta.width! - left), height: Math.min(side, meta.height! - top) })
    .toBuffer();
  const card = await documentImage(portrait);
  const shot = await sharp(card)
    .affine(
      [
        [1, 0.06],
        [0.03, 0.96],
      ],
      { background: '#6b5f55' },
    )
    .rotate(5, { background: '#6b5f55' })
    .blur(0.9)
    .toBuffer();
  return sharp(shot).resize(900).jpeg({ quality: 55 }).toBuffer();
}

export interface PairCounts {
  approve: number;
  review: number;
  reject: number;
}

export interface RealCaseRow {
  case: 'photo vs photo' | 'document photographed vs photo';
  genuinePairs: number;
  impostorPairs: number;
  auc: number;
  /** True accepts where the threshold lets 1% / 0.1% of this set's impostor pairs through. */
  tarAtFar1: number;
  tarAtFar01: number;
  thresholdAtFar1: number;
  thresholdAtFar01: number;
  /** What the defaults decide (threshold, review band, quality rules). */
  genuine: PairCounts;
  impostor: PairCounts;
  /** The default threshold this case is decided at. */
  defaultThreshold: number;
  /** Genuine pairs kept from approval by a quality rule alone. */
  genuineHeldByQuality: number;
  /** Pairs an approving score would have approved, sent to review by the cohort rule (FACE_NOT_DISTINCTIVE). */
  genuineHeldByCohort: number;
  impostorHeldByCohort: number;
  /** Genuine pairs whose two faces were both found with good quality, and how many of them were approved. */
  genuineGoodQuality: number;
  genuineGoodQualityApproved: number;
}

export interface RealEvalResult {
  set: RealSet;
  people: number;
  photos: number;
  /** Photos whose largest face had no descriptor or a quality issue (largest first). */
  lowQuality: { file: string; issues: string[] }[];
  rows: RealCaseRow[];
  /**
   * Where a set's manifest records each person's population group (real-4 on): per case, the
   * pairs of each group pairing ("east-asian × white", sorted) and how many the defaults approved.
   */
  byGroup: {
    case: RealCaseRow['case'];
    groups: string;
    genuine: number;
    genuineApproved: number;
    impostor: number;
    impostorApproved: number;
  }[];
}

/** Each person's population group, from the manifests of the set's folders that record one. */
async function groupsOf(images: RealImage[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const dir of new Set(images.map((i) => i.dir))) {
    const manifest = JSON.parse(await readFile(path.join(dir, 'manifest.json'), 'utf8')) as {
      people?: Record<string, { group?: string }>;
    };
    for (const [person, p] of Object.entries(manifest.people ?? {})) if (p.group) out.set(person, p.group);
  }
  return out;
}

function byGroup(
  name: RealCaseRow['case'],
  pairs: { same: boolean; decision: string; people: string[] }[],
  groups: Map<string, string>,
): RealEvalResult['byGroup'] {
  const cells = new Map<string, RealEvalResult['byGroup'][number]>();
  for (const p of pairs) {
    const [a, b] = p.people.map((person) => groups.get(person));
    if (!a || !b) continue;
    const key = [a, b].sort().join(' × ');
    const cell = cells.get(key) ?? {
      case: name,
      groups: key,
      genuine: 0,
      genuineApproved: 0,
      impostor: 0,
      impostorApproved: 0,
    };
    if (p.same) {
      cell.genuine += 1;
      if (p.decision === 'approve') cell.genuineApproved += 1;
    } else {
      cell.impostor += 1;
      if (p.decision === 'approve') cell.impostorApproved += 1;
    }
    cells.set(key, cell);
  }
  return [...cells.values()].sort(
    (x, y) => y.impostorApproved - x.impostorApproved || x.groups.localeCompare(y.groups),
  );
}

const threshold = (impostor: number[], far: number) => {
  const sorted = [...impostor].sort((a, b) => b - a);
  return Math.round(((sorted[Math.floor(sorted.length * far)] ?? 0) + 0.0005) * 1000) / 1000;
};

function row(
  name: RealCaseRow['case'],
  defaultThreshold: number,
  pairs: { same: boolean; score: number; decision: string; byQuality: boolean; byCohort: boolean; good: boolean }[],
): RealCaseRow {
  const genuine = pairs.filter((p) => p.same);
  const impostor = pairs.filter((p) => !p.same);
  const imp = impostor.map((p) => p.score);
  let auc = 0;
  for (const g of genuine)
    auc +=
      imp.filter((s) => s < g.score).length / Math.max(1, imp.length) +
      (0.5 * imp.filter((s) => s === g.score).length) / Math.max(1, imp.length);
  const t1 = threshold(imp, 0.01);
  const t01 = threshold(imp, 0.001);
  const count = (ps: typeof pairs): PairCounts => ({
    approve: ps.filter((p) => p.decision === 'approve').length,
    review: ps.filter((p) => p.decision === 'review').length,
    reject: ps.filter((p) => p.decision === 'reject').length,
  });
  return {
    case: name,
    genuinePairs: genuine.length,
    impostorPairs: impostor.length,
    auc: Math.round((1000 * auc) / Math.max(1, genuine.length)) / 1000,
    tarAtFar1: genuine.filter((p) => p.score >= t1).length / Math.max(1, genuine.length),
    tarAtFar01: genuine.filter((p) => p.score >= t01).length / Math.max(1, genuine.length),
    thresholdAtFar1: t1,
    thresholdAtFar01: t01,
    genuine: count(genuine),
    impostor: count(impostor),
    defaultThreshold,
    genuineHeldByQuality: genuine.filter((p) => p.byQuality).length,
    genuineHeldByCohort: genuine.filter((p) => p.byCohort).length,
    impostorHeldByCohort: impostor.filter((p) => p.byCohort).length,
    genuineGoodQuality: genuine.filter((p) => p.good).length,
    genuineGoodQualityApproved: genuine.filter((p) => p.good && p.decision === 'approve').length,
  };
}

/** Reads every photo of a set (and its photographed document) through the pool and scores every pair at the defaults. */
export async function evaluateRealFaces(pool: EnginePool, set: RealSet): Promise<RealEvalResult> {
  const images = await realImages(set);
  const groups = await groupsOf(images);
  const reads: {
    image: RealImage;
    photo: FaceReading | null;
    document: FaceReading | null;
    faces: number;
    documentFaces: number;
  }[] = [];
  for (const image of images) {
    const bytes = await readFile(path.join(image.dir, image.file));
    const read = await pool.run('face.read', { image: bytes });
    const face = read.faces[0] ?? null;
    const doc = face ? await pool.run('face.read', { image: await photographedDocument(bytes, face) }) : null;
    reads.push({
      image,
      photo: face,
      document: doc?.faces[0] ?? null,
      faces: read.faces.length,
      documentFaces: doc?.faces.length ?? 0,
    });
  }
  const summary = (face: FaceReading | null, faces: number) => ({
    readable: true,
    faces,
    quality: face?.quality ?? [],
  });
  const pair = (
    kind: 'photos' | 'document_selfie',
    a: FaceReading | null,
    aFaces: number,
    b: FaceReading | null,
    bFaces: number,
    people: string[],
  ) => {
    const score = a && b ? matchScore(a.embedding, b.embedding) : 0;
    const analysis = {
      pair: kind,
      document: summary(a, aFaces),
      selfie: summary(b, bFaces),
      similarity: a && b ? score : null,
      ageEstimate: null,
      selfieEmbedding: null,
      // the spent sets' people are in the cohort: a pair is compared with everyone but its own two
      cohort: {
        document: a ? cohortBest(a.embedding, people) : null,
        selfie: b ? cohortBest(b.embedding, people) : null,
      },
    };
    const decided = faceMatchDecision(analysis, {});
    const threshold = kind === 'photos' ? FACE_MATCH_THRESHOLD : DOCUMENT_MATCH_THRESHOLD;
    return {
      score,
      decision: decided.verdict!,
      byQuality:
        decided.verdict === 'review' && score >= threshold && !decided.reasonCodes.includes('FACE_NOT_DISTINCTIVE'),
      byCohort: decided.reasonCodes.includes('FACE_NOT_DISTINCTIVE'),
      good: !!a && !!b && a.embedding.length > 0 && b.embedding.length > 0 && !a.quality.length && !b.quality.length,
    };
  };
  const photoPairs = [];
  const documentPairs = [];
  for (let i = 0; i < reads.length; i++) {
    for (let j = 0; j < reads.length; j++) {
      if (i === j) continue;
      const [a, b] = [reads[i]!, reads[j]!];
      const same = a.image.person === b.image.person;
      const people = [a.image.person, b.image.person];
      if (i < j) photoPairs.push({ same, people, ...pair('photos', a.photo, a.faces, b.photo, b.faces, people) });
      documentPairs.push({
        same,
        people,
        ...pair('document_selfie', a.document, a.documentFaces, b.photo, b.faces, people),
      });
    }
  }
  return {
    set,
    people: new Set(images.map((i) => i.person)).size,
    photos: images.length,
    lowQuality: reads.flatMap((r) => [
      ...(!r.photo || r.photo.quality.length ? [{ file: r.image.file, issues: r.photo?.quality ?? ['no_face'] }] : []),
      ...(r.photo && (!r.document || r.document.quality.length)
        ? [{ file: `${r.image.file} (document)`, issues: r.document?.quality ?? ['no_face'] }]
        : []),
    ]),
    rows: [
      row('photo vs photo', FACE_MATCH_THRESHOLD, photoPairs),
      row('document photographed vs photo', DOCUMENT_MATCH_THRESHOLD, documentPairs),
    ],
    byGroup: [
      ...byGroup('photo vs photo', photoPairs, groups),
      ...byGroup('document photographed vs photo', documentPairs, groups),
    ],
  };
}
