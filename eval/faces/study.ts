import '../../src/warnings.js';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { decode, pixelTensor } from '../../src/engine/face/analyse.js';
import {
  alignedChip,
  chipDescriptors,
  faceLandmarks,
  unitMean,
  type Tensor3D,
} from '../../src/engine/face/descriptor.js';
import { loadHuman } from '../../src/engine/face/human.js';
import { sharpen, stretch } from './chip-variants.js';
import { photographedDocument, realImages, type RealSet } from './real.js';

/**
 * Failure-study dump (tuning data only: the tuning people, the first held-out set and
 * held-out-2, all spent; never held-out-3): for every photo and its photographed document, the
 * face's size, pose, detector score and sharpness, Human's own embedding, and the raw
 * descriptors of every chip variant (base + mirror, 8 jitters + mirrors, sharpened,
 * contrast-normalised, lanczos-upscaled, second landmark pass), so that decision rules and
 * variant mixes are compared offline on the same readings (eval/faces/study-report.ts).
 * `node dist-eval/eval/faces/study.js --out=file [--sets=tuning,heldOut,heldOut2]`.
 */
type Human = Awaited<ReturnType<typeof loadHuman>>;
type Points = [number, number][];

const r5 = (v: ArrayLike<number>) => Array.from(v, (x) => Math.round(x * 1e5) / 1e5);

/** A similarity jitter of the landmarks around their centre: shift (share of the face's size), scale, turn. */
function jitter(points: Points, dx: number, dy: number, scale: number, degrees: number): Points {
  const cx = points.reduce((a, p) => a + p[0], 0) / points.length;
  const cy = points.reduce((a, p) => a + p[1], 0) / points.length;
  const size = Math.max(...points.map((p) => p[0])) - Math.min(...points.map((p) => p[0]));
  const [c, s] = [Math.cos((degrees * Math.PI) / 180) * scale, Math.sin((degrees * Math.PI) / 180) * scale];
  return points.map(([x, y]) => [
    cx + dx * size + c * (x - cx) - s * (y - cy),
    cy + dy * size + s * (x - cx) + c * (y - cy),
  ]);
}
const JITTERS: [number, number, number, number][] = [
  [0.02, 0, 1, 0],
  [-0.02, 0, 1, 0],
  [0, 0.02, 1, 0],
  [0, -0.02, 1, 0],
  [0, 0, 0.97, 0],
  [0, 0, 1.03, 0],
  [0, 0, 1, -3],
  [0, 0, 1, 3],
];

/** Sharpness and light of a chip: variance of the grey Laplacian (inner 100 px), mean and spread of grey. */
function chipStats(human: Human, chip: Tensor3D): { lap: number; mean: number; sd: number } {
  return human.tf.tidy(() => {
    const tf = human.tf;
    const g = tf.sum(tf.mul(chip as never, tf.tensor1d([0.299, 0.587, 0.114])), -1, true);
    const inner = tf.slice(g, [25, 25, 0], [100, 100, 1]);
    const kernel = tf.reshape(tf.tensor1d([0, 1, 0, 1, -4, 1, 0, 1, 0]), [3, 3, 1, 1]);
    const lap = tf.conv2d(tf.expandDims(inner, 0) as never, kernel as never, 1, 'valid');
    const m = tf.moments(lap);
    const gm = tf.moments(inner);
    return {
      lap: (m.variance.dataSync()[0] ?? 0) as number,
      mean: (gm.mean.dataSync()[0] ?? 0) as number,
      sd: Math.sqrt((gm.variance.dataSync()[0] ?? 0) as number),
    };
  });
}

/** The face region scaled up with lanczos3 so the chip is sampled at about 1:1; null when the face is not smaller than the chip. */
async function upscaled(
  human: Human,
  pixels: { data: Buffer; width: number; height: number },
  points: Points,
): Promise<{ tensor: Tensor3D; points: Points } | null> {
  const xs = points.map((p) => p[0]);
  const ys = points.map((p) => p[1]);
  const size = Math.max(Math.max(...xs) - Math.min(...xs), Math.max(...ys) - Math.min(...ys));
  // the chip's landmark span is about 100 px; upscale faces under it
  const factor = Math.min(4, Math.ceil(100 / Math.max(1, size)));
  if (factor < 2) return null;
  const cx = (Math.max(...xs) + Math.min(...xs)) / 2;
  const cy = (Math.max(...ys) + Math.min(...ys)) / 2;
  const left = Math.max(0, Math.floor(cx - size * 1.5));
  const top = Math.max(0, Math.floor(cy - size * 1.5));
  const width = Math.min(pixels.width - left, Math.ceil(size * 3));
  const height = Math.min(pixels.height - top, Math.ceil(size * 3));
  const out = await sharp(pixels.data, { raw: { width: pixels.width, height: pixels.height, channels: 3 } })
    .extract({ left, top, width, height })
    .resize(width * factor, height * factor, { kernel: 'lanczos3' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const tensor = pixelTensor(human, {
    data: out.data,
    width: out.info.width,
    height: out.info.height,
  }) as unknown as Tensor3D;
  return {
    tensor,
    points: points.map(([x, y]) => [(x - left + 0.5) * factor - 0.5, (y - top + 0.5) * factor - 0.5]),
  };
}

const centre = (p: Points, from: number, to: number) => {
  const s = p.slice(from, to + 1);
  return [s.reduce((a, q) => a + q[0], 0) / s.length, s.reduce((a, q) => a + q[1], 0) / s.length];
};

export interface StudyReading {
  set: RealSet;
  person: string;
  file: string;
  kind: 'photo' | 'doc';
  faces: number;
  /** As the engine reads it: box (analysed image pixels, border removed), detector score, yaw, quality issues. */
  box?: number[];
  score?: number;
  yaw?: number | null;
  pitch?: number | null;
  roll?: number | null;
  age?: number | null;
  quality?: string[];
  interEye?: number;
  lap?: number;
  lum?: number;
  contrast?: number;
  faceres?: number[];
  raw?: Record<string, number[][]>;
  /** The engine's descriptor (base chip + mirror, unit mean). */
  embedding?: number[];
}

async function study(human: Human, bytes: Buffer, base: Omit<StudyReading, 'kind' | 'faces'>, kind: 'photo' | 'doc') {
  const pixels = await decode(bytes);
  const out: StudyReading = { ...base, kind, faces: 0 };
  if (!pixels) return { out, box: null };
  const tf = human.tf;
  const tensor = pixelTensor(human, pixels) as unknown as Tensor3D;
  try {
    const result = await human.detect(tensor as never);
    const found = result.face
      .filter((f) => Array.isArray(f.embedding) && f.embedding.length > 0)
      .sort((a, b) => b.box[2] * b.box[3] - a.box[2] * a.box[3]);
    out.faces = found.length;
    const face = found[0];
    if (!face) return { out, box: null };
    const deg = (v: number | undefined) => (typeof v === 'number' ? Math.round((v * 1800) / Math.PI) / 10 : null);
    const [x, y, w, h] = face.box;
    out.box = [x - pixels.border, y - pixels.border, w, h].map(Math.round);
    out.score = Math.round(face.score * 1000) / 1000;
    out.yaw = deg(face.rotation?.angle.yaw);
    out.pitch = deg(face.rotation?.angle.pitch);
    out.roll = deg(face.rotation?.angle.roll);
    out.age = face.age ?? null;
    out.faceres = r5(face.embedding as number[]);
    const quality: string[] = [];
    if (Math.min(out.box[2]!, out.box[3]!) < 64) quality.push('small');
    if (out.yaw === null || Math.abs(out.yaw) > 30) quality.push('turned');
    if (out.score < 0.6) quality.push('uncertain');
    const points = await faceLandmarks(human, tensor, face.box);
    const readingBox = out.box as [number, number, number, number];
    if (!points) {
      out.quality = [...quality, 'no_descriptor'];
      return { out, box: readingBox };
    }
    const [l, r] = [centre(points, 36, 41), centre(points, 42, 47)];
    out.interEye = Math.round(Math.hypot(l[0]! - r[0]!, l[1]! - r[1]!) * 10) / 10;
    const raw: Record<string, number[][]> = {};
    const describe = async (name: string, chips: (Tensor3D | null)[]) => {
      const ok = chips.filter((c): c is Tensor3D => !!c);
      if (!ok.length) return;
      const all = ok.flatMap((c) => [c, tf.reverse(c as never, 1) as unknown as Tensor3D]);
      try {
        raw[name] = (await chipDescriptors(all)).map(r5);
      } finally {
        tf.dispose(all as never);
      }
    };
    const chip = alignedChip(human, tensor, points);
    if (!chip) {
      out.quality = [...quality, 'no_descriptor'];
      return { out, box: readingBox };
    }
    const stats = chipStats(human, chip);
    out.lap = Math.round(stats.lap * 10) / 10;
    out.lum = Math.round(stats.mean);
    out.contrast = Math.round(stats.sd * 10) / 10;
    await describe('base', [tf.clone(chip as never) as unknown as Tensor3D]);
    for (const padding of PADDINGS) await describe(`pad${padding}`, [alignedChip(human, tensor, points, padding)]);
    if (ONLY_PADDING) {
      tf.dispose(chip as never);
      out.raw = raw;
      out.quality = quality;
      return { out, box: readingBox };
    }
    await describe('sharpen', [sharpen(human, chip, 0.6)]);
    await describe('stretch', [stretch(human, chip)]);
    tf.dispose(chip as never);
    await describe(
      'jitter',
      JITTERS.map(([dx, dy, s, d]) => alignedChip(human, tensor, jitter(points, dx, dy, s, d))),
    );
    const up = await upscaled(human, pixels, points);
    if (up) {
      try {
        await describe('up', [alignedChip(human, up.tensor, up.points)]);
      } finally {
        tf.dispose(up.tensor as never);
      }
    }
    const xs = points.map((q) => q[0]);
    const ys = points.map((q) => q[1]);
    const side = Math.max(Math.max(...xs) - Math.min(...xs), Math.max(...ys) - Math.min(...ys)) / 0.85;
    const [cx, cy] = [(Math.max(...xs) + Math.min(...xs)) / 2, (Math.max(...ys) + Math.min(...ys)) / 2];
    const second = await faceLandmarks(human, tensor, [cx - side / 2, cy - side / 2, side, side]);
    if (second) await describe('lm2', [alignedChip(human, tensor, second)]);
    out.raw = raw;
    out.embedding = raw.base ? (unitMean(raw.base) ?? undefined) : undefined;
    if (!out.embedding) quality.push('no_descriptor');
    out.quality = quality;
    return { out, box: readingBox };
  } finally {
    tf.dispose(tensor as never);
  }
}

const args = process.argv.slice(2);
/** Chip paddings other than dlib's 0.25 to describe as well (`--paddings=0.2,0.3`); `--only-padding` skips the other variants. */
const PADDINGS = (args.find((a) => a.startsWith('--paddings='))?.slice(11) ?? '')
  .split(',')
  .filter(Boolean)
  .map(Number);
const ONLY_PADDING = args.includes('--only-padding');
const outFile = args.find((a) => a.startsWith('--out='))?.slice(6) ?? 'study.json';
const sets = (args.find((a) => a.startsWith('--sets='))?.slice(7) ?? 'tuning,heldOut,heldOut2').split(',') as RealSet[];
const human = await loadHuman();
const readings: StudyReading[] = [];
for (const set of sets) {
  const images = await realImages(set);
  for (const [k, image] of images.entries()) {
    const bytes = await readFile(path.join(image.dir, image.file));
    const base = { set, person: image.person, file: image.file };
    const photo = await study(human, bytes, base, 'photo');
    readings.push(photo.out);
    if (photo.box) {
      const doc = await photographedDocument(bytes, { box: photo.box } as never);
      readings.push((await study(human, doc, base, 'doc')).out);
    }
    process.stderr.write(`${set} ${k + 1}/${images.length}\r`);
  }
}
await writeFile(outFile, JSON.stringify(readings));
process.stderr.write(`\n${readings.length} readings in ${outFile}\n`);
