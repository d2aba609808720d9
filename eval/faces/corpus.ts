import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { readFaces, type ImageFaces } from '../../src/engine/face/analyse.js';

/**
 * The face test corpus, built from the group photos in test/engine/faces (sources and
 * licence in its README): every face found becomes one identity, rendered as a document
 * portrait and as selfies under transformations. Used by the tests, the eval and the bench.
 */
export const FACES_DIR = facesDir();

/** test/engine/faces in the nearest folder above this module that has it (src, dist and dist-eval all sit at different depths). */
function facesDir(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  for (let dir = here; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'test', 'engine', 'faces');
    if (existsSync(candidate)) return candidate;
    if (path.dirname(dir) === dir) return path.resolve(here, '../../../test/engine/faces');
  }
}

export interface FaceIdentity {
  id: string;
  /** The face cropped generously from its source photo (JPEG). */
  portrait: Buffer;
}

/** Same-person variants: how a selfie or a second capture of the same face may differ. */
export const CONDITIONS = ['tight_crop', 'rotate_12', 'dark', 'bright', 'blur', 'jpeg_q25', 'low_res'] as const;
export type Condition = (typeof CONDITIONS)[number];

/** Faces of at least this many pixels across in the source photo become identities. */
const MIN_FACE = 120;
/** An ID portrait is frontal: faces turned further than this are not used as identities. */
const MAX_YAW = 25;

export interface CorpusOptions {
  /** Source photos to use (default: all of them). */
  files?: string[];
  /** How faces are found (default: in this thread; tests and the eval pass the worker pool). */
  read?: (image: Buffer) => Promise<ImageFaces>;
}

/** Crops every clear, frontal face of every source photo (largest first) with a margin. */
export async function loadIdentities(options: CorpusOptions = {}): Promise<FaceIdentity[]> {
  const read = options.read ?? ((image: Buffer) => readFaces(image));
  const files = options.files ?? (await readdir(FACES_DIR)).filter((f) => /^sample\d+\.jpg$/.test(f)).sort();
  const out: FaceIdentity[] = [];
  for (const file of files) {
    const bytes = await readFile(path.join(FACES_DIR, file));
    const meta = await sharp(bytes).metadata();
    const scale = Math.max(meta.width!, meta.height!) / Math.min(1280, Math.max(meta.width!, meta.height!));
    const { faces } = await read(bytes);
    for (const [index, face] of faces.entries()) {
      const [x, y, w, h] = face.box.map((n) => n * scale);
      if (w < MIN_FACE || face.score < 0.7 || Math.abs(face.yaw ?? 90) > MAX_YAW) continue;
      const side = Math.round(Math.max(w, h) * 1.8);
      const left = Math.max(0, Math.round(x + w / 2 - side / 2));
      const top = Math.max(0, Math.round(y + h / 2 - side / 2));
      const width = Math.min(side, meta.width! - left);
      const height = Math.min(side, meta.height! - top);
      const portrait = await sharp(bytes).extract({ left, top, width, height }).jpeg({ quality: 92 }).toBuffer();
      out.push({ id: `${file.replace('.jpg', '')}#${index}`, portrait });
    }
  }
  return out;
}

/** The portrait as printed on an ID document: small, desaturated, on a card with text bars. */
export async function documentImage(portrait: Buffer): Promise<Buffer> {
  const photo = await sharp(portrait).resize(220, 280, { fit: 'cover' }).modulate({ saturation: 0.55 }).toBuffer();
  const bars = Array.from(
    { length: 6 },
    (_, i) => `<rect x="290" y="${70 + i * 42}" width="${380 - i * 30}" height="14" fill="#4a5560"/>`,
  ).join('');
  const svg = `<svg width="720" height="460" xmlns="http://www.w3.org/2000/svg"><rect width="720" height="460" rx="24" fill="#dfe7ea"/><rect x="0" y="0" width="720" height="44" fill="#2f5d7c"/>${bars}<rect x="30" y="380" width="660" height="16" fill="#222"/><rect x="30" y="410" width="660" height="16" fill="#222"/></svg>`;
  return sharp(Buffer.from(svg))
    .composite([{ input: photo, left: 40, top: 70 }])
    .jpeg({ quality: 88 })
    .toBuffer();
}

/** The portrait under one capture condition (a selfie of the same person). */
export async function variant(portrait: Buffer, condition: Condition): Promise<Buffer> {
  const image = sharp(portrait);
  const meta = await image.metadata();
  const w = meta.width!;
  const h = meta.height!;
  switch (condition) {
    case 'tight_crop':
      return image
        .extract({
          left: Math.round(w * 0.12),
          top: Math.round(h * 0.08),
          width: Math.round(w * 0.76),
          height: Math.round(h * 0.8),
        })
        .jpeg()
        .toBuffer();
    case 'rotate_12':
      return image.rotate(12, { background: '#808080' }).jpeg().toBuffer();
    case 'dark':
      return image.modulate({ brightness: 0.55 }).jpeg().toBuffer();
    case 'bright':
      return image.modulate({ brightness: 1.5 }).jpeg().toBuffer();
    case 'blur':
      return image.blur(2.5).jpeg().toBuffer();
    case 'jpeg_q25':
      return image.jpeg({ quality: 25 }).toBuffer();
    case 'low_res':
      return image.resize(110).jpeg().toBuffer();
  }
}

/** A photo of a screen showing the face: what a replay attack looks like to a camera, roughly. */
export async function screenReplay(portrait: Buffer): Promise<Buffer> {
  const meta = await sharp(portrait).metadata();
  const w = meta.width!;
  const h = meta.height!;
  const lines = Array.from(
    { length: Math.ceil(h / 4) },
    (_, i) => `<rect x="0" y="${i * 4}" width="${w}" height="1" fill="#000" fill-opacity="0.18"/>`,
  ).join('');
  const overlay = Buffer.from(
    `<svg width="${w}" height="${h}" xmlns="http://www.w3.org/2000/svg">${lines}<rect width="${w}" height="${h}" fill="#9fd0ff" fill-opacity="0.12"/></svg>`,
  );
  const inner = await sharp(portrait)
    .composite([{ input: overlay }])
    .modulate({ brightness: 1.15, saturation: 0.8 })
    .toBuffer();
  const pad = Math.round(w * 0.08);
  return sharp(inner)
    .extend({ top: pad, bottom: pad * 2, left: pad, right: pad, background: '#111' })
    .jpeg({ quality: 80 })
    .toBuffer();
}

/** A printed photo held up to the camera: paper white border, flattened contrast and colour, tilted on a background. */
export async function printedPhoto(portrait: Buffer): Promise<Buffer> {
  const meta = await sharp(portrait).metadata();
  const border = Math.round(meta.width! * 0.06);
  const print = await sharp(portrait)
    .linear(0.75, 30)
    .modulate({ saturation: 0.85 })
    .extend({ top: border, bottom: border, left: border, right: border, background: '#f4f1ea' })
    .toBuffer();
  const pad = Math.round(meta.width! * 0.1);
  return sharp(print)
    .rotate(4, { background: '#5a534c' })
    .extend({ top: pad, bottom: pad, left: pad, right: pad, background: '#5a534c' })
    .jpeg({ quality: 85 })
    .toBuffer();
}

/** Where the document renderer of test/engine/corpus (render.ts, passportPage) leaves room for the holder's portrait. */
export const PASSPORT_PORTRAIT = { left: 40, top: 120, width: 250, height: 320 };

/**
 * A rendered document page with the holder's face printed into its portrait box (desaturated,
 * as printed); the renderer's placeholder silhouette, which reaches below the box, is painted
 * over in the page's own colour first.
 */
export async function withPortrait(page: Buffer, portrait: Buffer, box = PASSPORT_PORTRAIT): Promise<Buffer> {
  const photo = await sharp(portrait)
    .resize(box.width, box.height, { fit: 'cover', position: 'top' })
    .modulate({ saturation: 0.6 })
    .toBuffer();
  const { data } = await sharp(page)
    .extract({ left: Math.max(0, box.left - 12), top: box.top, width: 1, height: 1 })
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const cover = Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${box.width}" height="${Math.round(box.height * 1.35)}"><rect width="100%" height="100%" fill="rgb(${data[0]},${data[1]},${data[2]})"/></svg>`,
  );
  return sharp(page)
    .composite([
      { input: cover, left: box.left, top: box.top },
      { input: photo, left: box.left, top: box.top },
    ])
    .png()
    .toBuffer();
}
