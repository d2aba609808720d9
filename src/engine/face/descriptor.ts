import { createRequire } from 'node:module';
import path from 'node:path';
import type { Human } from '@vladmandic/human';

const require = createRequire(import.meta.url);

/**
 * The face descriptor face_match compares: the 128-value descriptor of `@vladmandic/face-api`
 * (a port of dlib's ResNet face recognition model, which its author released into the public
 * domain; the port and its weights are MIT), computed on the face Human found. Human's own
 * `faceres` embedding is an age/gender network's pooled features and separates people less
 * well on real photos (docs/checks-face.md has the comparison). The weights ship inside the npm
 * package and are read from disk.
 */
const modelDir = path.join(path.dirname(require.resolve('@vladmandic/face-api/package.json')), 'model');

/** How much of Human's face box is handed to the landmark model (chosen on the tuning set). */
const CROP_SCALE = 0.85;

type FaceApi = typeof import('@vladmandic/face-api');
type Tensor3D = Parameters<Human['tf']['slice']>[0];

let loading: Promise<FaceApi> | null = null;

/** face-api's landmark (68 points) and recognition models, once per thread, on the tfjs instance Human set up. */
function loadFaceApi(): Promise<FaceApi> {
  loading ??= (async () => {
    const faceapi = require('@vladmandic/face-api/dist/face-api.node-wasm.js') as FaceApi;
    await faceapi.nets.faceLandmark68Net.loadFromDisk(modelDir);
    await faceapi.nets.faceRecognitionNet.loadFromDisk(modelDir);
    return faceapi;
  })().catch((error) => {
    loading = null;
    throw error;
  });
  return loading;
}

/**
 * The descriptor (unit length) of the face in `box` ([x, y, w, h] in the tensor's pixels):
 * the box's square crop, face-api's landmarks on it, its alignment box, then the descriptor
 * (of the face and its mirror image, averaged).
 */
export async function describeFace(
  human: Human,
  image: Tensor3D,
  box: [number, number, number, number],
): Promise<number[] | null> {
  const faceapi = await loadFaceApi();
  const tf = human.tf;
  const [height, width] = (image as unknown as { shape: number[] }).shape as [number, number];
  const [x, y, w, h] = box;
  const side = Math.max(w, h) * CROP_SCALE;
  const left = Math.max(0, Math.round(x + w / 2 - side / 2));
  const top = Math.max(0, Math.round(y + h / 2 - side / 2));
  const cropWidth = Math.min(width - left, Math.round(side));
  const cropHeight = Math.min(height - top, Math.round(side));
  if (cropWidth < 16 || cropHeight < 16) return null;
  const crop = tf.slice(image, [top, left, 0], [cropHeight, cropWidth, 3]);
  try {
    const landmarks = await faceapi.detectFaceLandmarks(crop as never);
    if (!landmarks || Array.isArray(landmarks)) return null;
    const [face] = await faceapi.extractFaceTensors(crop as never, [landmarks.align()]);
    // The descriptor of the face and of its mirror image, averaged: steadier under pose and lighting (chosen on the tuning set).
    const mirrored = tf.reverse(face as never, 1);
    try {
      const descriptor = Array.from((await faceapi.computeFaceDescriptor(face as never)) as Float32Array);
      const other = (await faceapi.computeFaceDescriptor(mirrored as never)) as Float32Array;
      for (let i = 0; i < descriptor.length; i++) descriptor[i] = (descriptor[i]! + other[i]!) / 2;
      const norm = Math.hypot(...descriptor);
      return norm > 0 ? descriptor.map((v) => Math.round((v / norm) * 1e6) / 1e6) : null;
    } finally {
      tf.dispose([face, mirrored] as never);
    }
  } finally {
    tf.dispose(crop as never);
  }
}

/** Cosine similarity of two unit-length descriptors (-1..1). */
export function cosine(a: number[], b: number[]): number {
  let sum = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) sum += a[i]! * b[i]!;
  return sum;
}

/**
 * The check's score (0..1) from the descriptors' cosine: a linear stretch of the range where
 * real pairs fall (cosine 0.70 → 0, 1.00 → 1), so the step's threshold and review band keep
 * their meaning. Descriptors of different lengths (another model) never match.
 */
export function matchScore(a: number[], b: number[]): number {
  if (a.length !== b.length || a.length === 0) return 0;
  const score = (cosine(a, b) - 0.7) / 0.3;
  return Math.round(Math.min(1, Math.max(0, score)) * 1000) / 1000;
}
