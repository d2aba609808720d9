/**
 * Quality rules a face must meet for face_match to approve on it. Size, turn and detector
 * confidence were chosen on the tuning set; the landmark rule is a sanity bound, below every
 * real face's eye distance over its box except a landmark reading that failed (a hand over the
 * face: docs/checks-face.md, third round).
 */
export const FACE_QUALITY = { minSide: 64, maxYaw: 30, minScore: 0.6, minEyesToBox: 0.18 } as const;
export type FaceQualityIssue = 'small' | 'turned' | 'uncertain' | 'no_descriptor';

/** What the quality rules read of a face: Human's box (pixels), detector score, yaw (degrees), landmark eye distance (pixels). */
export interface FaceGeometry {
  box: number[];
  score: number;
  yaw: number | null;
  interEye?: number | null;
}

/**
 * What keeps a face from approving a match: too small, turned away, a doubtful reading (the
 * detector unsure, or the landmarks the chip is aligned on disagreeing with the detector's box),
 * no descriptor.
 */
export function qualityOf(face: FaceGeometry, described: boolean): FaceQualityIssue[] {
  const issues: FaceQualityIssue[] = [];
  const side = Math.min(face.box[2]!, face.box[3]!);
  if (side < FACE_QUALITY.minSide) issues.push('small');
  if (face.yaw === null || Math.abs(face.yaw) > FACE_QUALITY.maxYaw) issues.push('turned');
  const landmarksOff = typeof face.interEye === 'number' && face.interEye < FACE_QUALITY.minEyesToBox * side;
  if (face.score < FACE_QUALITY.minScore || landmarksOff) issues.push('uncertain');
  if (!described) issues.push('no_descriptor');
  return issues;
}
