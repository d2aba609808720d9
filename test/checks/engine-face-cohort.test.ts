// face_match's cohort rule (docs/checks-face.md, "Cohort rule"): a pair is approved only when it
// scores above what each face scores against the cohort's other people; otherwise the model cannot
// tell these faces from strangers and the match goes to review (FACE_UNCERTAIN,
// FACE_NOT_DISTINCTIVE), never to a rejection. The cohort is descriptors only, of the spent sets'
// people, and no face set measured after it may contain any of them.
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { jest } from '@jest/globals';
import { FACES_DIR } from '../../eval/faces/corpus.js';
import { REAL_2_DIR } from '../../eval/faces/real.js';
import type { FaceMatchAnalysis } from '../../src/engine/face/analyse.js';
import { COHORT_FILE, type CohortFile } from '../../src/engine/face/cohort.js';
import { faceMatchDecision, FACE_MATCH_THRESHOLD } from '../../src/engine/face/decide.js';
import { EnginePool } from '../../src/engine/pool/index.js';

jest.setTimeout(180_000);

const cohort = async () => JSON.parse(await readFile(COHORT_FILE, 'utf8')) as CohortFile;
const splitPeople = async (dir: string) =>
  Object.values(JSON.parse(await readFile(path.join(dir, 'split.json'), 'utf8')) as Record<string, unknown>)
    .filter((v): v is string[] => Array.isArray(v))
    .flat();
/** A person's name without the source prefix (`lfw-bob-dole` → `bob-dole`), as the corpus test compares people. */
const bare = (person: string) => person.replace(/^[a-z]+-/, '');
/** The corpora the cohort was built from; every other real-* folder is a set measured after it. */
const COHORT_CORPORA = ['real', 'real-2', 'real-3', 'real-4', 'real-5'];

describe('the cohort file', () => {
  it('holds only unit-length 128-value descriptors of the spent sets’ people, the tests’ people left out, with each source’s licence', async () => {
    const file = await cohort();
    expect(file.vectors.length).toBeGreaterThanOrEqual(200);
    for (const v of file.vectors) {
      const bytes = Buffer.from(v.d, 'base64');
      expect(bytes.length).toBe(128 * 4);
      const d = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
      expect(Math.hypot(...d)).toBeCloseTo(1, 3);
      expect(file.people[v.person]).toBeDefined();
    }
    const spent = (await Promise.all(COHORT_CORPORA.map((c) => splitPeople(path.join(FACES_DIR, c))))).flat();
    expect(file.people.filter((p) => !spent.includes(p))).toEqual([]);
    expect(file.people.filter((p) => file.leftOutForTests.includes(p))).toEqual([]);
    expect(spent.filter((p) => !file.people.includes(p) && !file.leftOutForTests.includes(p))).toEqual([]);
    for (const source of new Set(file.people.map((p) => p.split('-')[0]!)))
      expect(file.sources[source]?.licence).toEqual(expect.any(String));
  });

  it('no person of a face set made after the cohort is in it (a held-out set must be new people to the cohort too)', async () => {
    const file = await cohort();
    const inCohort = new Set(file.people.map(bare));
    const later = (await readdir(FACES_DIR)).filter(
      (d) => /^real-\d+$/.test(d) && !COHORT_CORPORA.includes(d) && existsSync(path.join(FACES_DIR, d, 'split.json')),
    );
    for (const dir of later) {
      const shared = (await splitPeople(path.join(FACES_DIR, dir))).filter((p) => inCohort.has(bare(p)));
      expect([dir, shared]).toEqual([dir, []]);
    }
  });
});

/** A pair both of whose faces are found with good quality, scored `similarity`, with the faces' best cohort scores. */
const analysis = (similarity: number, cohortScores?: FaceMatchAnalysis['cohort']): FaceMatchAnalysis => ({
  pair: 'photos',
  document: { readable: true, faces: 1, quality: [] },
  selfie: { readable: true, faces: 1, quality: [] },
  similarity,
  ageEstimate: null,
  selfieEmbedding: null,
  ...(cohortScores ? { cohort: cohortScores } : {}),
});

describe('the cohort rule', () => {
  it('a pair above the threshold that outscores both faces’ best strangers is approved', () => {
    expect(faceMatchDecision(analysis(0.9, { document: 0.6, selfie: 0.7 }), {})).toMatchObject({
      verdict: 'approve',
      reasonCodes: [],
    });
  });

  it('a pair above the threshold is not approved when either face scores higher against a stranger of the cohort: review, not reject', () => {
    for (const scores of [
      { document: 0.91, selfie: 0.5 },
      { document: 0.5, selfie: 0.93 },
    ])
      expect(faceMatchDecision(analysis(0.9, scores), {})).toMatchObject({
        verdict: 'review',
        score: 0.9,
        reasonCodes: ['FACE_UNCERTAIN', 'FACE_NOT_DISTINCTIVE'],
      });
  });

  it('it only ever holds back an approval: a score in the review band or below is decided as before, and quality codes come first', () => {
    const high = { document: 0.95, selfie: 0.95 };
    expect(faceMatchDecision(analysis(0.65, high), {})).toMatchObject({
      verdict: 'review',
      reasonCodes: ['SELFIE_MISMATCH'],
    });
    expect(faceMatchDecision(analysis(0.3, high), {})).toMatchObject({
      verdict: 'reject',
      reasonCodes: ['SELFIE_MISMATCH'],
    });
    const poor = { ...analysis(0.9, high), selfie: { readable: true, faces: 1, quality: ['small' as const] } };
    expect(faceMatchDecision(poor, {})).toMatchObject({
      verdict: 'review',
      reasonCodes: ['SELFIE_FACE_LOW_QUALITY', 'FACE_TOO_SMALL'],
    });
    // An analysis stored before the cohort existed is decided on its score alone.
    expect(faceMatchDecision(analysis(0.9), {})).toMatchObject({ verdict: 'approve' });
  });
});

describe('the cohort rule on real photos', () => {
  let pool: EnginePool;
  beforeAll(() => {
    pool = new EnginePool({ concurrency: 1, timeoutMs: 120_000 });
  });
  afterAll(async () => {
    await pool.close();
  });

  it('two different people who both score high against the cohort are not approved (held-out-2’s look-alike pair, left out of the cohort)', async () => {
    const photo = (file: string) => readFile(path.join(REAL_2_DIR, file));
    const read = await pool.run('face.match', {
      document: await photo('lfw-sachiko-yamada/2.jpg'),
      selfie: await photo('lfw-candie-kung/2.jpg'),
    });
    const pair = { ...read, pair: 'photos' as const };
    // On its score alone the pair would be approved: two different women, above the photo threshold.
    expect(pair.similarity!).toBeGreaterThanOrEqual(FACE_MATCH_THRESHOLD);
    expect(faceMatchDecision({ ...pair, cohort: undefined }, {})).toMatchObject({ verdict: 'approve' });
    // One of them scores higher against some stranger of the cohort than against the other.
    expect(Math.max(pair.cohort!.document!, pair.cohort!.selfie!)).toBeGreaterThan(pair.similarity!);
    expect(faceMatchDecision(pair, {})).toMatchObject({
      verdict: 'review',
      reasonCodes: ['FACE_UNCERTAIN', 'FACE_NOT_DISTINCTIVE'],
    });
  });
});
