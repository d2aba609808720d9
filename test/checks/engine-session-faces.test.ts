// One face reading per image per session (engine/face/runners.ts SessionFaces): face_match and
// passive liveness give exactly what the single-task analyses gave, and a session's selfie is
// read once, on real photos (test/engine/faces) through the worker pool the service uses.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { documentImage, FACES_DIR, loadIdentities, variant, type FaceIdentity } from '../../eval/faces/corpus.js';
import { SessionFaces, faceMatchRunner, livenessRunner } from '../../src/engine/face/runners.js';
import { faceMatchDecision, livenessDecision } from '../../src/engine/face/index.js';
import { faceMatchOf } from '../../src/engine/face/analyse.js';
import { EnginePool } from '../../src/engine/pool/index.js';
import type { CheckInput } from '../../src/engine/types.js';

import { jest } from '@jest/globals';

jest.setTimeout(240_000);

let pool: EnginePool;
let people: FaceIdentity[];

beforeAll(async () => {
  // Two threads, as on a 2-core server: a session's images are read on both at once.
  pool = new EnginePool({ concurrency: 2, timeoutMs: 120_000 });
  people = await loadIdentities({
    files: ['sample1.jpg', 'sample2.jpg', 'sample3.jpg'],
    read: (image) => pool.run('face.read', { image }),
  });
});

afterAll(async () => {
  await pool.close();
});

/** The pool with a count of the tasks asked of it (the real pool does the work). */
function counted(engine: EnginePool): { engine: EnginePool; tasks: string[] } {
  const tasks: string[] = [];
  const proxy = new Proxy(engine, {
    get(target, prop, receiver) {
      if (prop !== 'run') return Reflect.get(target, prop, receiver);
      return (task: string, payload: never) => {
        tasks.push(task);
        return target.run(task as never, payload);
      };
    },
  });
  return { engine: proxy, tasks };
}

const input = (type: string, images: CheckInput['images'], engine: EnginePool, faces?: SessionFaces): CheckInput => ({
  check: { type, config: {} },
  snapshot: {} as never,
  identity: {},
  sandbox: null,
  now: new Date(),
  images,
  engine,
  faces,
});

describe('a session reads each image once', () => {
  it('face_match and passive liveness from shared readings decide exactly as the face.match and face.liveness analyses do', async () => {
    expect(people.length).toBeGreaterThanOrEqual(3);
    for (const [i, person] of people.entries()) {
      const document = await documentImage(person.portrait);
      const selfie = await variant(people[(i + i) % people.length]!.portrait, 'tight_crop');
      const faces = new SessionFaces(pool);
      const images = { document_front: document, selfie, liveness: [selfie] };
      const [matched, live] = [
        await faceMatchRunner.run(input('face_match', images, pool, faces)),
        await livenessRunner.run(input('liveness', images, pool, faces)),
      ];
      const single = await pool.run('face.match', { document, selfie });
      const expected = faceMatchDecision(single, {});
      expect(matched).toEqual(
        single.selfieEmbedding ? { ...expected, faceEmbedding: single.selfieEmbedding } : expected,
      );
      expect(live).toEqual(livenessDecision(await pool.run('face.liveness', { frames: [selfie] }), {}));
    }
  });

  it("a session's selfie is read once for face_match and liveness, and its document once", async () => {
    const { engine, tasks } = counted(pool);
    const selfie = await variant(people[0]!.portrait, 'tight_crop');
    const images = { document_front: await documentImage(people[0]!.portrait), selfie, liveness: [selfie] };
    const faces = new SessionFaces(engine);
    faces.warm(images);
    const matched = await faceMatchRunner.run(input('face_match', images, engine, faces));
    const live = await livenessRunner.run(input('liveness', images, engine, faces));
    expect(matched.verdict).toBe('approve');
    expect(live.status).toBe('completed');
    expect(tasks).toEqual(['face.read', 'face.read']);
  });

  it("a document's portrait read without Human's age, antispoof and liveness models has the same faces, boxes, head turns and descriptors", async () => {
    // Document pages with a corpus face, and a group photo (several faces: the order and the second faces too).
    const images = [
      ...(await Promise.all(people.map((p) => documentImage(p.portrait)))),
      await readFile(path.join(FACES_DIR, 'sample1.jpg')),
    ];
    const selfie = await variant(people[0]!.portrait, 'tight_crop');
    // One thread, so that the readings below follow each other on the same Human.
    const one = new EnginePool({ concurrency: 1, timeoutMs: 120_000 });
    try {
      const selfieFaces = await one.run('face.read', { image: selfie });
      for (const image of images) {
        const full = await one.run('face.read', { image });
        const portrait = await one.run('face.read', { image, models: 'portrait' });
        expect(full.faces.length).toBeGreaterThan(0);
        expect(full.faces[0]!.embedding.length).toBe(128);
        // Only what those models give differs, and nothing reads it on a document.
        expect(full.faces.every((f) => f.age !== null && f.real !== null && f.live !== null)).toBe(true);
        expect(portrait).toEqual({
          ...full,
          faces: full.faces.map((f) => ({ ...f, age: null, real: null, live: null })),
        });
        expect(faceMatchOf(portrait, selfieFaces)).toEqual(faceMatchOf(full, selfieFaces));
        // Human keeps a detect() call's model choice: a full reading after a portrait one is whole again.
        expect(await one.run('face.read', { image })).toEqual(full);
      }
    } finally {
      await one.close();
    }
  });

  it('without a shared reader (a runner called on its own) each check still reads what it needs', async () => {
    const { engine, tasks } = counted(pool);
    const selfie = await variant(people[1]!.portrait, 'tight_crop');
    const images = { document_front: await documentImage(people[1]!.portrait), selfie, liveness: [selfie] };
    await faceMatchRunner.run(input('face_match', images, engine));
    await livenessRunner.run(input('liveness', images, engine));
    expect(tasks).toEqual(['face.read', 'face.read', 'face.read']);
  });
});
