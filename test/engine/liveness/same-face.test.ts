// Active liveness (issue 28): the challenge's same-face rules under face_match's alignment (dlib's
// 150 px chip). Scores rose for everyone with it: another person's frames scored 0.5 or more
// against a clip's frontal frame in 957 of 1,536 tuning comparisons, so the former 0.5 no longer
// told two people apart. Both rules are now face_match's own threshold. Real tuning clips only.
import { jest } from '@jest/globals';
import { CHALLENGE_RULES, challengeFailure } from '../../../src/engine/face/challenge.js';
import { FACE_MATCH_THRESHOLD } from '../../../src/engine/face/decide.js';
import { loadClips, splitClips, STEPS, type Clip } from '../../../src/engine/face/liveness-pad.js';
import { EnginePool } from '../../../src/engine/pool/index.js';
import type { LivenessChallenge } from '../../../src/engine/types.js';

jest.setTimeout(240_000);

const challenge: LivenessChallenge = {
  id: 'lch_same',
  steps: [...STEPS],
  issued_at: '2026-11-26T10:00:00.000Z',
  expires_at: '2026-11-26T10:05:00.000Z',
};
const at = (second: number) => `2026-11-26T10:00:${String(second).padStart(2, '0')}.000Z`;

describe("the challenge's same-face rules on real clips (worker pool)", () => {
  let pool: EnginePool;
  let clips: Map<string, Clip>;
  beforeAll(async () => {
    pool = new EnginePool({ concurrency: 1, timeoutMs: 180_000 });
    const all = await loadClips();
    const { tuning } = splitClips(all.map((c) => c.clip));
    clips = new Map(all.filter((c) => tuning.includes(c.clip)).map((c) => [c.clip, c]));
    expect([...clips.keys()]).toEqual(expect.arrayContaining(['d12', 'd14', 's29', 's32']));
  });
  afterAll(() => pool.close());

  /** The first frame of each step from `moves`, after the frontal frame of `front`. */
  const run = (front: Clip, moves: Clip, selfie: Clip) =>
    pool.run('face.challenge', {
      frames: STEPS.map((step, i) => ({
        challengeId: challenge.id,
        step: i,
        requestedAt: at(i * 2 + 1),
        bytes: (i === 0 ? front : moves).steps[step][0]!,
      })),
      selfie: selfie.selfie,
    });

  it('the rules are what face_match approves as one person', () => {
    expect(CHALLENGE_RULES.sameFace).toBe(FACE_MATCH_THRESHOLD);
    expect(CHALLENGE_RULES.selfieFace).toBe(FACE_MATCH_THRESHOLD);
  });

  it("another real person's frames after the applicant's frontal frame are a changed face, though they score above the former 0.5", async () => {
    const analysis = await run(clips.get('d14')!, clips.get('d12')!, clips.get('d14')!);
    const swapped = analysis.frames.filter((f) => f.step > 0).map((f) => f.sameFace!);
    expect(Math.max(...swapped)).toBeGreaterThan(0.5);
    expect(Math.max(...swapped)).toBeLessThan(CHALLENGE_RULES.sameFace);
    expect(challengeFailure(analysis, challenge)).toEqual({ step: challenge.steps[1], reason: 'face_changed' });
    // The applicant's own frames keep the same face.
    const own = await run(clips.get('d14')!, clips.get('d14')!, clips.get('d14')!);
    expect(own.frames.every((f) => f.sameFace! >= CHALLENGE_RULES.sameFace)).toBe(true);
    expect(own.selfieMatch!).toBeGreaterThanOrEqual(CHALLENGE_RULES.selfieFace);
  });

  it("a frontal face that scores above the former 0.7 against another person's selfie is not the selfie", async () => {
    const s29 = clips.get('s29')!;
    const analysis = await pool.run('face.challenge', {
      frames: [{ challengeId: challenge.id, step: 0, requestedAt: at(1), bytes: s29.steps.face_camera[0]! }],
      selfie: clips.get('s32')!.selfie,
    });
    expect(analysis.selfieMatch!).toBeGreaterThan(0.7);
    expect(analysis.selfieMatch!).toBeLessThan(CHALLENGE_RULES.selfieFace);
  });
});
