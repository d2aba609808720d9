export type { FaceMatchAnalysis, FaceReading, ImageFaces, LivenessAnalysis } from './analyse.js';
export { faceMatchDecision, livenessDecision, ageEstimateDecision } from './decide.js';
