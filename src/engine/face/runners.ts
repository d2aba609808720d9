import type { EnginePool } from '../pool/index.js';
import { imageAnalysisUnavailable, sandboxImageResult } from '../sandbox.js';
import { type CheckImages, type CheckInput, type CheckResult, type CheckRunner, result } from '../types.js';
import { faceMatchOf, livenessOf, type ImageFaces } from './analyse.js';
import type { FaceModels } from './human.js';
import { challengeDecision } from './challenge.js';
import { ageEstimateDecision, faceMatchDecision, livenessDecision } from './decide.js';
import { ffmpegPath, videoDecision } from './video.js';

/**
 * The faces on each image of one session, read in the pool once: face_match, passive liveness
 * and the age estimate share the selfie's reading (the same bytes object: a run loads the
 * session's images once), and face_match's two images are read at once when the pool has room.
 * The document's portrait is read without Human's age, antispoof and liveness models, which
 * nothing asks of it; a full reading of the same image, when there is one, serves it too.
 */
export class SessionFaces {
  private readonly reads = new Map<Uint8Array, Partial<Record<FaceModels, Promise<ImageFaces>>>>();

  constructor(private readonly engine: EnginePool) {}

  read(image: Uint8Array, models: FaceModels = 'all'): Promise<ImageFaces> {
    let readings = this.reads.get(image);
    if (!readings) this.reads.set(image, (readings = {}));
    const known = readings.all ?? readings[models];
    if (known) return known;
    const reading = this.engine.run('face.read', models === 'all' ? { image } : { image, models });
    readings[models] = reading;
    // A failed reading is not kept: the check that asks next tries again.
    reading.catch(() => {
      if (readings[models] === reading) delete readings[models];
    });
    return reading;
  }

  /** Starts reading what face_match needs, so that it runs beside the document's analysis when the pool has room. */
  warm(images: CheckImages): void {
    if (!images.document_front || !images.selfie) return;
    faceMatchReadings(this, images.document_front, images.selfie).catch(() => undefined);
  }
}

/** face_match's readings: the document's portrait and the selfie. */
const faceMatchReadings = (faces: NonNullable<CheckInput['faces']>, document: Uint8Array, selfie: Uint8Array) =>
  Promise.all([faces.read(document, 'portrait'), faces.read(selfie)]);

const facesOf = (input: CheckInput) => input.faces ?? new SessionFaces(input.engine!);

/** A session with a video but no selfie: frames are not extracted, a human looks. */
const videoOnly = (): CheckResult => result('review', 0, ['VIDEO_ANALYSIS_UNAVAILABLE']);

/** face_match: the document's portrait against the selfie, in the worker pool; sandbox simulates. */
export const faceMatchRunner: CheckRunner = {
  type: 'face_match',
  needsImages: true,
  async run(input: CheckInput): Promise<CheckResult> {
    if (input.sandbox) return sandboxImageResult();
    if (!input.engine) return imageAnalysisUnavailable();
    const images = input.images ?? {};
    if (!images.selfie && images.video) return videoOnly();
    if (!images.document_front || !images.selfie) return result('review', 0, ['IMAGE_MISSING']);
    const faces = facesOf(input);
    const [document, selfie] = await faceMatchReadings(faces, images.document_front, images.selfie);
    const analysis = faceMatchOf(document, selfie);
    const decided = faceMatchDecision(analysis, input.check);
    return analysis.selfieEmbedding ? { ...decided, faceEmbedding: analysis.selfieEmbedding } : decided;
  },
};

/**
 * liveness: active (the session's challenge, verified on its frames) in a hosted session, or
 * when a challenge was asked for, unless the step says `mode: passive` (a hosted session that
 * never took its challenge fails); otherwise passive (antispoof and
 * liveness models on the selfie frames, one face only), the only mode for key-API uploads; a
 * key-API session with a video and no selfie has the video decoded and checked for continuity,
 * motion and the passive models (video.ts).
 */
export const livenessRunner: CheckRunner = {
  type: 'liveness',
  needsImages: true,
  async run(input: CheckInput): Promise<CheckResult> {
    if (input.sandbox) return sandboxImageResult();
    if (!input.engine) return imageAnalysisUnavailable();
    const images = input.images ?? {};
    const challenge = input.identity.liveness_challenge;
    const mode = (input.check.config as { mode?: string } | undefined)?.mode;
    if (mode !== 'passive' && (challenge || images.challengeFrames?.length || input.hosted)) {
      if (!challenge) return images.challengeFrames?.length ? challengeDecisionWithout() : challengeNotTaken();
      const analysis = await input.engine.run('face.challenge', {
        frames: images.challengeFrames ?? [],
        selfie: images.selfie,
        challenge,
      });
      return challengeDecision(analysis, challenge, input.check);
    }
    const frames = images.liveness ?? (images.selfie ? [images.selfie] : []);
    if (frames.length === 0) {
      if (!images.video) return result('review', 0, ['IMAGE_MISSING']);
      // An API video: decoded on the server where the decoder is installed (engine/face/video.ts).
      if (!images.videoBytes || !ffmpegPath()) return videoOnly();
      return videoDecision(await input.engine.run('face.video', { video: images.videoBytes }), input.check);
    }
    const faces = facesOf(input);
    return livenessDecision(livenessOf(await Promise.all(frames.map((frame) => faces.read(frame)))), input.check);
  },
};

/** Challenge frames but no challenge issued for this session: they were not captured for it. */
const challengeDecisionWithout = (): CheckResult => ({
  ...result('reject', 0, ['LIVENESS_FAILED', 'LIVENESS_CHALLENGE_FAILED']),
  findings: [{ code: 'LIVENESS_CHALLENGE', failed_move: null, reason: 'not_for_this_challenge' }],
});

/**
 * A hosted session whose liveness step is active but no challenge was ever asked for (a client
 * that skipped the prompts, or sent a clip instead): the challenge was not completed.
 */
const challengeNotTaken = (): CheckResult => ({
  ...result('reject', 0, ['LIVENESS_FAILED', 'LIVENESS_CHALLENGE_FAILED']),
  findings: [{ code: 'LIVENESS_CHALLENGE', failed_move: null, reason: 'challenge_not_taken' }],
});

/** The age estimate from the selfie, for the age check when no date of birth was read: review only. */
export function canEstimateAge(input: CheckInput): boolean {
  return !input.sandbox && !!input.images?.selfie && !!input.engine;
}

export async function ageFromFace(input: CheckInput): Promise<CheckResult> {
  const read = await facesOf(input).read(input.images!.selfie!);
  return ageEstimateDecision(read.faces[0]?.age ?? null, input.check.config as never);
}
