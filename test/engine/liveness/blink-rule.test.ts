// Active liveness (issue 28): a flat photo tilted back in front of the camera narrows the eyes it
// shows, which the blink rule alone took for a blink (about half the simulated sequences); a blink
// narrows the eyes only, a tilted picture shortens the whole face. Rules on readings, then a real
// tuning clip's frames and the same person's photo tilted back (liveness-attacks.ts), read by Human.
import { jest } from '@jest/globals';
import { CHALLENGE_RULES, baselineOf, challengeFailure, shows } from '../../../src/engine/face/challenge.js';
import type { FrameReading } from '../../../src/engine/face/challenge.js';
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

  it('eyes at most 0.75 of the frontal frames with the face as tall as it was is a blink', () => {
    expect(CHALLENGE_RULES.blinkRatio).toBe(0.75);
    expect(shows('blink', face(0.15, 0.61), baseline, CHALLENGE_RULES)).toBe(true);
    // A shut eye as Human often reads it (blink-calibration.md: half the real blinks read above 0.66 of the open eye).
    expect(shows('blink', face(0.36 * 0.74, 0.62), baseline, CHALLENGE_RULES)).toBe(true);
  });

  it('open eyes as they vary from frame to frame are not a blink', () => {
    // Open-eye frames of the tuning clips stay above 0.72 of their clip's open median (1% under 0.78).
    expect(shows('blink', face(0.36 * 0.8, 0.63), baseline, CHALLENGE_RULES)).toBe(false);
    expect(shows('blink', face(0.36 * 0.76, 0.63), baseline, CHALLENGE_RULES)).toBe(false);
  });

  it("the baseline is the median over the frontal step's frames, so one odd frontal frame does not move it", () => {
    const frame = (step: number, eyes: number, aspect = 0.63): Pick<FrameReading, 'step' | 'face'> => ({
      step,
      face: face(eyes, aspect),
    });
    expect(baselineOf([frame(0, 0.36), frame(0, 0.5), frame(0, 0.35), frame(1, 0.1)])).toEqual({ eyes: 0.36, aspect: 0.63 });
    expect(baselineOf([frame(1, 0.3)])).toBeNull();
  });

  it('a burst of frames for the blink passes when one of them shows it, and fails when none does', () => {
    const challenge = {
      id: 'lch_t',
      steps: ['face_camera', 'blink'],
      issued_at: new Date(Date.now() - 10_000).toISOString(),
      expires_at: new Date(Date.now() + 60_000).toISOString(),
    };
    const frames = (blinkEyes: number[]): FrameReading[] =>
      [0.36, 0.37, 0.35, ...blinkEyes].map((eyes, i) => ({
        step: i < 3 ? 0 : 1,
        challengeId: 'lch_t',
        requestedAt: new Date(Date.now() - 5_000 + i * 10).toISOString(),
        faces: 1,
        face: face(eyes, 0.63),
        sameFace: 0.95,
      }));
    const open = Array.from({ length: 24 }, (_, i) => 0.34 + (i % 3) * 0.01);
    expect(challengeFailure({ frames: frames(open), selfieMatch: null }, challenge)).toEqual({
      step: 'blink',
      reason: 'move_not_seen',
    });
    const blinked = [...open];
    blinked[11] = 0.25;
    expect(challengeFailure({ frames: frames(blinked), selfieMatch: null }, challenge)).toBeNull();
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
