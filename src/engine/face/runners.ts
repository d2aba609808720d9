import { imageAnalysisUnavailable, sandboxImageResult } from '../sandbox.js';
import { type CheckInput, type CheckResult, type CheckRunner, result } from '../types.js';
import { ageEstimateDecision, faceMatchDecision, livenessDecision } from './decide.js';

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
    const analysis = await input.engine.run('face.match', { document: images.document_front, selfie: images.selfie });
    const decided = faceMatchDecision(analysis, input.check);
    return analysis.selfieEmbedding ? { ...decided, faceEmbedding: analysis.selfieEmbedding } : decided;
  },
};

/** liveness: passive antispoof and liveness models on the selfie frames, one face only. */
export const livenessRunner: CheckRunner = {
  type: 'liveness',
  needsImages: true,
  async run(input: CheckInput): Promise<CheckResult> {
    if (input.sandbox) return sandboxImageResult();
    if (!input.engine) return imageAnalysisUnavailable();
    const images = input.images ?? {};
    const frames = images.liveness ?? (images.selfie ? [images.selfie] : []);
    if (frames.length === 0) return images.video ? videoOnly() : result('review', 0, ['IMAGE_MISSING']);
    const analysis = await input.engine.run('face.liveness', { frames });
    return livenessDecision(analysis, input.check);
  },
};

/** The age estimate from the selfie, for the age check when no date of birth was read: review only. */
export function canEstimateAge(input: CheckInput): boolean {
  return !input.sandbox && !!input.images?.selfie && !!input.engine;
}

export async function ageFromFace(input: CheckInput): Promise<CheckResult> {
  const read = await input.engine!.run('face.read', { image: input.images!.selfie! });
  return ageEstimateDecision(read.faces[0]?.age ?? null, input.check.config as never);
}
