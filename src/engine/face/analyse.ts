import type { Human } from '@vladmandic/human';
import sharp from 'sharp';
import { cohortBest } from './cohort.js';
import { describeFace, matchScore, rememberPixels } from './descriptor.js';
import { faceModelsConfig, loadHuman, type FaceModels } from './human.js';
import { qualityOf, type FaceQualityIssue } from './quality.js';

export { FACE_QUALITY, type FaceQualityIssue } from './quality.js';

/** Longest side images are analysed at: enough for a passport portrait, bounded cost per image. */
const MAX_SIDE = 1280;
/**
 * A neutral border (share of the longer side) around every image: a face filling the frame (a
 * close selfie, a cropped portrait) is still found, and on the real photos' tuning set the
 * boxes, so the descriptors, were steadier with it than with a border only when no face was
 * found (docs/checks-face.md). Group photos lose some resolution to it.
 */
const BORDER = 0.25;

/** One face found on an image; plain JSON (crosses the worker boundary). */
export interface FaceReading {
  /** [x, y, width, height] in pixels of the analysed (possibly downscaled) image. */
  box: [number, number, number, number];
  score: number;
  /** face-api's 128-value descriptor (unit length) of the largest face; empty for the others. */
  embedding: number[];
  /** Distance between the eye centres of face-api's 68 landmarks, pixels of the analysed image (largest face only). */
  interEye?: number | null;
  /** Why this face is not good enough to approve a match on (empty: good). */
  quality: FaceQualityIssue[];
  age: number | null;
  /** Antispoof model: confidence the face is a real face rather than a photo or screen. */
  real: number | null;
  /** Liveness model: confidence the face is live. */
  live: number | null;
  /** Head turn left/right in degrees (0 = frontal), from the face mesh. */
  yaw: number | null;
  /** Eye openness (eyelid gap over eye width, mean of both eyes; ~0.3 open, under ~0.15 closed), from the face mesh. */
  eyes?: number | null;
  /**
   * Face height over width from rigid mesh points (between the eyes to the nose's base, over the
   * outer eye corners): a picture tilted back shortens it, a blink leaves it; from the face mesh.
   */
  aspect?: number | null;
}

export interface ImageFaces {
  /** False when the bytes are not an image we can decode. */
  readable: boolean;
  faces: FaceReading[];
}

export interface ImageFaceSummary {
  readable: boolean;
  faces: number;
  /** Quality issues of the largest face (absent on older analyses). */
  quality?: FaceQualityIssue[];
}

export interface FaceMatchAnalysis {
  document: ImageFaceSummary;
  selfie: ImageFaceSummary;
  /** Match score (0..1) of the largest face on each image (descriptor cosine, stretched); null without both faces. */
  similarity: number | null;
  /** Estimated age of the selfie's face (a signal only). */
  ageEstimate: number | null;
  /** The selfie face's embedding, for same-face searches across applicants. */
  selfieEmbedding: number[] | null;
  /** What is compared: a document's printed portrait with a selfie (absent: the check's case) or two photos. */
  pair?: 'document_selfie' | 'photos';
  /** Each face's best score against the cohort of other people (cohort.ts); absent on older analyses. */
  cohort?: { document: number | null; selfie: number | null };
}

export interface LivenessAnalysis {
  readable: boolean;
  frames: number;
  /** Faces on the frame with the most faces (one face only is a liveness rule). */
  faces: number;
  /** Lowest antispoof / liveness confidence over the frames (a spoof on any frame fails). */
  real: number | null;
  live: number | null;
  ageEstimate: number | null;
}

const round = (n: number | undefined | null, digits = 3): number | null =>
  typeof n === 'number' && Number.isFinite(n) ? Math.round(n * 10 ** digits) / 10 ** digits : null;

/** What the wasm backend offers to write a tensor's values straight into its heap. */
interface WasmHeap {
  makeOutput(shape: number[], dtype: 'int32'): { dataId: object; shape: number[]; dtype: 'int32' };
  typedArrayFromHeap(info: { dataId: object; shape: number[]; dtype: 'int32' }): Int32Array;
}

/**
 * RGB pixels (decode's, or any raw RGB buffer) as the int32 image tensor Human and the
 * descriptor take. On the wasm backend the bytes are widened straight into its heap: through
 * tf.tensor3d a bordered passport page first became a 35 MB Int32Array in JavaScript, copied
 * once more, and its garbage cost full collections.
 */
export function pixelTensor(h: Human, pixels: { data: Buffer; width: number; height: number }) {
  const bytes = new Uint8Array(pixels.data.buffer, pixels.data.byteOffset, pixels.data.length);
  const shape = [pixels.height, pixels.width, 3];
  const backend = h.tf.backend() as unknown as Partial<WasmHeap>;
  let tensor;
  if (typeof backend.makeOutput === 'function' && typeof backend.typedArrayFromHeap === 'function') {
    const info = backend.makeOutput(shape, 'int32');
    backend.typedArrayFromHeap(info).set(bytes);
    tensor = h.tf.engine().makeTensorFromTensorInfo(info as never, backend as never);
  } else tensor = h.tf.tensor3d(bytes, shape as [number, number, number], 'int32');
  rememberPixels(tensor, { data: bytes, width: pixels.width, height: pixels.height });
  return tensor;
}

/** Decodes any image sharp reads (EXIF orientation applied, downscaled, a grey border added) to RGB pixels; null when unreadable. */
export async function decode(
  bytes: Uint8Array,
): Promise<{ data: Buffer; width: number; height: number; border: number } | null> {
  try {
    const scaled = await sharp(bytes, { failOn: 'error' })
      .rotate()
      .resize(MAX_SIDE, MAX_SIDE, { fit: 'inside', withoutEnlargement: true })
      .removeAlpha()
      .toBuffer({ resolveWithObject: true });
    const border = Math.round(Math.max(scaled.info.width, scaled.info.height) * BORDER);
    const { data, info } = await sharp(scaled.data)
      .extend({ top: border, bottom: border, left: border, right: border, background: '#808080' })
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    return { data, width: info.width, height: info.height, border };
  } catch {
    return null;
  }
}

/** Mesh points of each eye: upper lid, lower lid, the two corners (MediaPipe face mesh numbering). */
const EYES = [
  [159, 145, 33, 133],
  [386, 374, 362, 263],
] as const;

/** Eyelid gap over eye width, averaged over both eyes; null without a mesh. */
function eyeOpenness(mesh: number[][] | undefined): number | null {
  if (!mesh || mesh.length < 468) return null;
  const dist = (a: number, b: number) => Math.hypot(mesh[a]![0]! - mesh[b]![0]!, mesh[a]![1]! - mesh[b]![1]!);
  const ratios = EYES.map(([up, down, left, right]) => dist(up, down) / Math.max(1e-6, dist(left, right)));
  return round((ratios[0]! + ratios[1]!) / 2);
}

/** Mesh points of `aspect`: between the eyes, the nose's base, the outer eye corners. */
const ASPECT = { top: 168, bottom: 2, left: 33, right: 263 } as const;

function faceAspect(mesh: number[][] | undefined): number | null {
  if (!mesh || mesh.length < 468) return null;
  const dist = (a: number, b: number) => Math.hypot(mesh[a]![0]! - mesh[b]![0]!, mesh[a]![1]! - mesh[b]![1]!);
  return round(dist(ASPECT.top, ASPECT.bottom) / Math.max(1e-6, dist(ASPECT.left, ASPECT.right)));
}

/**
 * Every face on an image with its age, antispoof and liveness scores, largest first; the largest
 * with its descriptor and quality. `models: 'portrait'` leaves out Human's age, antispoof and
 * liveness (null in the reading): the faces, boxes and descriptors are the same.
 */
export async function readFaces(bytes: Uint8Array, human?: Human, models: FaceModels = 'all'): Promise<ImageFaces> {
  const h = human ?? (await loadHuman());
  const pixels = await decode(bytes);
  if (!pixels) return { readable: false, faces: [] };
  const tensor = pixelTensor(h, pixels);
  try {
    const result = await h.detect(tensor as never, faceModelsConfig(models) as never);
    // Human describes every face it keeps (its description model on), so the filter only applies then.
    const found = result.face
      .filter((f) => models === 'portrait' || (Array.isArray(f.embedding) && f.embedding.length > 0))
      .sort((a, b) => b.box[2] * b.box[3] - a.box[2] * a.box[3]);
    const faces: FaceReading[] = [];
    for (const [index, f] of found.entries()) {
      const described = index === 0 ? await describeFace(h, tensor as never, f.box) : null;
      const embedding = described?.descriptor ?? [];
      const [x, y, w, hh] = f.box;
      const reading = {
        box: [
          Math.round(x - pixels.border),
          Math.round(y - pixels.border),
          Math.round(w),
          Math.round(hh),
        ] as FaceReading['box'],
        score: round(f.score) ?? 0,
        embedding,
        age: round(f.age, 1),
        real: round(f.real),
        live: round(f.live),
        yaw: round(((f.rotation?.angle.yaw ?? NaN) * 180) / Math.PI, 1),
        eyes: eyeOpenness(f.mesh as number[][] | undefined),
        aspect: faceAspect(f.mesh as number[][] | undefined),
        ...(index === 0 ? { interEye: described?.interEye ?? null } : {}),
      };
      faces.push({ ...reading, quality: index === 0 ? qualityOf(reading, embedding.length > 0) : [] });
    }
    return { readable: true, faces };
  } finally {
    h.tf.dispose(tensor as never);
  }
}

/** Match score (0..1) of two face descriptors (descriptor.ts: cosine, stretched). */
export async function similarityOf(a: number[], b: number[]): Promise<number> {
  return matchScore(a, b);
}

/** Face match: the portrait on the document against the selfie (the largest face on each). */
export async function analyseFaceMatch(input: {
  document: Uint8Array;
  selfie: Uint8Array;
}): Promise<FaceMatchAnalysis> {
  const human = await loadHuman();
  const document = await readFaces(input.document, human, 'portrait');
  return faceMatchOf(document, await readFaces(input.selfie, human));
}

/** Face match from the faces read on each image (readFaces): plain JSON in and out, any thread. */
export function faceMatchOf(document: ImageFaces, selfie: ImageFaces): FaceMatchAnalysis {
  const docFace = document.faces[0];
  const selfieFace = selfie.faces[0];
  return {
    document: {
      readable: document.readable,
      faces: document.faces.length,
      ...(docFace ? { quality: docFace.quality } : {}),
    },
    selfie: {
      readable: selfie.readable,
      faces: selfie.faces.length,
      ...(selfieFace ? { quality: selfieFace.quality } : {}),
    },
    similarity: docFace && selfieFace ? matchScore(docFace.embedding, selfieFace.embedding) : null,
    ageEstimate: selfieFace?.age ?? null,
    selfieEmbedding: selfieFace?.embedding.length ? selfieFace.embedding : null,
    cohort: {
      document: docFace ? cohortBest(docFace.embedding) : null,
      selfie: selfieFace ? cohortBest(selfieFace.embedding) : null,
    },
  };
}

/** Passive liveness over a selfie (or a few frames): antispoof and liveness models, faces counted. */
export async function analyseLiveness(input: { frames: Uint8Array[] }): Promise<LivenessAnalysis> {
  const human = await loadHuman();
  const readings = [];
  for (const frame of input.frames) readings.push(await readFaces(frame, human));
  return livenessOf(readings);
}

/** Passive liveness from the faces read on each frame (readFaces): plain JSON in and out, any thread. */
export function livenessOf(readings: ImageFaces[]): LivenessAnalysis {
  const readable = readings.length > 0 && readings.every((r) => r.readable);
  const main = readings.map((r) => r.faces[0]).filter((f): f is FaceReading => !!f);
  const lowest = (pick: (f: FaceReading) => number | null) => {
    const values = main.map(pick).filter((v): v is number => v !== null);
    return values.length === main.length && values.length > 0 ? Math.min(...values) : null;
  };
  return {
    readable,
    frames: readings.length,
    faces: readings.length ? Math.max(...readings.map((r) => r.faces.length)) : 0,
    real: main.length === readings.length ? lowest((f) => f.real) : null,
    live: main.length === readings.length ? lowest((f) => f.live) : null,
    ageEstimate: main[0]?.age ?? null,
  };
}
