import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { LivenessChallenge } from '../types.js';
import { readFaces, type FaceReading } from './analyse.js';
import {
  CHALLENGE_RULES,
  baselineOf,
  challengeAnalysisOf,
  challengeDecision,
  challengeFailure,
  shows,
  type ChallengeRules,
  type ChallengeStep,
} from './challenge.js';
import { loadHuman } from './human.js';
import { movedPhoto, printedPhoto, screenPhoto, type FlatPose } from './liveness-attacks.js';

/**
 * Presentation-attack detection measured in ISO/IEC 30107-3 terms (issue 28): bona fide
 * challenge sequences from real clips of real people (test/engine/liveness), attack sequences
 * made from the same people's frames, each decided by the active challenge exactly as a live
 * session is (challengeDecision). APCER per attack type: the share of attack sequences approved;
 * BPCER: the share of bona fide sequences not approved.
 */

export const STEPS = ['face_camera', 'turn_left', 'turn_right', 'blink'] as const;
export const ATTACKS = ['printed_photo', 'screen_photo', 'still_image', 'other_person_video', 'moved_photo'] as const;
export type Attack = (typeof ATTACKS)[number];

interface ManifestClip {
  clip: string;
  frames: { file: string; time: number; sha256: string }[];
}

export interface Clip {
  clip: string;
  selfie: Buffer;
  /** The page's three frames per step (0.4 s apart), at the clip's moment of that move. */
  steps: Record<(typeof STEPS)[number], Buffer[]>;
}

export const CORPUS_DIR = path.join(process.cwd(), 'test/engine/liveness');

/** The split frozen before tuning: clips ordered by sha256("issue-28-liveness:" + clip), every other one held out. */
export function splitClips(names: string[]): { tuning: string[]; heldOut: string[] } {
  const key = (n: string) => createHash('sha256').update(`issue-28-liveness:${n}`).digest('hex');
  const ordered = [...names].sort((a, b) => key(a).localeCompare(key(b)));
  return {
    heldOut: ordered.filter((_, i) => i % 2 === 0),
    tuning: ordered.filter((_, i) => i % 2 === 1),
  };
}

export async function loadClips(dir = CORPUS_DIR): Promise<Clip[]> {
  const manifest = JSON.parse(await readFile(path.join(dir, 'manifest.json'), 'utf8')) as { clips: ManifestClip[] };
  const clips: Clip[] = [];
  for (const c of manifest.clips) {
    const file = async (name: string) => {
      const entry = c.frames.find((f) => f.file === `${c.clip}/${name}.jpg`);
      if (!entry) throw new Error(`manifest: ${c.clip}/${name}.jpg missing`);
      const bytes = await readFile(path.join(dir, 'clips', entry.file));
      const sha = createHash('sha256').update(bytes).digest('hex');
      if (sha !== entry.sha256) throw new Error(`${entry.file}: sha256 differs from the manifest`);
      return bytes;
    };
    const steps = {} as Clip['steps'];
    for (const step of STEPS) steps[step] = [await file(`${step}-0`), await file(`${step}-2`), await file(`${step}-4`)];
    clips.push({ clip: c.clip, selfie: await file('selfie'), steps });
  }
  return clips;
}

/** A sequence as the server receives it: frames per step of the challenge, and the session's selfie. */
export interface Sequence {
  clip: string;
  kind: 'bona_fide' | Attack;
  selfie: Buffer;
  frames: Record<ChallengeStep, Buffer[]>;
}

const ALL = (b: Buffer) => ({ face_camera: [b], turn_left: [b], turn_right: [b], blink: [b] });

/** Every attack of `kind` against `clip` (the right person's selfie is the session's). */
export async function attackSequence(kind: Attack, clip: Clip, others: Clip[], seed: number): Promise<Sequence> {
  const photo = clip.steps.face_camera[1]!;
  const base = { clip: clip.clip, kind, selfie: clip.selfie } as const;
  const held = async (make: typeof printedPhoto) => {
    // Held by hand: a slightly different pose for each prompt, the attacker tilting it a little.
    const poses: FlatPose[] = [{ yawDeg: 3 }, { yawDeg: -20, dx: -6 }, { yawDeg: 20, dx: 6 }, { pitchDeg: 25 }];
    const frames = await Promise.all(poses.map((p, i) => make(photo, p, seed * 10 + i)));
    return { face_camera: [frames[0]!], turn_left: [frames[1]!], turn_right: [frames[2]!], blink: [frames[3]!] };
  };
  switch (kind) {
    case 'printed_photo':
      return { ...base, frames: await held(printedPhoto) };
    case 'screen_photo':
      return { ...base, frames: await held(screenPhoto) };
    case 'still_image':
      return { ...base, frames: ALL(photo) };
    case 'other_person_video': {
      // The strongest replay: another real person's clip whose moves happen to follow the prompts.
      const other = others[seed % others.length]!;
      return { ...base, frames: { ...other.steps } };
    }
    case 'moved_photo': {
      // The right person's photo turned both ways (the attacker does not know the yaw's sign) and tilted back for the blink.
      const m = (p: FlatPose, i: number) => movedPhoto(photo, p, seed * 10 + i);
      return {
        ...base,
        frames: {
          face_camera: [await m({ dx: 8, dy: -4, rollDeg: 3 }, 0)],
          turn_left: [await m({ yawDeg: -35 }, 1), await m({ yawDeg: 35 }, 2), await m({ yawDeg: -55, fill: 0.9 }, 3)],
          turn_right: [await m({ yawDeg: 35 }, 4), await m({ yawDeg: -35 }, 5), await m({ yawDeg: 55, fill: 0.9 }, 6)],
          blink: [await m({ pitchDeg: 45 }, 7), await m({ pitchDeg: 60, rollDeg: -4 }, 8)],
        },
      };
    }
  }
}

export function bonaFideSequence(clip: Clip): Sequence {
  return { clip: clip.clip, kind: 'bona_fide', selfie: clip.selfie, frames: { ...clip.steps } };
}

/** Reads each distinct image once (by sha256): the eval's cost is the distinct frames. */
export class FaceCache {
  private readonly cache = new Map<string, Promise<FaceReading[]>>();
  reads = 0;
  read(bytes: Buffer): Promise<FaceReading[]> {
    const key = createHash('sha256').update(bytes).digest('hex');
    let hit = this.cache.get(key);
    if (!hit) {
      this.reads += 1;
      hit = loadHuman().then(async (human) => (await readFaces(bytes, human)).faces);
      this.cache.set(key, hit);
    }
    return hit;
  }
}

/** A challenge in one of the six orders (by `seed`), issued now. */
export function fixedChallenge(seed: number): LivenessChallenge {
  const orders: ChallengeStep[][] = [
    ['turn_left', 'turn_right', 'blink'],
    ['turn_left', 'blink', 'turn_right'],
    ['turn_right', 'turn_left', 'blink'],
    ['turn_right', 'blink', 'turn_left'],
    ['blink', 'turn_left', 'turn_right'],
    ['blink', 'turn_right', 'turn_left'],
  ];
  const now = Date.now();
  return {
    id: `lch_eval${seed}`,
    steps: ['face_camera', ...orders[seed % 6]!],
    issued_at: new Date(now - 60_000).toISOString(),
    expires_at: new Date(now + 240_000).toISOString(),
  };
}

export interface SequenceOutcome {
  clip: string;
  kind: Sequence['kind'];
  verdict: 'approve' | 'review' | 'reject';
  /** The challenge rule broken (null: kept), or 'spoof' when the passive models rejected it. */
  failure: string | null;
  score: number;
  /** Per step: whether any of its frames shows the move (the rules alone, order and binding aside). */
  moves: Record<ChallengeStep, boolean>;
}

/** One sequence through the active challenge's decision, as the hosted session is decided. */
export async function decideSequence(
  sequence: Sequence,
  cache: FaceCache,
  seed: number,
  rules: ChallengeRules = CHALLENGE_RULES,
): Promise<SequenceOutcome> {
  const challenge = fixedChallenge(seed);
  const issued = Date.parse(challenge.issued_at);
  const read = [];
  let t = 0;
  for (const [index, step] of (challenge.steps as ChallengeStep[]).entries())
    for (const bytes of sequence.frames[step]) {
      t += 1;
      read.push({
        frame: { challengeId: challenge.id, step: index, requestedAt: new Date(issued + t * 1000).toISOString() },
        faces: await cache.read(bytes),
      });
    }
  const selfie = (await cache.read(sequence.selfie))[0];
  const analysis = challengeAnalysisOf(read, selfie);
  const failure = challengeFailure(analysis, challenge, rules);
  const decided = challengeDecision(analysis, challenge, {}, rules);
  const baseline = baselineOf(analysis.frames);
  const moves = {} as Record<ChallengeStep, boolean>;
  for (const [index, step] of (challenge.steps as ChallengeStep[]).entries())
    moves[step] = analysis.frames.some((f) => f.step === index && f.face && shows(step, f.face, baseline, rules));
  return {
    moves,
    clip: sequence.clip,
    kind: sequence.kind,
    verdict: decided.verdict as SequenceOutcome['verdict'],
    failure: failure ? `${failure.step ?? '-'}:${failure.reason}` : decided.verdict === 'reject' ? 'spoof' : null,
    score: decided.score ?? 0,
  };
}
