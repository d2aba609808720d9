// The face engine on real photos (test/engine/faces, sources in its README), through the
// worker pool the service uses: face match, passive liveness, the age estimate, and how the
// pool fails (timeout, a crashed thread) without taking the caller down.
import sharp from 'sharp';
import { faceMatchDecision, livenessDecision, ageEstimateDecision } from '../../src/engine/face/index.js';
import { documentImage, loadIdentities, variant, type FaceIdentity } from '../../eval/faces/corpus.js';
import { EnginePool, EngineTaskError } from '../../src/engine/pool/index.js';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { FACES_DIR } from '../../eval/faces/corpus.js';
import { REAL_2_DIR, REAL_DIR } from '../../eval/faces/real.js';
import { decode, faceMatchOf, pixelTensor } from '../../src/engine/face/analyse.js';
import { loadHuman } from '../../src/engine/face/human.js';
import { narrowConcat } from '../../src/engine/face/wasm-concat.js';
import { FACE_QUALITY } from '../../src/engine/face/quality.js';
import { describeFace, fitSimilarity } from '../../src/engine/face/descriptor.js';
import { DOCUMENT_MATCH_THRESHOLD, FACE_MATCH_THRESHOLD } from '../../src/engine/face/decide.js';

import { jest } from '@jest/globals';

jest.setTimeout(180_000);

let pool: EnginePool;
let people: FaceIdentity[];
let doc: Buffer[];

beforeAll(async () => {
  pool = new EnginePool({ concurrency: 1, timeoutMs: 120_000 });
  people = await loadIdentities({
    files: ['sample1.jpg', 'sample2.jpg'],
    read: (image) => pool.run('face.read', { image }),
  });
  doc = await Promise.all(people.map((p) => documentImage(p.portrait)));
});

afterAll(async () => {
  await pool.close();
});

const match = (document: Buffer, selfie: Buffer) => pool.run('face.match', { document, selfie });

describe('face_match on real faces', () => {
  it('the corpus has several distinct people with a detectable face on the document rendering', async () => {
    expect(people.length).toBeGreaterThanOrEqual(4);
    const found = await Promise.all(doc.map((d) => pool.run('face.read', { image: d })));
    expect(found.every((r) => r.readable && r.faces.length === 1)).toBe(true);
    expect(found[0].faces[0].embedding.length).toBeGreaterThan(100);
  });

  it('the same person scores higher than every other person, under crop, rotation and brightness changes', async () => {
    const embeddingOf = async (image: Buffer) => (await pool.run('face.read', { image })).faces[0].embedding;
    const documents = await Promise.all(doc.map(embeddingOf));
    for (const condition of ['tight_crop', 'rotate_12', 'dark', 'bright'] as const) {
      const selfie = await embeddingOf(await variant(people[0].portrait, condition));
      const same = await pool.run('face.similarity', { a: documents[0], b: selfie });
      for (let other = 1; other < people.length; other++) {
        expect(same).toBeGreaterThan(await pool.run('face.similarity', { a: documents[other], b: selfie }));
      }
    }
  });

  it('a matching selfie is approved at the default threshold; another person is SELFIE_MISMATCH', async () => {
    const same = await match(doc[1], await variant(people[1].portrait, 'tight_crop'));
    expect(faceMatchDecision(same, {})).toMatchObject({ verdict: 'approve', reasonCodes: [] });
    const other = await match(doc[1], await variant(people[3].portrait, 'tight_crop'));
    expect(other.similarity!).toBeLessThan(same.similarity!);
    const decided = faceMatchDecision(other, { threshold: same.similarity!, sensitivity: 0 });
    expect(decided).toMatchObject({ verdict: 'reject', reasonCodes: ['SELFIE_MISMATCH'] });
  });

  it("the step's threshold and sensitivity decide: approve at or above, review in the band, reject below", () => {
    const analysis = (similarity: number) => ({
      document: { readable: true, faces: 1 },
      selfie: { readable: true, faces: 1 },
      similarity,
      ageEstimate: 30,
      selfieEmbedding: null,
    });
    expect(faceMatchDecision(analysis(0.8), { threshold: 0.8 }).verdict).toBe('approve');
    expect(faceMatchDecision(analysis(0.7), { threshold: 0.8, sensitivity: 0.5 })).toMatchObject({
      verdict: 'review',
      reasonCodes: ['SELFIE_MISMATCH'],
    });
    expect(faceMatchDecision(analysis(0.7), { threshold: 0.8, sensitivity: 0 })).toMatchObject({
      verdict: 'reject',
      reasonCodes: ['SELFIE_MISMATCH'],
    });
    expect(faceMatchDecision(analysis(0.5), { threshold: 0.8, sensitivity: 0.5 }).verdict).toBe('reject');
    expect(faceMatchDecision(analysis(0.5), { threshold: 0.8, sensitivity: 1 }).verdict).toBe('review');
  });

  it('a printed portrait against a selfie is judged at its own calibrated default, two photos at theirs; a step threshold overrides both', () => {
    expect(DOCUMENT_MATCH_THRESHOLD).toBeLessThan(FACE_MATCH_THRESHOLD);
    const between = (DOCUMENT_MATCH_THRESHOLD + FACE_MATCH_THRESHOLD) / 2;
    const analysis = (pair?: 'photos' | 'document_selfie') => ({
      document: { readable: true, faces: 1, quality: [] },
      selfie: { readable: true, faces: 1, quality: [] },
      similarity: between,
      ageEstimate: 30,
      selfieEmbedding: null,
      ...(pair ? { pair } : {}),
    });
    // face_match's own case (a document front against a selfie) is the default.
    expect(faceMatchDecision(analysis(), {})).toMatchObject({ verdict: 'approve', reasonCodes: [] });
    expect(faceMatchDecision(analysis('document_selfie'), {}).verdict).toBe('approve');
    expect(faceMatchDecision(analysis('photos'), {})).toMatchObject({
      verdict: 'review',
      reasonCodes: ['SELFIE_MISMATCH'],
    });
    expect(faceMatchDecision(analysis(), { threshold: FACE_MATCH_THRESHOLD }).verdict).toBe('review');
    expect(faceMatchDecision(analysis('photos'), { threshold: DOCUMENT_MATCH_THRESHOLD }).verdict).toBe('approve');
  });

  it('a pair is approved only when both faces were found with good quality; the reason codes say which image and what is wrong', () => {
    const analysis = (document: string[], selfie: string[], similarity = 0.95) => ({
      document: { readable: true, faces: 1, quality: document as never },
      selfie: { readable: true, faces: 1, quality: selfie as never },
      similarity,
      ageEstimate: 30,
      selfieEmbedding: null,
    });
    expect(faceMatchDecision(analysis([], []), {})).toMatchObject({ verdict: 'approve', reasonCodes: [] });
    expect(faceMatchDecision(analysis(['small'], []), {})).toMatchObject({
      verdict: 'review',
      reasonCodes: ['DOCUMENT_FACE_LOW_QUALITY', 'FACE_TOO_SMALL'],
    });
    expect(faceMatchDecision(analysis([], ['turned', 'uncertain']), {})).toMatchObject({
      verdict: 'review',
      reasonCodes: ['SELFIE_FACE_LOW_QUALITY', 'FACE_TURNED', 'FACE_UNCERTAIN'],
    });
    expect(faceMatchDecision(analysis([], ['no_descriptor'], 0), {})).toMatchObject({
      verdict: 'review',
      reasonCodes: ['SELFIE_FACE_LOW_QUALITY', 'FACE_NOT_COMPARABLE'],
    });
    expect(faceMatchDecision(analysis(['small'], [], 0.1), {})).toMatchObject({
      verdict: 'reject',
      reasonCodes: ['SELFIE_MISMATCH', 'DOCUMENT_FACE_LOW_QUALITY', 'FACE_TOO_SMALL'],
    });
  });

  it('two real photos of one person are approved; two look-alike actors score below them (tuning-set people)', async () => {
    const photo = (file: string) => readFile(path.join(REAL_DIR, file));
    const same = await match(await photo('df-person06/1.jpg'), await photo('df-person06/2.jpg'));
    expect(faceMatchDecision(same, {})).toMatchObject({ verdict: 'approve', reasonCodes: [] });
    const lookalikes = await match(await photo('df-person11/2.jpg'), await photo('df-person12/3.jpg'));
    expect(lookalikes.similarity!).toBeLessThan(same.similarity!);
  });

  it('a face whose landmarks disagree with its detected box is never approved on: FACE_UNCERTAIN names it (a hand over the forehead)', async () => {
    const read = async (file: string) => pool.run('face.read', { image: await readFile(path.join(REAL_2_DIR, file)) });
    const [clear, occluded] = [await read('cf-personj/2.jpg'), await read('cf-personj/4.jpg')];
    const side = (f: { box: number[] }) => Math.min(f.box[2]!, f.box[3]!);
    // The clear face: the landmarks' eyes sit about a quarter of the box apart, no issue.
    expect(clear.faces[0]!.interEye!).toBeGreaterThanOrEqual(0.2 * side(clear.faces[0]!));
    expect(clear.faces[0]!.quality).toEqual([]);
    // The half-hidden face: found confidently, but the landmark model put a much smaller face inside the box.
    const face = occluded.faces[0]!;
    expect(face.score).toBeGreaterThanOrEqual(FACE_QUALITY.minScore);
    expect(face.interEye!).toBeLessThan(FACE_QUALITY.minEyesToBox * side(face));
    expect(face.quality).toEqual(['uncertain']);
    const decided = faceMatchDecision({ ...faceMatchOf(clear, occluded), pair: 'photos' }, { threshold: 0 });
    expect(decided.verdict).toBe('review');
    expect(decided.reasonCodes).toEqual(['SELFIE_FACE_LOW_QUALITY', 'FACE_UNCERTAIN']);
  });

  it("the face is aligned onto dlib's chip by a similarity fit: a known turn, scale and shift is recovered exactly", () => {
    const chip: [number, number][] = [
      [40, 50],
      [110, 52],
      [75, 95],
      [60, 120],
      [92, 118],
    ];
    const [a, b, tx, ty] = [2 * Math.cos(0.3), 2 * Math.sin(0.3), 310, -42];
    const image = chip.map(([x, y]) => [a * x - b * y + tx, b * x + a * y + ty] as const);
    const fit = fitSimilarity(chip, image);
    for (const [k, v] of Object.entries({ a, b, tx, ty })) expect(fit[k as 'a']).toBeCloseTo(v, 6);
  });

  it('the same photo turned 15 degrees, or shrunk to a third, still scores as the same face (the alignment undoes it)', async () => {
    const original = await readFile(path.join(REAL_DIR, 'fr-obama/1.jpg'));
    const turned = await sharp(original).rotate(15, { background: '#808080' }).jpeg().toBuffer();
    const meta = await sharp(original).metadata();
    const small = await sharp(original)
      .resize(Math.round(meta.width! / 3))
      .jpeg()
      .toBuffer();
    for (const copy of [turned, small]) {
      const pair = await match(original, copy);
      expect(pair.similarity!).toBeGreaterThanOrEqual(0.9);
      expect(faceMatchDecision(pair, {})).toMatchObject({ verdict: 'approve' });
    }
  });

  it("a face's region is copied from the image's bytes, and describes the face exactly as the tensor cut out of the image does", async () => {
    const human = await loadHuman();
    const pixels = (await decode(doc[0]!))!;
    const remembered = pixelTensor(human, pixels);
    // The same image as a tensor the descriptor knows no bytes of: its regions are sliced out of the tensor.
    const plain = human.tf.tensor3d(new Int32Array(pixels.data), [pixels.height, pixels.width, 3], 'int32');
    try {
      const box = (await pool.run('face.read', { image: doc[0]! })).faces[0]!.box;
      const bordered: [number, number, number, number] = [
        box[0] + pixels.border,
        box[1] + pixels.border,
        box[2],
        box[3],
      ];
      const fromBytes = await describeFace(human, remembered as never, bordered);
      expect(fromBytes?.descriptor?.length).toBe(128);
      expect(await describeFace(human, plain as never, bordered)).toEqual(fromBytes);
    } finally {
      human.tf.dispose([remembered, plain] as never);
    }
  });

  it('no face on the selfie or an undecodable image is a retryable IMAGE_UNREADABLE, never a pass', async () => {
    const blank = await sharp({ create: { width: 400, height: 400, channels: 3, background: '#c8c8c8' } })
      .jpeg()
      .toBuffer();
    const noFace = await match(doc[0], blank);
    expect(noFace.selfie).toEqual({ readable: true, faces: 0 });
    expect(faceMatchDecision(noFace, {})).toMatchObject({
      verdict: 'reject',
      reasonCodes: ['IMAGE_UNREADABLE', 'SELFIE_FACE_NOT_FOUND'],
    });
    const garbage = await match(doc[0], Buffer.from('not an image at all'));
    expect(garbage.selfie.readable).toBe(false);
    expect(faceMatchDecision(garbage, {})).toMatchObject({ verdict: 'reject', reasonCodes: ['IMAGE_UNREADABLE'] });
  });
});

describe('liveness and the age estimate', () => {
  it('one face: antispoof and liveness confidences in 0..1 and a decision against the step', async () => {
    const analysis = await pool.run('face.liveness', { frames: [people[0].portrait] });
    expect(analysis).toMatchObject({ readable: true, frames: 1, faces: 1 });
    for (const value of [analysis.real, analysis.live]) {
      expect(value).toBeGreaterThanOrEqual(0);
      expect(value).toBeLessThanOrEqual(1);
    }
    const decided = livenessDecision(analysis, {});
    expect(decided.score).toBe(Math.min(analysis.real!, analysis.live!));
    expect(livenessDecision(analysis, { threshold: 0 }).verdict).toBe('approve');
    expect(livenessDecision(analysis, { threshold: 1, sensitivity: 0 })).toMatchObject({
      verdict: 'reject',
      reasonCodes: ['LIVENESS_FAILED'],
    });
  });

  it('more than one face fails liveness (one face only)', async () => {
    const group = await readFile(path.join(FACES_DIR, 'sample1.jpg'));
    const analysis = await pool.run('face.liveness', { frames: [group] });
    expect(analysis.faces).toBeGreaterThan(1);
    expect(livenessDecision(analysis, {})).toMatchObject({
      verdict: 'reject',
      reasonCodes: ['LIVENESS_FAILED', 'MULTIPLE_FACES'],
    });
  });

  it('the age estimate is a plausible adult age and only ever sends the age check to review', async () => {
    const read = await pool.run('face.read', { image: people[0].portrait });
    const age = read.faces[0].age!;
    expect(age).toBeGreaterThan(12);
    expect(age).toBeLessThan(70);
    const rules = {
      ageRules: [
        { fromAge: 0, toAge: 17, action: 'reject' },
        { fromAge: 18, toAge: 99, action: 'pass' },
      ],
    };
    expect(ageEstimateDecision(age, rules)).toMatchObject({
      verdict: 'review',
      reasonCodes: ['DATE_OF_BIRTH_UNREADABLE', 'AGE_ESTIMATED_FROM_FACE'],
    });
    expect(ageEstimateDecision(10, rules)).toMatchObject({
      verdict: 'review',
      reasonCodes: ['DATE_OF_BIRTH_UNREADABLE', 'AGE_ESTIMATED_FROM_FACE', 'AGE_REVIEW'],
    });
  });
});

describe('the worker pool', () => {
  it('an analysis past ENGINE_TIMEOUT_MS is aborted with a timeout error, and the pool keeps working', async () => {
    const slow = new EnginePool({ concurrency: 1, timeoutMs: 50 });
    try {
      await expect(slow.run('face.match', { document: doc[0], selfie: doc[0] })).rejects.toMatchObject({
        reason: 'timeout',
      });
    } finally {
      await slow.close();
    }
    expect((await pool.run('face.read', { image: doc[0] })).faces).toHaveLength(1);
  });

  it('a thread that dies mid-analysis fails that task only; the next task runs on a new thread', async () => {
    const crashing = new EnginePool({
      concurrency: 1,
      timeoutMs: 120_000,
      filename: new URL('../engine/crash-worker.ts', import.meta.url),
    });
    try {
      const failed = await crashing.run('face.liveness', { frames: [doc[0]] }).catch((e) => e);
      expect(failed).toBeInstanceOf(EngineTaskError);
      expect(failed.reason).toBe('crash');
      const after = await crashing.run('face.read', { image: Buffer.from('x') });
      expect(after).toEqual({ readable: false, faces: [] });
    } finally {
      await crashing.close();
    }
  });

  it('threads start under the V8 flags npm start gives node (--max-semi-space-size), which a worker refuses explicitly', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'engine-pool-'));
    try {
      const script = path.join(dir, 'start.mts');
      const pool = new URL('../../src/engine/pool/index.ts', import.meta.url).href;
      await writeFile(
        script,
        `import { EnginePool } from '${pool}';\nconst p = new EnginePool({ concurrency: 1, timeoutMs: 60000 });\nconst r = await p.run('face.read', { image: Buffer.from('x') });\nawait p.close();\nprocess.stdout.write(JSON.stringify(r));\n`,
      );
      const cwd = path.resolve(FACES_DIR, '../../..');
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ['--max-semi-space-size=64', '--import', 'tsx', script],
        { cwd, env: { ...process.env, NODE_OPTIONS: '' } },
      );
      expect(JSON.parse(stdout)).toEqual({ readable: false, faces: [] });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('analyses run at a lower CPU priority than the thread answering HTTP (Linux: per-thread nice)', async () => {
    expect(await pool.run('pool.priority', {})).toBe(Math.min(19, os.getPriority() + 10));
  });

  it('a closed pool refuses work with reason closed (the job retries; the check stays pending)', async () => {
    const closed = new EnginePool({ concurrency: 1, timeoutMs: 1000 });
    await closed.close();
    await expect(closed.run('face.read', { image: doc[0] })).rejects.toMatchObject({ reason: 'closed' });
  });
});

describe("the wasm backend's narrow concat", () => {
  it('joins narrow tensors along their last axis value for value, and leaves other concats to the backend', async () => {
    const human = await loadHuman();
    const tf = human.tf;
    const planes = [0, 1, 2].map((k) =>
      tf.tensor4d(
        Array.from({ length: 2 * 3 * 4 }, (_, i) => i * 3 + k),
        [2, 3, 4, 1],
        'float32',
      ),
    );
    const pairs = [tf.tensor2d([1, 2, 3, 4], [2, 2], 'int32'), tf.tensor2d([5, 6, 7, 8, 9, 10], [2, 3], 'int32')];
    const joined = tf.concat(planes as never, 3);
    const rows = tf.concat(pairs as never, -1);
    const stacked = tf.concat(pairs.map((p) => tf.transpose(p)) as never, 0);
    try {
      // loadHuman installed it in place of the backend's own.
      expect((tf.getKernel('Concat', 'wasm') as never)[Symbol.for('idv.wasm-concat')]).toBe(true);
      expect(joined.shape).toEqual([2, 3, 4, 3]);
      expect(Array.from(await joined.data())).toEqual(Array.from({ length: 72 }, (_, i) => i));
      expect(Array.from(await rows.data())).toEqual([1, 2, 5, 6, 7, 3, 4, 8, 9, 10]);
      expect(Array.from(await stacked.data())).toEqual([1, 3, 2, 4, 5, 8, 6, 9, 7, 10]);
      expect(
        narrowConcat({ inputs: [planes[0]!] as never, backend: tf.backend() as never, attrs: { axis: 3 } }),
      ).toBeNull();
      expect(narrowConcat({ inputs: pairs as never, backend: tf.backend() as never, attrs: { axis: 0 } })).toBeNull();
    } finally {
      tf.dispose([...planes, ...pairs, joined, rows, stacked] as never);
    }
  });
});
