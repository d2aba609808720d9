import type { Human } from '@vladmandic/human';
import sharp from 'sharp';
import { loadHuman } from './human.js';

/** Longest side images are analysed at: enough for a passport portrait, bounded cost per image. */
const MAX_SIDE = 1280;

/** One face found on an image; plain JSON (crosses the worker boundary). */
export interface FaceReading {
  /** [x, y, width, height] in pixels of the analysed (possibly downscaled) image. */
  box: [number, number, number, number];
  score: number;
  embedding: number[];
  age: number | null;
  /** Antispoof model: confidence the face is a real face rather than a photo or screen. */
  real: number | null;
  /** Liveness model: confidence the face is live. */
  live: number | null;
  /** Head turn left/right in degrees (0 = frontal), from the face mesh. */
  yaw: number | null;
}

export interface ImageFaces {
  /** False when the bytes are not an image we can decode. */
  readable: boolean;
  faces: FaceReading[];
}

export interface FaceMatchAnalysis {
  document: { readable: boolean; faces: number };
  selfie: { readable: boolean; faces: number };
  /** Human's normalised similarity (0..1) of the largest face on each image; null without both faces. */
  similarity: number | null;
  /** Estimated age of the selfie's face (a signal only). */
  ageEstimate: number | null;
  /** The selfie face's embedding, for same-face searches across applicants. */
  selfieEmbedding: number[] | null;
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

const round = (n: number | undefined | null, digits = 3): number | null => (typeof n === 'number' && Number.isFinite(n) ? Math.round(n * 10 ** digits) / 10 ** digits : null);

/** Decodes any image sharp reads (EXIF orientation applied, downscaled) to RGB pixels; null when unreadable. */
async function decode(bytes: Uint8Array): Promise<{ data: Buffer; width: number; height: number } | null> {
  try {
    const { data, info } = await sharp(bytes, { failOn: 'error' })
      .rotate()
      .resize(MAX_SIDE, MAX_SIDE, { fit: 'inside', withoutEnlargement: true })
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    return { data, width: info.width, height: info.height };
  } catch {
    return null;
  }
}

/** Every face on an image with its embedding, age, antispoof and liveness scores; largest first. */
export async function readFaces(bytes: Uint8Array, human?: Human): Promise<ImageFaces> {
  const pixels = await decode(bytes);
  if (!pixels) return { readable: false, faces: [] };
  const h = human ?? (await loadHuman());
  const tensor = h.tf.tensor3d(new Uint8Array(pixels.data.buffer, pixels.data.byteOffset, pixels.data.length), [pixels.height, pixels.width, 3], 'int32');
  try {
    const result = await h.detect(tensor as never);
    const faces = result.face
      .filter((f) => Array.isArray(f.embedding) && f.embedding.length > 0)
      .map((f) => ({
        box: f.box.map((n) => Math.round(n)) as FaceReading['box'],
        score: round(f.score) ?? 0,
        embedding: Array.from(f.embedding ?? []),
        age: round(f.age, 1),
        real: round(f.real),
        live: round(f.live),
        yaw: round(((f.rotation?.angle.yaw ?? NaN) * 180) / Math.PI, 1),
      }))
      .sort((a, b) => b.box[2] * b.box[3] - a.box[2] * a.box[3]);
    return { readable: true, faces };
  } finally {
    h.tf.dispose(tensor as never);
  }
}

/** Normalised similarity (0..1) of two embeddings with Human's own scale (above ~0.5 it calls a match). */
export async function similarityOf(a: number[], b: number[], human?: Human): Promise<number> {
  const h = human ?? (await loadHuman());
  return round(h.match.similarity(a, b)) ?? 0;
}

/** Face match: the portrait on the document against the selfie (the largest face on each). */
export async function analyseFaceMatch(input: { document: Uint8Array; selfie: Uint8Array }): Promise<FaceMatchAnalysis> {
  const human = await loadHuman();
  const document = await readFaces(input.document, human);
  const selfie = await readFaces(input.selfie, human);
  const docFace = document.faces[0];
  const selfieFace = selfie.faces[0];
  return {
    document: { readable: document.readable, faces: document.faces.length },
    selfie: { readable: selfie.readable, faces: selfie.faces.length },
    similarity: docFace && selfieFace ? await similarityOf(docFace.embedding, selfieFace.embedding, human) : null,
    ageEstimate: selfieFace?.age ?? null,
    selfieEmbedding: selfieFace?.embedding ?? null,
  };
}

/** Passive liveness over a selfie (or a few frames): antispoof and liveness models, faces counted. */
export async function analyseLiveness(input: { frames: Uint8Array[] }): Promise<LivenessAnalysis> {
  const human = await loadHuman();
  const readings = [];
  for (const frame of input.frames) readings.push(await readFaces(frame, human));
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
