import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * face_match's cohort: descriptors of other people's photos (data/faces/cohort.json, built by
 * eval/faces/cohort-build.ts from the spent face sets). Where the descriptor model is dense (it
 * scores strangers of some populations as high as the same person), a pair's score alone is no
 * evidence of identity; how each face scores against the cohort's strangers says when that is so.
 */
export interface CohortFile {
  about: string;
  descriptor: string;
  sets: string[];
  leftOutForTests: string[];
  sources: Record<string, { corpus: string; from: string; licence: string }>;
  people: string[];
  /** One descriptor per photo: its person (index into `people`) and 128 float32 values, base64. */
  vectors: { person: number; d: string }[];
}

/** data/faces/cohort.json in the nearest folder above this module that has it (src/ and dist/ sit at different depths). */
export const COHORT_FILE = cohortFile();

function cohortFile(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  for (let dir = here; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'data', 'faces');
    if (fs.existsSync(candidate) || fs.existsSync(path.join(dir, 'package.json')))
      return path.join(candidate, 'cohort.json');
    if (path.dirname(dir) === dir) return path.resolve(here, '../../../data/faces/cohort.json');
  }
}

let loaded: { person: string; d: Float32Array }[] | null = null;

/** The cohort's descriptors and whose they are, read once. */
export function cohortVectors(): { person: string; d: Float32Array }[] {
  if (!loaded) {
    const file = JSON.parse(fs.readFileSync(COHORT_FILE, 'utf8')) as CohortFile;
    loaded = file.vectors.map((v) => {
      const bytes = Buffer.from(v.d, 'base64');
      const d = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
      return { person: file.people[v.person]!, d };
    });
  }
  return loaded;
}

/**
 * The highest score (face_match's scale, not clamped: cosine 0.70 → 0, 1.00 → 1) a descriptor
 * gets against any cohort person; null for an empty descriptor. A few hundred dot products.
 * `leaveOut`: people not to compare with (the evaluation of the spent sets leaves out the pair's
 * own people, who are in the cohort).
 */
export function cohortBest(descriptor: number[], leaveOut: readonly string[] = []): number | null {
  if (descriptor.length === 0) return null;
  let best = -Infinity;
  for (const { person, d: v } of cohortVectors()) {
    if (v.length !== descriptor.length || leaveOut.includes(person)) continue;
    let dot = 0;
    for (let i = 0; i < v.length; i++) dot += v[i]! * descriptor[i]!;
    if (dot > best) best = dot;
  }
  return best === -Infinity ? null : Math.round(((best - 0.7) / 0.3) * 1000) / 1000;
}
