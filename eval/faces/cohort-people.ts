import { readFile } from 'node:fs/promises';
import type { CohortReading } from './cohort-dump.js';
import { REAL_4_DIR, REAL_5_DIR } from './real.js';

/** The people of the spent face sets the test suite verifies or compares: left out of the cohort, so the tests see the rule on people it has not met, as an applicant is. */
export const LEFT_OUT_FOR_TESTS = [
  'fr-obama',
  'fr-biden',
  'df-person06',
  'fp-angelina-jolie',
  'df-person11',
  'df-person12',
  'cf-personj',
  'lfw-sachiko-yamada',
  'lfw-candie-kung',
];

/** Where each source prefix comes from and its terms (the corpora's READMEs). */
export const SOURCES: Record<string, { corpus: string; from: string; licence: string }> = {
  bbt: {
    corpus: 'real',
    from: 'justadudewhohacks/face-api.js examples/images',
    licence: 'repository MIT; TV stills, no licence stated for the images',
  },
  fr: {
    corpus: 'real',
    from: 'ageitgey/face_recognition examples, tests/test_images',
    licence: 'repository MIT; press photos, no licence stated for the images',
  },
  df: {
    corpus: 'real',
    from: 'serengil/deepface tests/unit/dataset',
    licence: 'repository MIT; photos of public figures, no licence stated for the images',
  },
  fp: {
    corpus: 'real',
    from: 'timesler/facenet-pytorch data/test_images',
    licence: 'repository MIT; photos of public figures, no licence stated for the images',
  },
  of: {
    corpus: 'real-2',
    from: 'cmusatyalab/openface images/examples',
    licence: 'repository Apache-2.0; photos of public figures, no licence stated for the images',
  },
  cv: {
    corpus: 'real-2',
    from: 'justadudewhohacks/opencv4nodejs data/face-recognition/imgs',
    licence: 'repository MIT; TV stills, no licence stated for the images',
  },
  cf: {
    corpus: 'real-2',
    from: 'exadel-inc/CompreFace test/e2e/_files',
    licence: 'repository Apache-2.0; stock-style photos, no licence stated for the images',
  },
  fn: {
    corpus: 'real-2',
    from: 'davidsandberg/facenet data/images',
    licence: 'repository MIT; LFW photos, no licence stated for the images',
  },
  lfw: {
    corpus: 'real-2, real-3, real-4, real-5',
    from: 'exadel-inc/CompreFace test_comp_models/lfw (a copy of Labeled Faces in the Wild)',
    licence: 'repository Apache-2.0; LFW press photos collected for research, no licence stated for the images',
  },
  az: {
    corpus: 'real-3',
    from: 'Azure-Samples/cognitive-services-sample-data-files Face/images',
    licence: 'repository MIT; stock photos of models (also shipped elsewhere under a Microsoft sample-image licence)',
  },
  gf: {
    corpus: 'real-3, real-4',
    from: 'Kagami/go-face-testdata images',
    licence: 'no licence file; photos of K-pop singers, no licence stated for the images',
  },
  if: {
    corpus: 'real-4',
    from: 'deepinsight/insightface cpp-package/inspireface/test_res/data',
    licence: 'repository MIT (code); photos of public figures and one unnamed woman, no licence stated for the images',
  },
  br: {
    corpus: 'real-3',
    from: 'Broather/retina-face-bakalaurs images',
    licence: 'no licence file; Wikimedia Commons and LFW photos, per-file terms not recorded',
  },
};

/** East Asian people of the spent sets, by name and source (go-face's K-pop singers, four LFW/Commons people). */
export const EAST_ASIAN = (p: string) =>
  p.startsWith('gf-') || ['lfw-candie-kung', 'lfw-sachiko-yamada', 'br-jackie-chan', 'lfw-naoto-kan'].includes(p);

/** Deterministic shuffle (mulberry32), so the folds are the same on every run. */
export function shuffled<T>(items: T[], seed: number): T[] {
  let s = seed >>> 0;
  const rand = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** One person under two labels in the first corpus (deepface's img1... is Angelina Jolie). */
export const ALIAS: Record<string, string> = { 'fp-angelina-jolie': 'df-person06' };

/** The readings cohort-dump.ts wrote, each person under one label. */
export async function loadReadings(file: string): Promise<CohortReading[]> {
  const readings = JSON.parse(await readFile(file, 'utf8')) as CohortReading[];
  for (const r of readings) r.person = ALIAS[r.person] ?? r.person;
  return readings;
}

/** Population groups where a set's manifest records them (real-4, real-5); undefined where it names none. */
export async function recordedGroups(): Promise<Map<string, string | undefined>> {
  const groups = new Map<string, string | undefined>();
  for (const dir of [REAL_4_DIR, REAL_5_DIR]) {
    const m = JSON.parse(await readFile(`${dir}/manifest.json`, 'utf8')) as {
      people?: Record<string, { group?: string }>;
    };
    for (const [person, v] of Object.entries(m.people ?? {})) groups.set(person, v.group);
  }
  return groups;
}

/** `--name=a,b` among the arguments, as a list (undefined when absent). */
export const listOption = (args: string[], name: string): string[] | undefined =>
  args
    .find((a) => a.startsWith(`--${name}=`))
    ?.slice(name.length + 3)
    .split(',');
