import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { COHORT_FILE, type CohortFile } from '../../src/engine/face/cohort.js';
import type { CohortReading } from './cohort-dump.js';
import { LEFT_OUT_FOR_TESTS, SOURCES } from './cohort-people.js';

/**
 * Writes face_match's cohort (data/faces/cohort.json) from cohort-dump.ts's readings of the spent
 * sets: one descriptor per photo (no photo, no image data), the people and sources it came from.
 * The people the test suite verifies or compares are left out (cohort-people.ts).
 * `node dist-eval/eval/faces/cohort-build.js readings.json`
 */
const readings = JSON.parse(await readFile(process.argv[2] ?? 'cohort-readings.json', 'utf8')) as CohortReading[];
const kept = readings.filter(
  (r) => r.kind === 'photo' && r.embedding.length === 128 && !LEFT_OUT_FOR_TESTS.includes(r.person),
);
const people = [...new Set(kept.map((r) => r.person))].sort();
const file: CohortFile = {
  about:
    "face_match's cohort: face-api descriptors (128 float32, little-endian, base64; unit length) of other people's photos. " +
    'A pair is approved only when it scores above what each face scores against every cohort person (docs/checks-face.md, "Cohort rule"). ' +
    'Built by eval/faces/cohort-build.ts from the spent sets (real: tuning and first held-out; real-2: tuning-2 and held-out-2; real-3: held-out-3; real-4: held-out-4; real-5: held-out-5). ' +
    'No photo is stored. A held-out set measured from now on must contain none of these people.',
  descriptor: 'face-api 1.7 face recognition (dlib ResNet port), dlib chip + mirror, engine readFaces',
  sets: [...new Set(kept.map((r) => r.set))],
  leftOutForTests: LEFT_OUT_FOR_TESTS,
  sources: Object.fromEntries([...new Set(people.map((p) => p.split('-')[0]!))].sort().map((s) => [s, SOURCES[s]!])),
  people,
  vectors: kept.map((r) => ({
    person: people.indexOf(r.person),
    d: Buffer.from(new Float32Array(r.embedding).buffer).toString('base64'),
  })),
};
await mkdir(path.dirname(COHORT_FILE), { recursive: true });
await writeFile(COHORT_FILE, `${JSON.stringify(file, null, 1)}\n`);
console.log(`${file.vectors.length} descriptors of ${people.length} people in ${COHORT_FILE}`);
