// Active liveness (issue 28): a flat photo tilted back in front of the camera narrows the eyes it
// shows, which the blink rule alone took for a blink (about half the simulated sequences); a blink
// narrows the eyes only, a tilted picture shortens the whole face. Rules on readings, then a real
// tuning clip's frames and the same person's photo tilted back (liveness-attacks.ts), read by Human.
import { jest } from '@jest/globals';
import { CHALLENGE_RULES, shows } from '../../../src/engine/face/challenge.js';
import { loadClips, splitClips, type Clip } from '../../../src/engine/face/liveness-pad.js';
import { movedPhoto } from '../../../src/engine/face/liveness-attacks.js';
import type { FaceReading } from '../../../src/engine/face/analyse.js';
import { EnginePool } from '../../../src/engine/pool/index.js';

jest.setTimeout(180_000);

const face = (eyes: number, aspect: number): Omit<FaceReading, 'embedding'> => ({
  box: [0, 0, 200, 200],
  score: 1,
  age: 30,
  real: 0.9,
  live: 0.9,
  yaw: 1,
  eyes,
  aspect,
  quality: [],
});

describe('the blink rule', () => {
  const baseline = { eyes: 0.36, aspect: 0.63 };

  it('eyes at most 0.6 of the frontal frame with the face as tall as it was is a blink', () => {
    expect(shows('blink', face(0.15, 0.61), baseline, CHALLENGE_RULES)).toBe(true);
  });

  it('eyes narrowed by a face shortened as much (a picture tilted back) are not a blink', () => {
    expect(shows('blink', face(0.2, 0.31), baseline, CHALLENGE_RULES)).toBe(false);
    expect(shows('blink', face(0.2, 0.63 * CHALLENGE_RULES.blinkAspect - 0.01), baseline, CHALLENGE_RULES)).toBe(false);
  });

  it('without the frontal frame or its shape there is nothing to measure a blink against', () => {
    expect(shows('blink', face(0.1, 0.6), null, CHALLENGE_RULES)).toBe(false);
    expect(shows('blink', face(0.1, 0.6), { eyes: 0.36, aspect: null }, CHALLENGE_RULES)).toBe(false);
  });
});

describe('the blink rule on real frames (worker pool)', () => {
  let pool: EnginePool;
  let clip: Clip;
  beforeAll(async () => {
    pool = new EnginePool({ concurrency: 1, timeoutMs: 120_000 });
    const clips = await loadClips();
    // A tuning clip (the split is frozen; held-out clips are never used to choose or test a rule).
    const { tuning } = splitClips(clips.map((c) => c.clip));
    expect(tuning).toContain('d0');
    clip = clips.find((c) => c.clip === 'd0')!;
  });
  afterAll(() => pool.close());

  const read = async (image: Buffer) => (await pool.run('face.read', { image })).faces[0]!;

  it("a real person's blink is seen; the same person's photo tilted back 60° narrows the eyes as much but is not a blink", async () => {
    const frontal = await read(clip.steps.face_camera[0]!);
    const blink = await read(clip.steps.blink[1]!);
    expect(shows('blink', blink, frontal, CHALLENGE_RULES)).toBe(true);

    const tilted = await read(await movedPhoto(clip.steps.face_camera[1]!, { pitchDeg: 60, rollDeg: -4 }, 18));
    // The eyes alone would pass for a blink: the rule that stops it is the face's shape.
    expect(tilted.eyes!).toBeLessThanOrEqual(frontal.eyes! * CHALLENGE_RULES.blinkRatio);
    expect(shows('blink', tilted, { eyes: frontal.eyes, aspect: null }, CHALLENGE_RULES)).toBe(false);
    expect(tilted.aspect!).toBeLessThan(frontal.aspect! * CHALLENGE_RULES.blinkAspect);
    expect(shows('blink', tilted, frontal, CHALLENGE_RULES)).toBe(false);
    expect(shows('blink', tilted, frontal, { ...CHALLENGE_RULES, blinkAspect: 0 })).toBe(true);
  });
});
