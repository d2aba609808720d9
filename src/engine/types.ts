// The engine's own input and output types. The engine imports no service and no entity: the
// checks domain (services/checks) maps a verification and its check rows to these, and saves
// what comes back.
import type { ImageFaces } from './face/analyse.js';
import type { EnginePool } from './pool/index.js';

/** A check's verdict (a verification's too). */
export type Verdict = 'approve' | 'reject' | 'review';

/** The sandbox simulation a create asked for (decisions.md): the outcome forced onto one check. */
export interface SandboxInput {
  outcome: 'approved' | 'rejected' | 'review' | 'pending';
  reason_codes?: string[];
}

/** The flow's rules the checks read, as frozen on the session at create (its steps are the checks). */
export interface FlowSnapshot {
  sensitivity?: number | null;
  acceptedDocumentTypes: string[];
  expiryPolicy?: Record<string, unknown> | null;
  policyTree?: Record<string, unknown> | null;
}

/** The check a runner runs: its type and its step's options. */
export interface CheckSpec {
  type: string;
  config: Record<string, unknown>;
  sensitivity?: number | null;
  threshold?: number | null;
}

/** What the document check read (off the images in live, the sandbox `document` in sandbox). */
export interface DocumentRead {
  number?: string;
  national_id?: string;
  type?: string;
  issuing_country?: string;
  date_of_birth?: string;
  expiry_date?: string;
  first_name?: string;
  last_name?: string;
  nationality?: string;
  sex?: string;
  /** A postal address (a driving licence's barcode carries one; a team member may type one). */
  address?: string;
  /** The machine-readable zone's own reading, when the document has one (`zone_date_of_birth`: the zone's century, where print moved it). */
  mrz?: { document_number?: string; date_of_birth?: string; zone_date_of_birth?: string };
}

/** The decrypted identity of a session. */
export interface Identity {
  email?: string;
  /** Set when the applicant confirmed `email` with the one-time code of the hosted page's email step. */
  email_confirmed?: boolean;
  /** The hosted page's open email challenge (address, code hash, attempts); gone once confirmed. */
  email_challenge?: EmailChallenge;
  /** The hosted page's current liveness challenge (active mode): one use, replaced when a new one is issued. */
  liveness_challenge?: LivenessChallenge;
  reference_id?: string;
  document?: DocumentRead;
  fields?: Record<string, string>;
}

export interface LivenessChallenge {
  id: string;
  /** 'face_camera' then the moves in the order asked (engine/face/challenge.ts). */
  steps: string[];
  issued_at: string;
  expires_at: string;
}

export interface EmailChallenge {
  email: string;
  code_hash: string;
  expires_at: string;
  attempts: number;
  sends: number;
  last_sent_at: string;
}

/** The session's captured images (live sessions; loaded once, outside any transaction). */
export interface CheckImages {
  document_front?: Buffer;
  document_back?: Buffer;
  selfie?: Buffer;
  /** Selfie frames for passive liveness (every selfie upload, oldest first). */
  liveness?: Buffer[];
  /** A video was captured. */
  video?: boolean;
  /** The latest video's bytes (the API video path decodes them: engine/face/video.ts). */
  videoBytes?: Buffer;
  /** Frames the hosted page captured for a liveness challenge (uploads bound to one), oldest first. */
  challengeFrames?: { challengeId: string | null; step: number; requestedAt: string; bytes: Buffer }[];
}

export interface CheckInput {
  check: CheckSpec;
  snapshot: FlowSnapshot;
  identity: Identity;
  sandbox: SandboxInput | null;
  now: Date;
  images?: CheckImages;
  /** The worker pool analyses run in (absent: the runner cannot analyse images). */
  engine?: EnginePool;
  /** The faces on each of the session's images, read once and shared by its checks (face/runners.ts SessionFaces). */
  faces?: { read(image: Uint8Array, models?: 'all' | 'portrait'): Promise<ImageFaces> };
  /**
   * The applicant worked the session on the hosted page (its consent is recorded there):
   * liveness is active unless the step says passive, so a missing challenge fails.
   */
  hosted?: boolean;
}

/** What a check found on one image, stored on its upload and served as evidence (never identity). */
export interface EvidenceAnalysis {
  kind: 'document' | 'selfie';
  side?: 'front' | 'back';
  analysis: Record<string, unknown>;
}

/** One runner per check type behind one interface. */
export interface CheckResult {
  status: 'completed' | 'skipped' | 'errored';
  verdict: Verdict | null;
  score: number | null;
  reasonCodes: string[];
  providerTier: string;
  /** What the check found (an AML hit, a fraud-network signal): JSON, ids and scores, never identity. */
  findings?: Finding[];
  /** What the document check read off the images: sealed into the identity so R4/R7, expiry and age run on it. */
  document?: DocumentRead;
  evidence?: EvidenceAnalysis[];
  /** face_match (live): the selfie face's embedding; joins the face networks when saved, never stored on the check. */
  faceEmbedding?: number[];
}

/** One finding of a check; `code` is the policy tree's finding code (its `findings` map keys). */
export interface Finding {
  code: string;
  [detail: string]: unknown;
}

export interface CheckRunner {
  type: string;
  /** Live runs load the session's images first (read outside the transaction). */
  needsImages?: boolean;
  run(input: CheckInput): Promise<CheckResult> | CheckResult;
}

export const result = (
  verdict: Verdict,
  score: number,
  reasonCodes: string[] = [],
  providerTier = 'standard',
): CheckResult => ({
  status: 'completed',
  verdict,
  score,
  reasonCodes,
  providerTier,
});
