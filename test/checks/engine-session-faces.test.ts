// One face reading per image per session (engine/face/runners.ts SessionFaces): face_match and
// passive liveness give exactly what the single-task analyses gave, and a session's selfie is
// read once, on real photos (test/engine/faces) through the worker pool the service uses.
import { documentImage, loadIdentities, variant, type FaceIdentity } from '../../eval/faces/corpus.js';
import { SessionFaces, faceMatchRunner, livenessRunner } from '../../src/engine/face/runners.js';
import { faceMatchDecision, livenessDecision } from '../../src/engine/face/index.js';
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

  it('without a shared reader (a runner called on its own) each check still reads what it needs', async () => {
    const { engine, tasks } = counted(pool);
    const selfie = await variant(people[1]!.portrait, 'tight_crop');
    const images = { document_front: await documentImage(people[1]!.portrait), selfie, liveness: [selfie] };
    await faceMatchRunner.run(input('face_match', images, engine));
    await livenessRunner.run(input('liveness', images, engine));
    expect(tasks).toEqual(['face.read', 'face.read', 'face.read']);
  });
});
