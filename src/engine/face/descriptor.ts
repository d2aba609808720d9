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
/** dlib's face chip: 150 x 150 pixels, 0.25 of the face's size as padding on each side (what its ResNet was trained on). */
const CHIP_SIZE = 150;
const CHIP_PADDING = 0.25;
/**
 * dlib's mean face shape (its `get_face_chip_details`): where landmarks 17-67 of the 68-point
 * scheme sit on a unit square. dlib aligns on landmarks 27-67 without the lower lip, the same
 * points used here.
 */
const MEAN_FACE_X = [
  0.000213256, 0.0752622, 0.18113, 0.29077, 0.393397, 0.586856, 0.689483, 0.799124, 0.904991, 0.98004, 0.490127,
  0.490127, 0.490127, 0.490127, 0.36688, 0.426036, 0.490127, 0.554217, 0.613373, 0.121737, 0.187122, 0.265825, 0.334606,
  0.260918, 0.182743, 0.645647, 0.714428, 0.793132, 0.858516, 0.79751, 0.719335, 0.254149, 0.340985, 0.428858, 0.490127,
  0.551395, 0.639268, 0.726104, 0.642159, 0.556721, 0.490127, 0.423532, 0.338094, 0.290379, 0.428096, 0.490127,
  0.552157, 0.689874, 0.553364, 0.490127, 0.42689,
];
const MEAN_FACE_Y = [
  0.106454, 0.038915, 0.0187482, 0.0344891, 0.0773906, 0.0773906, 0.0344891, 0.0187482, 0.038915, 0.106454, 0.203352,
  0.307009, 0.409805, 0.515625, 0.587326, 0.609345, 0.628106, 0.609345, 0.587326, 0.216423, 0.178758, 0.179852,
  0.231733, 0.245099, 0.244077, 0.231733, 0.179852, 0.178758, 0.216423, 0.244077, 0.245099, 0.780233, 0.745405,
  0.727388, 0.742578, 0.727388, 0.745405, 0.780233, 0.864805, 0.902192, 0.909281, 0.902192, 0.864805, 0.784792,
  0.778746, 0.785343, 0.778746, 0.784792, 0.824182, 0.831803, 0.824182,
];
/** Landmark indices aligned on (27-67 without the lower lip 55-59 and 65-67) and their place on a chip with `padding`. */
const alignPoints = (padding: number) =>
  Array.from({ length: 41 }, (_, k) => k + 27)
    .filter((i) => !(i >= 55 && i <= 59) && !(i >= 65 && i <= 67))
    .map((i) => ({
      index: i,
      chip: [
        ((padding + MEAN_FACE_X[i - 17]!) / (2 * padding + 1)) * CHIP_SIZE,
        ((padding + MEAN_FACE_Y[i - 17]!) / (2 * padding + 1)) * CHIP_SIZE,
      ] as const,
    }));
const ALIGN_POINTS = alignPoints(CHIP_PADDING);

type FaceApi = typeof import('@vladmandic/face-api');
export type Tensor3D = Parameters<Human['tf']['slice']>[0];
type Tf = Human['tf'];

/** RGB bytes, row by row (3 a pixel). */
export interface RgbPixels {
  data: Uint8Array;
  width: number;
  height: number;
}

/**
 * The bytes each image tensor was made from (analyse.ts `pixelTensor`). A face's region is
 * copied from them: the wasm backend's slice first copies the whole image out of its heap
 * (35 MB for a bordered passport page, twice a face), which cost more than the landmark model.
 */
const sourcePixels = new WeakMap<object, RgbPixels>();

export function rememberPixels(tensor: object, pixels: RgbPixels): void {
  sourcePixels.set(tensor, pixels);
}

/** `image`'s rows top..top+height, columns left..left+width (all three channels), as a tensor of `dtype`. */
function region(
  tf: Tf,
  image: Tensor3D,
  top: number,
  left: number,
  height: number,
  width: number,
  dtype: 'int32' | 'float32',
) {
  const pixels = sourcePixels.get(image as object);
  if (!pixels) {
    const sliced = tf.slice(image, [top, left, 0], [height, width, 3]);
    return dtype === 'int32' ? sliced : tf.cast(sliced, dtype);
  }
  const out = dtype === 'int32' ? new Int32Array(height * width * 3) : new Float32Array(height * width * 3);
  for (let row = 0; row < height; row++) {
    const from = ((top + row) * pixels.width + left) * 3;
    out.set(pixels.data.subarray(from, from + width * 3), row * width * 3);
  }
  return tf.tensor3d(out, [height, width, 3], dtype);
}

/** A similarity transform from chip to image pixels: image = [a -b; b a] * chip + [tx, ty]. */
interface Similarity {
  a: number;
  b: number;
  tx: number;
  ty: number;
}

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

/** The least-squares similarity transform taking the chip points `from` onto the image points `to`. */
export function fitSimilarity(
  from: readonly (readonly [number, number])[],
  to: readonly (readonly [number, number])[],
): Similarity {
  const n = from.length;
  let [fx, fy, px, py] = [0, 0, 0, 0];
  for (let i = 0; i < n; i++) {
    fx += from[i]![0] / n;
    fy += from[i]![1] / n;
    px += to[i]![0] / n;
    py += to[i]![1] / n;
  }
  let [dot, cross, norm] = [0, 0, 0];
  for (let i = 0; i < n; i++) {
    const [cx, cy, qx, qy] = [from[i]![0] - fx, from[i]![1] - fy, to[i]![0] - px, to[i]![1] - py];
    dot += cx * qx + cy * qy;
    cross += cx * qy - cy * qx;
    norm += cx * cx + cy * cy;
  }
  const a = dot / norm;
  const b = cross / norm;
  return { a, b, tx: px - (a * fx - b * fy), ty: py - (b * fx + a * fy) };
}

/**
 * The 150 x 150 chip of `image` under the chip-to-image transform, bilinear; when the face is
 * more than twice the chip's size it is first box-averaged down (as dlib's chip extraction
 * does with its image pyramid), so a large face is not aliased.
 */
function faceChip(tf: Tf, image: Tensor3D, t: Similarity): Tensor3D | null {
  return tf.tidy(() => {
    const [height, width] = (image as unknown as { shape: number[] }).shape as [number, number];
    const corners = [
      [0, 0],
      [CHIP_SIZE, 0],
      [0, CHIP_SIZE],
      [CHIP_SIZE, CHIP_SIZE],
    ].map(([x, y]) => [t.a * x! - t.b * y! + t.tx, t.b * x! + t.a * y! + t.ty] as const);
    const x0 = Math.max(0, Math.floor(Math.min(...corners.map((c) => c[0]))) - 2);
    const y0 = Math.max(0, Math.floor(Math.min(...corners.map((c) => c[1]))) - 2);
    const x1 = Math.min(width, Math.ceil(Math.max(...corners.map((c) => c[0]))) + 2);
    const y1 = Math.min(height, Math.ceil(Math.max(...corners.map((c) => c[1]))) + 2);
    const k = Math.max(1, Math.floor(Math.hypot(t.a, t.b)));
    // Landmarks far outside the image leave nothing to warp: not comparable rather than an error.
    if (x1 - x0 < 2 * k || y1 - y0 < 2 * k) return null;
    let area = tf.expandDims(region(tf, image, y0, x0, y1 - y0, x1 - x0, 'float32'), 0);
    let { a, b, tx, ty } = { ...t, tx: t.tx - x0, ty: t.ty - y0 };
    if (k >= 2) {
      area = tf.avgPool(area as never, k, k, 'valid');
      [a, b, tx, ty] = [a / k, b / k, (tx - (k - 1) / 2) / k, (ty - (k - 1) / 2) / k];
    }
    const warped = tf.image.transform(
      area as never,
      tf.tensor2d([[a, -b, tx, b, a, ty, 0, 0]]),
      'bilinear',
      'nearest',
      0,
      [CHIP_SIZE, CHIP_SIZE],
    );
    return tf.squeeze(warped, [0]) as unknown as Tensor3D;
  });
}

/** face-api's 68 landmarks of the face in `box` ([x, y, w, h] in the tensor's pixels), read on the box's square crop; image pixels. */
export async function faceLandmarks(
  human: Human,
  image: Tensor3D,
  box: [number, number, number, number],
): Promise<[number, number][] | null> {
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
  const crop = region(tf, image, top, left, cropHeight, cropWidth, 'int32');
  let landmarks;
  try {
    landmarks = await faceapi.detectFaceLandmarks(crop as never);
  } finally {
    tf.dispose(crop as never);
  }
  if (!landmarks || Array.isArray(landmarks)) return null;
  return landmarks.positions.map((p) => [p.x + left, p.y + top]);
}

/**
 * dlib's chip of the face whose 68 landmarks are `points` (image pixels); null when they leave
 * nothing to warp. `padding` other than dlib's 0.25 is for the tuning tools only.
 */
export function alignedChip(
  human: Human,
  image: Tensor3D,
  points: [number, number][],
  padding = CHIP_PADDING,
): Tensor3D | null {
  const align = padding === CHIP_PADDING ? ALIGN_POINTS : alignPoints(padding);
  const transform = fitSimilarity(
    align.map((p) => p.chip),
    align.map((p) => points[p.index]!),
  );
  if (!Number.isFinite(transform.a) || Math.hypot(transform.a, transform.b) < 1e-3) return null;
  return faceChip(human.tf, image, transform);
}

/** face-api's raw 128-value descriptors of 150 x 150 chips, in one batch. */
export async function chipDescriptors(chips: Tensor3D[]): Promise<Float32Array[]> {
  const faceapi = await loadFaceApi();
  const out = await faceapi.computeFaceDescriptor(chips as never);
  return (Array.isArray(out) ? out : [out]) as Float32Array[];
}

/** The sum of descriptors scaled to unit length (rounded for storage); null for a zero sum. */
export function unitMean(descriptors: ArrayLike<number>[]): number[] | null {
  const sum = Array.from(descriptors[0]!, (_, i) => descriptors.reduce((acc, d) => acc + d[i]!, 0));
  const norm = Math.hypot(...sum);
  return norm > 0 ? sum.map((v) => Math.round((v / norm) * 1e6) / 1e6) : null;
}

/** What face_match keeps of a face: its descriptor (unit length; null when none) and the landmarks' eye distance (pixels; null without landmarks). */
export interface FaceDescription {
  descriptor: number[] | null;
  interEye: number | null;
}

/** Distance between the centres of the two eyes (landmarks 36-41 and 42-47), pixels. */
export function interEyeDistance(points: [number, number][]): number {
  const centre = (from: number) => {
    const eye = points.slice(from, from + 6);
    return [eye.reduce((a, p) => a + p[0], 0) / 6, eye.reduce((a, p) => a + p[1], 0) / 6] as const;
  };
  const [left, right] = [centre(36), centre(42)];
  return Math.round(Math.hypot(left[0] - right[0], left[1] - right[1]) * 10) / 10;
}

/**
 * The descriptor (unit length) of the face in `box` ([x, y, w, h] in the tensor's pixels):
 * face-api's 68 landmarks on the box's square crop, the face warped onto dlib's chip by the
 * similarity transform that best fits them to dlib's mean face, then the descriptor of the
 * chip and of its mirror image, averaged (steadier under pose and lighting; tuning set); with
 * the landmarks' eye distance, which the quality rules check against the box.
 */
export async function describeFace(
  human: Human,
  image: Tensor3D,
  box: [number, number, number, number],
): Promise<FaceDescription | null> {
  const points = await faceLandmarks(human, image, box);
  if (!points) return null;
  const interEye = interEyeDistance(points);
  const chip = alignedChip(human, image, points);
  if (!chip) return { descriptor: null, interEye };
  const mirrored = human.tf.reverse(chip as never, 1) as unknown as Tensor3D;
  try {
    return { descriptor: unitMean(await chipDescriptors([chip, mirrored])), interEye };
  } finally {
    human.tf.dispose([chip, mirrored] as never);
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
