// Active liveness (issue 28): the challenge the server issues, binds frames to and verifies.
// The rules on readings, then real photos through the worker pool, then the applicant API.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { jest } from '@jest/globals';
import {
  CHALLENGE_RULES,
  challengeDecision,
  challengeFailure,
  newChallenge,
  MOVES,
  type ChallengeAnalysis,
  type FrameReading,
} from '../../src/engine/face/challenge.js';
import { REAL_DIR } from '../../eval/faces/real.js';
import { livenessRunner } from '../../src/engine/face/runners.js';
import type { Check } from '../../src/entities/check.entity.js';
import { EnginePool } from '../../src/engine/pool/index.js';
import type { LivenessChallenge } from '../../src/engine/types.js';
import { stepSchema } from '../../src/services/catalog/flow.schema.js';
import type { BootstrapResult } from '../../src/services/access/index.js';
import { withTestAccount } from '../support/account.js';
import { applicantApi, createHostedSession, agree } from '../support/hosted.js';
import type { TestServer } from '../support/test-server.js';

jest.setTimeout(180_000);

const challenge: LivenessChallenge = {
  id: 'lch_test',
  steps: ['face_camera', 'blink', 'turn_left', 'turn_right'],
  issued_at: '2026-11-26T10:00:00.000Z',
  expires_at: '2026-11-26T10:05:00.000Z',
};
const face = (yaw: number, eyes: number) => ({
  box: [0, 0, 200, 200] as [number, number, number, number],
  score: 1,
  age: 30,
  real: 0.9,
  live: 0.9,
  yaw,
  eyes,
  aspect: 0.6,
  quality: [],
});
const frame = (
  step: number,
  yaw: number,
  eyes: number,
  second: number,
  over: Partial<FrameReading> = {},
): FrameReading => ({
  step,
  challengeId: 'lch_test',
  requestedAt: `2026-11-26T10:00:${String(second).padStart(2, '0')}.000Z`,
  faces: 1,
  face: face(yaw, eyes),
  sameFace: 0.9,
  ...over,
});
const kept = (): FrameReading[] => [
  frame(0, 2, 0.31, 1),
  frame(1, 3, 0.08, 3),
  frame(2, -24, 0.3, 5),
  frame(3, 22, 0.3, 7),
];
const analysis = (frames: FrameReading[], selfieMatch: number | null = 0.85): ChallengeAnalysis => ({
  frames,
  selfieMatch,
});

describe('the challenge', () => {
  it("a flow's liveness step takes mode active or passive, nothing else", () => {
    expect(stepSchema.safeParse({ type: 'liveness', config: { mode: 'active' } }).success).toBe(true);
    expect(stepSchema.safeParse({ type: 'liveness', config: { mode: 'passive' } }).success).toBe(true);
    expect(stepSchema.safeParse({ type: 'liveness', config: { mode: 'sideways' } }).success).toBe(false);
  });

  it('is face the camera, then turn left, turn right and blink once each in a random order, one use, with an expiry', () => {
    const orders = new Set<string>();
    for (let i = 0; i < 60; i++) {
      const c = newChallenge(new Date('2026-11-26T10:00:00Z'));
      expect(c.steps[0]).toBe('face_camera');
      expect([...c.steps.slice(1)].sort()).toEqual([...MOVES].sort());
      expect(Date.parse(c.expires_at) - Date.parse(c.issued_at)).toBe(300_000);
      orders.add(c.steps.join());
    }
    expect(orders.size).toBeGreaterThan(3);
    expect(newChallenge().id).not.toBe(newChallenge().id);
  });

  it('frames showing each move in the order asked, by the selfie face, pass (then the passive models decide)', () => {
    expect(challengeFailure(analysis(kept()), challenge)).toBeNull();
    expect(challengeDecision(analysis(kept()), challenge, {})).toMatchObject({ verdict: 'approve', reasonCodes: [] });
  });

  it('a failed challenge is LIVENESS_FAILED with the failed move in the detail', () => {
    const cases: [FrameReading[], string | null, string][] = [
      [kept().map((f) => ({ ...f, challengeId: 'lch_other' })), null, 'not_for_this_challenge'],
      [kept().map((f, i) => (i === 3 ? { ...f, requestedAt: '2026-11-26T10:09:00.000Z' } : f)), null, 'expired'],
      [
        [kept()[0]!, { ...kept()[2]!, requestedAt: '2026-11-26T10:00:02.000Z' }, kept()[1]!, kept()[3]!],
        'blink',
        'out_of_order',
      ],
      [kept().map((f) => (f.step === 1 ? { ...f, face: face(3, 0.3) } : f)), 'blink', 'move_not_seen'],
      [kept().map((f) => (f.step === 2 ? { ...f, face: face(24, 0.3) } : f)), 'turn_left', 'move_not_seen'],
      [kept().map((f) => (f.step === 3 ? { ...f, sameFace: 0.2 } : f)), 'turn_right', 'face_changed'],
      [kept().map((f) => (f.step === 0 ? { ...f, faces: 2 } : f)), 'face_camera', 'multiple_faces'],
      [kept().filter((f) => f.step !== 3), 'turn_right', 'missing'],
    ];
    for (const [frames, move, reason] of cases) {
      const decided = challengeDecision(analysis(frames), challenge, {});
      expect(decided).toMatchObject({
        verdict: 'reject',
        reasonCodes: ['LIVENESS_FAILED', 'LIVENESS_CHALLENGE_FAILED'],
      });
      expect(decided.findings).toEqual([{ code: 'LIVENESS_CHALLENGE', failed_move: move, reason }]);
    }
    expect(challengeDecision(analysis(kept(), 0.2), challenge, {}).findings).toEqual([
      { code: 'LIVENESS_CHALLENGE', failed_move: 'face_camera', reason: 'not_the_selfie' },
    ]);
  });
});

describe('a hosted session takes its challenge', () => {
  const input = (config: Record<string, unknown>, hosted: boolean) => ({
    check: { type: 'liveness', config } as unknown as Check,
    snapshot: {} as never,
    identity: {},
    sandbox: null,
    now: new Date(),
    images: { selfie: Buffer.from('x'), video: true },
    engine: {} as never,
    hosted,
  });

  it('a hosted session (consent recorded) whose active liveness step never asked for a challenge fails: a clip or a selfie instead is not enough', async () => {
    const result = await livenessRunner.run(input({}, true));
    expect(result).toMatchObject({ verdict: 'reject', reasonCodes: ['LIVENESS_FAILED', 'LIVENESS_CHALLENGE_FAILED'] });
    expect(result.findings).toEqual([{ code: 'LIVENESS_CHALLENGE', failed_move: null, reason: 'challenge_not_taken' }]);
    expect(await livenessRunner.run(input({ mode: 'active' }, true))).toMatchObject({
      verdict: 'reject',
      reasonCodes: ['LIVENESS_FAILED', 'LIVENESS_CHALLENGE_FAILED'],
    });
  });
});

describe('the challenge on real photos (worker pool)', () => {
  let pool: EnginePool;
  beforeAll(() => {
    pool = new EnginePool({ concurrency: 1, timeoutMs: 120_000 });
  });
  afterAll(() => pool.close());

  const at = (second: number) => `2026-11-26T10:00:${String(second).padStart(2, '0')}.000Z`;

  it('a head turned one way and its mirror image read as opposite turns; a printed photo held still fails at the first move', async () => {
    const turned = await readFile(path.join(REAL_DIR, 'bbt-amy/1.jpg'));
    const frontal = await readFile(path.join(REAL_DIR, 'bbt-amy/4.jpg'));
    const right = (await pool.run('face.read', { image: turned })).faces[0]!;
    const left = (await pool.run('face.read', { image: await sharp(turned).flop().toBuffer() })).faces[0]!;
    expect(Math.sign(right.yaw!)).toBe(-Math.sign(left.yaw!));
    expect(Math.abs(right.yaw!)).toBeGreaterThan(10);
    // The same photo for every prompt: nothing moves.
    const stillFrames = challenge.steps.map((_, step) => ({
      challengeId: challenge.id,
      step,
      requestedAt: at(step * 2 + 1),
      bytes: frontal,
    }));
    const still = await pool.run('face.challenge', { frames: stillFrames, selfie: frontal });
    expect(still.frames.every((f) => f.faces === 1 && f.face!.eyes! > 0.15)).toBe(true);
    expect(challengeFailure(still, challenge)).toEqual({ step: 'blink', reason: 'move_not_seen' });
    // Given the challenge, the analysis stops at that step: the same failure, the later frames unread.
    const stopped = await pool.run('face.challenge', { frames: stillFrames, selfie: frontal, challenge });
    expect(challengeFailure(stopped, challenge)).toEqual({ step: 'blink', reason: 'move_not_seen' });
    expect(stopped.frames.map((f) => f.read ?? true)).toEqual([true, true, false, false]);
    expect(stopped.frames.slice(0, 2)).toEqual(still.frames.slice(0, 2));
    expect(stopped.selfieMatch).toBeNull();
    // Frames bound to another challenge are not read at all.
    const foreign = await pool.run('face.challenge', {
      frames: [{ challengeId: 'lch_other', step: 0, requestedAt: at(1), bytes: frontal }],
      selfie: frontal,
      challenge,
    });
    expect(foreign.frames.map((f) => f.read)).toEqual([false]);
    expect(challengeFailure(foreign, challenge)).toEqual({ step: null, reason: 'not_for_this_challenge' });
    // Another person's face on the frames than on the selfie.
    const other = await readFile(path.join(REAL_DIR, 'df-person01/1.jpg'));
    const swapped = await pool.run('face.challenge', {
      frames: [{ challengeId: challenge.id, step: 0, requestedAt: at(1), bytes: frontal }],
      selfie: other,
    });
    expect(swapped.selfieMatch!).toBeLessThan(CHALLENGE_RULES.selfieFace);
  });
});

describe('the applicant API binds frames to the session challenge', () => {
  let server: TestServer;
  let account: BootstrapResult;
  withTestAccount(
    (t) => ({ server, account } = t),
    () => ({ env: { RATE_LIMIT_PER_MINUTE: '100000' } }),
  );

  it('POST .../liveness/challenge issues a challenge; frame uploads carry its step and are bound to it; a new challenge replaces the old', async () => {
    const v = await createHostedSession(server, account, {});
    const api = applicantApi(server, v.id, v.client_token!);
    // A challenge starts biometric capture: not before the applicant's consent (issue 30).
    const early = await api.post('/liveness/challenge');
    expect(early.status).toBe(409);
    expect(early.body.error).toMatchObject({ code: 'CONSENT_REQUIRED' });
    await agree(api);
    const missing = await api.post('/uploads', { kind: 'selfie', content_type: 'image/jpeg', challenge_step: 0 });
    expect(missing.body.error).toMatchObject({ code: 'LIVENESS_CHALLENGE_MISSING' });
    const issued = await api.post('/liveness/challenge');
    expect(issued.status).toBe(201);
    expect(issued.body).toMatchObject({ object: 'liveness_challenge', expires_in: 300, preview: false });
    expect(issued.body.steps).toHaveLength(4);
    const created = await api.post('/uploads', { kind: 'selfie', content_type: 'image/jpeg', challenge_step: 2 });
    expect(created.status).toBe(201);
    const [row] = await server.sql<{ challenge_id: string; challenge_step: number }>(
      'select challenge_id, challenge_step from uploads where id = $1',
      [created.body.upload_id],
    );
    expect(row).toEqual({ challenge_id: issued.body.challenge_id, challenge_step: 2 });
    expect(
      (await api.post('/uploads', { kind: 'selfie', content_type: 'image/jpeg', challenge_step: 7 })).body.error,
    ).toMatchObject({ param: 'challenge_step' });
    expect(
      (await api.post('/uploads', { kind: 'document', content_type: 'image/jpeg', side: 'front', challenge_step: 0 }))
        .body.error,
    ).toMatchObject({ param: 'challenge_step' });
    const again = await api.post('/liveness/challenge');
    expect(again.body.challenge_id).not.toBe(issued.body.challenge_id);
  });
});
