import '../../src/warnings.js';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { readFaces } from '../../src/engine/face/analyse.js';
import { loadHuman } from '../../src/engine/face/human.js';
import { photographedDocument, realImages, type RealSet } from './real.js';

/**
 * The engine's own readings of the spent face sets, for the cohort study (cohort-study.ts): per
 * photo and per photographed document, the largest face's descriptor and quality issues, read
 * exactly as face_match reads them (readFaces). Spent sets only: tuning, the first held-out set,
 * held-out-2, held-out-3, held-out-4 and held-out-5 (real-3, real-4 and real-5 materialised first); never a set still
 * to be measured.
 * `node dist-eval/eval/faces/cohort-dump.js --out=readings.json [--sets=tuning,heldOut,heldOut2,heldOut3,heldOut4,heldOut5]`
 */
export interface CohortReading {
  set: RealSet;
  person: string;
  file: string;
  kind: 'photo' | 'doc';
  faces: number;
  quality: string[];
  /** Unit-length descriptor of the largest face; empty when none. */
  embedding: number[];
}

const args = process.argv.slice(2);
const outFile = args.find((a) => a.startsWith('--out='))?.slice(6) ?? 'cohort-readings.json';
const sets = (
  args.find((a) => a.startsWith('--sets='))?.slice(7) ?? 'tuning,heldOut,heldOut2,heldOut3,heldOut4,heldOut5'
).split(',') as RealSet[];
const human = await loadHuman();
const readings: CohortReading[] = [];
const r6 = (v: number[]) => v.map((x) => Math.round(x * 1e6) / 1e6);
for (const set of sets) {
  const images = await realImages(set);
  for (const [k, image] of images.entries()) {
    const bytes = await readFile(path.join(image.dir, image.file));
    const base = { set, person: image.person, file: image.file };
    const photo = await readFaces(bytes, human, 'portrait');
    const face = photo.faces[0];
    readings.push({
      ...base,
      kind: 'photo',
      faces: photo.faces.length,
      quality: face?.quality ?? [],
      embedding: r6(face?.embedding ?? []),
    });
    if (face) {
      const doc = await readFaces(await photographedDocument(bytes, face), human, 'portrait');
      const d = doc.faces[0];
      readings.push({
        ...base,
        kind: 'doc',
        faces: doc.faces.length,
        quality: d?.quality ?? [],
        embedding: r6(d?.embedding ?? []),
      });
    }
    process.stderr.write(`${set} ${k + 1}/${images.length}\r`);
  }
}
await writeFile(outFile, JSON.stringify(readings));
process.stderr.write(`\n${readings.length} readings in ${outFile}\n`);
