import sharp from 'sharp';

/**
 * Simulated presentation attacks for the liveness measurement (eval/liveness.ts): made from a
 * real frame of the right person with sharp and plain pixel arithmetic, labelled as simulated.
 * Each is an image a camera would see: a print held to it, a phone or monitor showing the photo,
 * or the photo itself turned and tilted in front of the lens to mimic the asked moves.
 */

interface Raw {
  data: Buffer;
  width: number;
  height: number;
}

/** A small seeded generator (mulberry32): the same attack every run. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function raw(bytes: Uint8Array): Promise<Raw> {
  const { data, info } = await sharp(bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

const jpeg = (img: Raw, quality = 85) =>
  sharp(img.data, { raw: { width: img.width, height: img.height, channels: 3 } })
    .jpeg({ quality })
    .toBuffer();

/** The 3x3 homography taking the unit square's corners (0,0),(1,0),(1,1),(0,1) to the quad q. */
function squareToQuad(q: [number, number][]): number[] {
  const [[x0, y0], [x1, y1], [x2, y2], [x3, y3]] = q as [
    [number, number],
    [number, number],
    [number, number],
    [number, number],
  ];
  const dx1 = x1 - x2;
  const dx2 = x3 - x2;
  const dy1 = y1 - y2;
  const dy2 = y3 - y2;
  const sx = x0 - x1 + x2 - x3;
  const sy = y0 - y1 + y2 - y3;
  const den = dx1 * dy2 - dx2 * dy1;
  const g = (sx * dy2 - dx2 * sy) / den;
  const h = (dx1 * sy - sx * dy1) / den;
  return [x1 - x0 + g * x1, x3 - x0 + h * x3, x0, y1 - y0 + g * y1, y3 - y0 + h * y3, y0, g, h, 1];
}

function invert3(m: number[]): number[] {
  const [a, b, c, d, e, f, g, h, i] = m as [number, number, number, number, number, number, number, number, number];
  const A = e * i - f * h;
  const B = -(d * i - f * g);
  const C = d * h - e * g;
  const det = a * A + b * B + c * C;
  return [
    A / det,
    -(b * i - c * h) / det,
    (b * f - c * e) / det,
    B / det,
    (a * i - c * g) / det,
    -(a * f - c * d) / det,
    C / det,
    -(a * h - b * g) / det,
    (a * e - b * d) / det,
  ];
}

/**
 * Draws `src` onto a canvas of `out` size, its corners landing on `quad` (pixels), bilinear;
 * the rest of the canvas is `background`.
 */
function warp(src: Raw, out: { width: number; height: number }, quad: [number, number][], background: Raw): Raw {
  const inv = invert3(squareToQuad(quad));
  const data = Buffer.from(background.data);
  for (let y = 0; y < out.height; y++)
    for (let x = 0; x < out.width; x++) {
      const w = inv[6]! * x + inv[7]! * y + inv[8]!;
      const u = (inv[0]! * x + inv[1]! * y + inv[2]!) / w;
      const v = (inv[3]! * x + inv[4]! * y + inv[5]!) / w;
      if (u < 0 || u > 1 || v < 0 || v > 1) continue;
      const sxf = u * (src.width - 1);
      const syf = v * (src.height - 1);
      const sx = Math.floor(sxf);
      const sy = Math.floor(syf);
      const fx = sxf - sx;
      const fy = syf - sy;
      const sx1 = Math.min(sx + 1, src.width - 1);
      const sy1 = Math.min(sy + 1, src.height - 1);
      for (let c = 0; c < 3; c++) {
        const p = (xx: number, yy: number) => src.data[(yy * src.width + xx) * 3 + c]!;
        const value =
          p(sx, sy) * (1 - fx) * (1 - fy) +
          p(sx1, sy) * fx * (1 - fy) +
          p(sx, sy1) * (1 - fx) * fy +
          p(sx1, sy1) * fx * fy;
        data[(y * out.width + x) * 3 + c] = value;
      }
    }
  return { data, width: out.width, height: out.height };
}

/**
 * The quad of a flat picture filling `fill` of the frame, turned about its vertical axis by
 * `yawDeg` and tilted about its horizontal axis by `pitchDeg` (a pinhole camera at `focal`
 * picture-widths), then shifted by (dx, dy) pixels and rotated in plane by `rollDeg`.
 */
export function flatQuad(
  frame: { width: number; height: number },
  o: { fill?: number; yawDeg?: number; pitchDeg?: number; rollDeg?: number; dx?: number; dy?: number; focal?: number },
): [number, number][] {
  const fill = o.fill ?? 0.9;
  const w = frame.width * fill;
  const h = frame.height * fill;
  const f = (o.focal ?? 1.6) * w;
  const yaw = ((o.yawDeg ?? 0) * Math.PI) / 180;
  const pitch = ((o.pitchDeg ?? 0) * Math.PI) / 180;
  const roll = ((o.rollDeg ?? 0) * Math.PI) / 180;
  const corners: [number, number][] = [
    [-w / 2, -h / 2],
    [w / 2, -h / 2],
    [w / 2, h / 2],
    [-w / 2, h / 2],
  ];
  return corners.map(([x, y]) => {
    // Turn about y (yaw), then tilt about x (pitch); the picture stands at depth f.
    const x1 = x * Math.cos(yaw);
    const z1 = x * Math.sin(yaw);
    const y2 = y * Math.cos(pitch);
    const z2 = z1 + y * Math.sin(pitch);
    const scale = f / (f + z2);
    const px = x1 * scale;
    const py = y2 * scale;
    const rx = px * Math.cos(roll) - py * Math.sin(roll);
    const ry = px * Math.sin(roll) + py * Math.cos(roll);
    return [frame.width / 2 + rx + (o.dx ?? 0), frame.height / 2 + ry + (o.dy ?? 0)];
  });
}

/** A plain wall behind the print: a soft grey-beige gradient with sensor noise. */
function wall(width: number, height: number, random: () => number): Raw {
  const data = Buffer.alloc(width * height * 3);
  const base = [150 + random() * 40, 140 + random() * 40, 125 + random() * 40];
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++)
      for (let c = 0; c < 3; c++)
        data[(y * width + x) * 3 + c] = Math.max(
          0,
          Math.min(255, base[c]! * (0.8 + (0.3 * x) / width) + (random() - 0.5) * 10),
        );
  return { data, width, height };
}

/** Printing: paper white and ink black compressed, a little desaturated and warm, paper grain. */
function printLook(img: Raw, random: () => number): Raw {
  const data = Buffer.alloc(img.data.length);
  for (let i = 0; i < img.data.length; i += 3) {
    const r = img.data[i]!;
    const g = img.data[i + 1]!;
    const b = img.data[i + 2]!;
    const grey = 0.3 * r + 0.59 * g + 0.11 * b;
    const grain = (random() - 0.5) * 16;
    const tone = [r, g, b].map((v, c) => {
      const desat = 0.7 * v + 0.3 * grey;
      return 28 + desat * 0.78 + grain + [6, 3, -4][c]!;
    });
    for (let c = 0; c < 3; c++) data[i + c] = Math.max(0, Math.min(255, tone[c]!));
  }
  return { data, width: img.width, height: img.height };
}

/** Lighting across the frame: a brightness ramp (a lamp to one side) and a gamma. */
function light(img: Raw, random: () => number): Raw {
  const data = Buffer.alloc(img.data.length);
  const angle = random() * Math.PI * 2;
  const strength = 0.15 + random() * 0.15;
  for (let y = 0; y < img.height; y++)
    for (let x = 0; x < img.width; x++) {
      const t = ((x / img.width - 0.5) * Math.cos(angle) + (y / img.height - 0.5) * Math.sin(angle)) * 2;
      const k = 1 + strength * t;
      for (let c = 0; c < 3; c++) {
        const i = (y * img.width + x) * 3 + c;
        data[i] = Math.max(0, Math.min(255, 255 * Math.pow((img.data[i]! * k) / 255, 1.1)));
      }
    }
  return { data, width: img.width, height: img.height };
}

/** A screen filmed: moiré of the pixel grid against the sensor's, a glare spot, a cool cast. */
function screenLook(img: Raw, random: () => number): Raw {
  const data = Buffer.alloc(img.data.length);
  const a = random() * Math.PI;
  const period = 2.6 + random() * 1.4;
  const gx = img.width * (0.3 + random() * 0.4);
  const gy = img.height * (0.2 + random() * 0.4);
  const gr = img.width * (0.15 + random() * 0.1);
  for (let y = 0; y < img.height; y++)
    for (let x = 0; x < img.width; x++) {
      const moire = 1 - 0.14 * (0.5 + 0.5 * Math.sin((2 * Math.PI * (x * Math.cos(a) + y * Math.sin(a))) / period));
      const grid = x % 3 === 0 || y % 3 === 0 ? 0.93 : 1;
      const glare = 90 * Math.exp(-((x - gx) ** 2 + (y - gy) ** 2) / (2 * gr * gr));
      for (let c = 0; c < 3; c++) {
        const i = (y * img.width + x) * 3 + c;
        const cast = [0.92, 0.98, 1.08][c]!;
        data[i] = Math.max(0, Math.min(255, img.data[i]! * moire * grid * cast + glare));
      }
    }
  return { data, width: img.width, height: img.height };
}

/** A black bezel around the picture (a phone or monitor). */
function bezel(img: Raw, share = 0.06): Raw {
  const border = Math.round(Math.max(img.width, img.height) * share);
  const width = img.width + 2 * border;
  const height = img.height + 2 * border;
  const data = Buffer.alloc(width * height * 3, 12);
  for (let y = 0; y < img.height; y++)
    img.data.copy(data, ((y + border) * width + border) * 3, y * img.width * 3, (y + 1) * img.width * 3);
  return { data, width, height };
}

export interface FlatPose {
  yawDeg?: number;
  pitchDeg?: number;
  rollDeg?: number;
  dx?: number;
  dy?: number;
  fill?: number;
}

/** A printed photo of `photo` held in front of the camera at `pose` (simulated). */
export async function printedPhoto(photo: Uint8Array, pose: FlatPose, seed: number): Promise<Buffer> {
  const random = seeded(seed);
  const src = printLook(await raw(photo), random);
  const frame = { width: src.width, height: src.height };
  const seen = warp(src, frame, flatQuad(frame, { fill: 0.92, ...pose }), wall(frame.width, frame.height, random));
  const lit = light(seen, random);
  const blurred = await sharp(lit.data, { raw: { width: lit.width, height: lit.height, channels: 3 } })
    .blur(0.7)
    .raw()
    .toBuffer();
  return jpeg({ data: blurred, width: lit.width, height: lit.height }, 82);
}

/** `photo` shown on a phone or monitor and filmed (simulated). */
export async function screenPhoto(photo: Uint8Array, pose: FlatPose, seed: number): Promise<Buffer> {
  const random = seeded(seed);
  const src = bezel(await raw(photo));
  const frame = { width: src.width, height: src.height };
  const seen = warp(src, frame, flatQuad(frame, { fill: 0.95, ...pose }), wall(frame.width, frame.height, random));
  return jpeg(screenLook(seen, random), 82);
}

/** The photo itself moved in front of the lens (no print or screen look): only the pose changes. */
export async function movedPhoto(photo: Uint8Array, pose: FlatPose, seed: number): Promise<Buffer> {
  const random = seeded(seed);
  const src = await raw(photo);
  const frame = { width: src.width, height: src.height };
  return jpeg(warp(src, frame, flatQuad(frame, { fill: 1, ...pose }), wall(frame.width, frame.height, random)), 88);
}
