import { randomBytes, randomInt } from 'node:crypto';
import type { CheckResult, LivenessChallenge, Verdict } from '../types.js';
import { readFaces, type FaceReading } from './analyse.js';
import { FACE_MATCH_THRESHOLD, LIVENESS_THRESHOLD, type FaceStep } from './decide.js';
import { matchScore } from './descriptor.js';
import { loadHuman } from './human.js';

/**
 * Active liveness: the server issues a random, one-use challenge bound to the session (face
 * the camera, then the three moves in a random order); the hosted page captures frames for
 * each prompt and uploads them tagged with the step; the server checks each step's frames show
 * its move (head yaw from the face mesh, eye openness for a blink), in the order issued, by the
 * same face throughout, which is the selfie's face, and runs the passive models on every frame.
 */
export const MOVES = ['turn_left', 'turn_right', 'blink'] as const;
export type Move = (typeof MOVES)[number];
export type ChallengeStep = 'face_camera' | Move;

/** A challenge lives this long from issue; frames requested later do not count. */
export const CHALLENGE_TTL_SECONDS = 300;

export interface ChallengeRules {
  frontalYaw: number;
  turnYaw: number;
  openEyes: number;
  blinkRatio: number;
  blinkAspect: number;
  sameFace: number;
  selfieFace: number;
}

/**
 * Thresholds of the moves. Yaw is Human's (degrees, positive when the applicant turns to their
 * own right, measured on photos and their mirror images); eye openness is eyelid gap over eye
 * width (open ~0.3).
 */
export const CHALLENGE_RULES: ChallengeRules = {
  /**
   * The product rule is in true degrees (docs/checks-face.md): a face within 10° of the lens is
   * frontal, a deliberate 20° turn passes. Human under-reads turns, so both are converted with the
   * calibration on a real head's scan (test/engine/liveness/yaw-calibration.md) on the
   * conservative side of its spread: the most a true 10° reads, the least a true 20° reads.
   */
  frontalYaw: 10,
  turnYaw: 12,
  openEyes: 0.2,
  /**
   * A blink: a frame whose eyes are at most this share of the frontal frames' openness (their
   * median). Calibrated on real blinks labelled by eye on the tuning clips
   * (test/engine/liveness/blink-calibration.md): Human reads a shut eye at 0.39-0.90 of the open
   * eye, half of the 22 blinks above 0.66, while open eyes stay above 0.72 (1% under 0.78); 0.75 is
   * under every open frame but one in a hundred and sees 16 of the 22 blinks.
   */
  blinkRatio: 0.75,
  /**
   * A blink frame's face aspect (analyse.ts) is at least this share of the frontal frame's: a
   * photo tilted back narrows the eyes and shortens the whole face by the same factor, a blink
   * narrows the eyes only (chosen on the tuning clips, docs/checks-face.md).
   */
  blinkAspect: 0.85,
  /**
   * Every frame's face against the frontal frame, and the frontal frame against the selfie: what
   * face_match approves as one person (its threshold). Set from face_match's rule, not tuned on
   * the clips; docs/checks-face.md gives what it lets through on the tuning clips.
   */
  sameFace: FACE_MATCH_THRESHOLD,
  selfieFace: FACE_MATCH_THRESHOLD,
};

/** A new challenge: face the camera, then each move once in a random order. */
export function newChallenge(now = new Date()): LivenessChallenge {
  const moves: Move[] = [...MOVES];
  for (let i = moves.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [moves[i], moves[j]] = [moves[j]!, moves[i]!];
  }
  return {
    id: `lch_${randomBytes(12).toString('hex')}`,
    steps: ['face_camera', ...moves],
    issued_at: now.toISOString(),
    expires_at: new Date(now.getTime() + CHALLENGE_TTL_SECONDS * 1000).toISOString(),
  };
}

/** One captured frame: the step it was uploaded for, the challenge it was bound to, and when its upload was requested. */
export interface ChallengeFrame {
  challengeId: string | null;
  step: number;
  requestedAt: string;
  bytes: Uint8Array;
}

export interface FrameReading {
  step: number;
  challengeId: string | null;
  requestedAt: string;
  faces: number;
  face: Omit<FaceReading, 'embedding'> | null;
  /** Match score of this frame's face against the first frontal frame's. */
  sameFace: number | null;
  /** false: not read, the analysis stopped at an earlier step that broke a rule. */
  read?: false;
}

export interface ChallengeAnalysis {
  frames: FrameReading[];
  /** Match score of the first frontal frame's face against the selfie's (null without a selfie). */
  selfieMatch: number | null;
}

/**
 * Reads the frames (faces, yaw, eyes, antispoof, liveness, descriptor) and compares faces; in the
 * worker pool. Given the challenge, it reads step by step in the challenge's order and stops at
 * the first step that breaks a rule (`challengeFailure` then finds that same step): the frames
 * after it are left unread (`read: false`) and the selfie too, so a failed challenge, a bot's or a
 * printed photo's, costs a few frames' reading instead of all of them. Without it every frame is
 * read (the tests and the eval look at each).
 */
export async function analyseChallenge(input: {
  frames: ChallengeFrame[];
  selfie?: Uint8Array;
  challenge?: LivenessChallenge;
  rules?: ChallengeRules;
}): Promise<ChallengeAnalysis> {
  const human = await loadHuman();
  const { challenge, rules = CHALLENGE_RULES } = input;
  const read: (ReadFrame & { frame: ChallengeFrame })[] = input.frames.map((frame) => ({
    frame,
    faces: [],
    read: false,
  }));
  const readAll = async (which: typeof read) => {
    for (const r of which) Object.assign(r, { faces: (await readFaces(r.frame.bytes, human)).faces, read: true });
  };
  if (challenge) {
    if (framesFailure(input.frames, challenge)) return challengeAnalysisOf(read, undefined);
    for (const index of challenge.steps.keys()) {
      await readAll(read.filter((r) => r.frame.step === index));
      const sofar = challengeAnalysisOf(read, undefined);
      if (stepsFailure(sofar.frames, challenge, rules, index + 1)) return sofar;
    }
  }
  await readAll(read.filter((r) => !r.read));
  const selfie = input.selfie ? (await readFaces(input.selfie, human)).faces[0] : undefined;
  return challengeAnalysisOf(read, selfie);
}

/** A frame and the faces read on it; `read: false` when the analysis stopped before it. */
interface ReadFrame {
  frame: Omit<ChallengeFrame, 'bytes'>;
  faces: FaceReading[];
  read?: boolean;
}

/** The analysis of frames already read (the eval reads each distinct image once). */
export function challengeAnalysisOf(read: ReadFrame[], selfie: FaceReading | undefined): ChallengeAnalysis {
  const anchor = read.find((r) => r.frame.step === 0 && r.faces.length === 1)?.faces[0];
  return {
    frames: read.map(({ frame, faces, read: wasRead }) => {
      const face = faces[0];
      const { embedding, ...rest } = face ?? { embedding: [] };
      return {
        step: frame.step,
        challengeId: frame.challengeId,
        requestedAt: frame.requestedAt,
        faces: faces.length,
        face: face ? (rest as Omit<FaceReading, 'embedding'>) : null,
        sameFace: face && anchor ? matchScore(embedding, anchor.embedding) : null,
        ...(wasRead === false ? { read: false } : {}),
      };
    }),
    selfieMatch: anchor && selfie ? matchScore(anchor.embedding, selfie.embedding) : null,
  };
}

/** Why a challenge failed: the step (move) and what was wrong. */
export interface ChallengeFailure {
  step: ChallengeStep | null;
  reason:
    | 'not_for_this_challenge'
    | 'expired'
    | 'out_of_order'
    | 'missing'
    | 'no_face'
    | 'multiple_faces'
    | 'move_not_seen'
    | 'face_changed'
    | 'not_the_selfie'
    | 'spoof';
}

/** The frontal frames' readings a blink is measured against. */
export type Baseline = Pick<FaceReading, 'eyes' | 'aspect'> | null;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s[(s.length - 1) >> 1]! + s[s.length >> 1]!) / 2 : null;
};

/** The blink's baseline: the median eye openness and aspect over the frontal step's frames (one frame's reading is noisy). */
export function baselineOf(frames: Pick<FrameReading, 'step' | 'face'>[]): Baseline {
  const faces = frames.filter((f) => f.step === 0 && f.face).map((f) => f.face!);
  if (faces.length === 0) return null;
  const of = (key: 'eyes' | 'aspect') =>
    median(faces.map((f) => f[key]).filter((v): v is number => typeof v === 'number'));
  return { eyes: of('eyes'), aspect: of('aspect') };
}

/** Whether one frame shows a step's move (the frontal frame is the blink's baseline). */
export function shows(
  step: ChallengeStep,
  face: Omit<FaceReading, 'embedding'>,
  baseline: Baseline,
  rules: ChallengeRules,
): boolean {
  const yaw = face.yaw ?? NaN;
  const eyes = face.eyes ?? NaN;
  switch (step) {
    case 'face_camera':
      return Math.abs(yaw) <= rules.frontalYaw && eyes >= rules.openEyes;
    case 'turn_left':
      return yaw <= -rules.turnYaw;
    case 'turn_right':
      return yaw >= rules.turnYaw;
    case 'blink': {
      const baseEyes = baseline?.eyes ?? null;
      const baseAspect = baseline?.aspect ?? null;
      return (
        Math.abs(yaw) <= rules.turnYaw &&
        baseEyes !== null &&
        eyes <= baseEyes * rules.blinkRatio &&
        baseAspect !== null &&
        (face.aspect ?? NaN) >= baseAspect * rules.blinkAspect
      );
    }
  }
}

/** The first rule the frames break, in the order a person would: binding, timing, order, then each step's content. */
export function challengeFailure(
  analysis: ChallengeAnalysis,
  challenge: LivenessChallenge,
  rules: ChallengeRules = CHALLENGE_RULES,
): ChallengeFailure | null {
  const { frames } = analysis;
  const failure = framesFailure(frames, challenge) ?? stepsFailure(frames, challenge, rules, challenge.steps.length);
  if (failure) return failure;
  if (analysis.selfieMatch !== null && analysis.selfieMatch < rules.selfieFace)
    return { step: 'face_camera', reason: 'not_the_selfie' };
  return null;
}

/** What the frames' metadata breaks before any is looked at: the binding, the timing, the order. */
function framesFailure(
  frames: Pick<FrameReading, 'challengeId' | 'requestedAt' | 'step'>[],
  challenge: LivenessChallenge,
): ChallengeFailure | null {
  const steps = challenge.steps as ChallengeStep[];
  if (frames.some((f) => f.challengeId !== challenge.id)) return { step: null, reason: 'not_for_this_challenge' };
  const issued = Date.parse(challenge.issued_at);
  const expires = Date.parse(challenge.expires_at);
  if (frames.some((f) => Date.parse(f.requestedAt) < issued || Date.parse(f.requestedAt) > expires))
    return { step: null, reason: 'expired' };
  const byTime = [...frames].sort((a, b) => Date.parse(a.requestedAt) - Date.parse(b.requestedAt));
  for (let i = 1; i < byTime.length; i++)
    if (byTime[i]!.step < byTime[i - 1]!.step) return { step: steps[byTime[i]!.step] ?? null, reason: 'out_of_order' };
  return null;
}

/** The first of the challenge's first `upTo` steps whose frames break a rule (the frontal step is the blink's baseline). */
function stepsFailure(
  frames: FrameReading[],
  challenge: LivenessChallenge,
  rules: ChallengeRules,
  upTo: number,
): ChallengeFailure | null {
  const baseline = baselineOf(frames);
  for (const [index, step] of (challenge.steps as ChallengeStep[]).slice(0, upTo).entries()) {
    const mine = frames.filter((f) => f.step === index);
    if (mine.length === 0) return { step, reason: 'missing' };
    if (mine.some((f) => f.faces > 1)) return { step, reason: 'multiple_faces' };
    if (mine.some((f) => !f.face)) return { step, reason: 'no_face' };
    if (mine.some((f) => (f.sameFace ?? 0) < rules.sameFace)) return { step, reason: 'face_changed' };
    if (!mine.some((f) => shows(step, f.face!, baseline, rules))) return { step, reason: 'move_not_seen' };
  }
  return null;
}

const completed = (verdict: Verdict, score: number, reasonCodes: string[], detail?: ChallengeFailure): CheckResult => ({
  status: 'completed',
  verdict,
  score,
  reasonCodes,
  providerTier: 'standard',
  ...(detail ? { findings: [{ code: 'LIVENESS_CHALLENGE', failed_move: detail.step, reason: detail.reason }] } : {}),
});

/**
 * liveness in active mode: a broken challenge is LIVENESS_FAILED with the failed move in the
 * check's detail (its `LIVENESS_CHALLENGE` finding); a kept one is then decided on the lowest
 * antispoof/liveness confidence over the frames, like passive mode.
 */
export function challengeDecision(
  analysis: ChallengeAnalysis,
  challenge: LivenessChallenge,
  step: FaceStep,
  rules: ChallengeRules = CHALLENGE_RULES,
): CheckResult {
  const failure = challengeFailure(analysis, challenge, rules);
  if (failure) return completed('reject', 0, ['LIVENESS_FAILED', 'LIVENESS_CHALLENGE_FAILED'], failure);
  const scores = analysis.frames.map((f) => Math.min(f.face?.real ?? 0, f.face?.live ?? 0));
  const score = Math.round(Math.min(...scores) * 1000) / 1000;
  const threshold = step.threshold ?? LIVENESS_THRESHOLD;
  if (score >= threshold) return completed('approve', score, []);
  const band = 0.4 * (step.sensitivity ?? 0.5);
  return score >= threshold - band
    ? completed('review', score, ['LIVENESS_UNCERTAIN'])
    : completed('reject', score, ['LIVENESS_FAILED'], { step: null, reason: 'spoof' });
}
