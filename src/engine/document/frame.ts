import sharp from 'sharp';
import { type Grey, sharpOf } from './decode.js';

/** A working copy turned by some angle: which of its pixels come from the image (1) and which the turn uncovered (0). */
export interface Turned extends Grey {
  cover?: Uint8Array;
}

/** Median of the pixels the mask marks (all when there is no mask); 255 when none is marked. */
function medianOf(data: Uint8Array, cover?: Uint8Array): number {
  const histogram = new Uint32Array(256);
  let n = 0;
  for (let i = 0; i < data.length; i++) {
    if (cover && !cover[i]) continue;
    histogram[data[i]]++;
    n++;
  }
  if (n === 0) return 255;
  for (let v = 0, seen = 0; v < 256; v++) {
    seen += histogram[v];
    if (seen * 2 >= n) return v;
  }
  return 255;
}

/** Uncovered pixels set to the median of the covered ones: the corners a turn uncovers look like the paper around them. */
function fillUncovered(data: Uint8Array, cover: Uint8Array): void {
  const paper = medianOf(data, cover);
  for (let i = 0; i < data.length; i++) if (!cover[i]) data[i] = paper;
}

/**
 * The working copy turned by `rotation` degrees (clockwise). The corners the turn uncovers take
 * the page's median grey, never white: white corners beside grey paper make OCR's own
 * threshold take the paper for ink, and count as glare.
 */
export async function turn(grey: Grey, rotation: number): Promise<Turned> {
  if (rotation === 0) return grey;
  if (rotation % 90 === 0) {
    const { data, info } = await sharpOf(grey).rotate(rotation).raw().toBuffer({ resolveWithObject: true });
    return { data, width: info.width, height: info.height, original: grey.original };
  }
  // Not through sharpOf: its b-w colourspace drops the alpha channel that marks the uncovered corners.
  const { data, info } = await sharp(grey.data, { raw: { width: grey.width, height: grey.height, channels: 1 } })
    .ensureAlpha()
    .rotate(rotation, { background: { r: 0, g: 0, b: 0, alpha: 0 } })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const size = info.width * info.height;
  const channels = info.channels;
  const pixels = Buffer.alloc(size);
  const cover = new Uint8Array(size);
  for (let i = 0; i < size; i++) {
    pixels[i] = data[i * channels];
    cover[i] = data[i * channels + channels - 1] >= 128 ? 1 : 0;
  }
  fillUncovered(pixels, cover);
  return { data: pixels, width: info.width, height: info.height, original: grey.original, cover };
}

/** A box of a turned copy as its own copy, the uncovered pixels in it set to the median of its covered ones. */
export function regionOf(turned: Turned, box: { left: number; top: number; width: number; height: number }): Grey {
  const left = Math.max(0, Math.min(turned.width - 1, Math.round(box.left)));
  const top = Math.max(0, Math.min(turned.height - 1, Math.round(box.top)));
  const width = Math.max(1, Math.min(turned.width - left, Math.round(box.width)));
  const height = Math.max(1, Math.min(turned.height - top, Math.round(box.height)));
  const data = Buffer.alloc(width * height);
  const cover = turned.cover ? new Uint8Array(width * height) : undefined;
  for (let y = 0; y < height; y++) {
    const from = (top + y) * turned.width + left;
    turned.data.copy(data, y * width, from, from + width);
    cover?.set(turned.cover!.subarray(from, from + width), y * width);
  }
  if (cover) fillUncovered(data, cover);
  return { data, width, height, original: turned.original };
}

/** A raw copy turned upside down (180°: the pixels in reverse order). */
export function upsideDown(grey: Grey): Grey {
  const data = Buffer.from(grey.data);
  data.reverse();
  return { ...grey, data };
}

/** A band of a turned copy cut out, upright (turned 180° when `flip`), as its own copy. */
export function cropBand(
  turned: Turned,
  box: { left: number; top: number; width: number; height: number },
  flip: boolean,
): Grey {
  const crop = regionOf(turned, box);
  return flip ? upsideDown(crop) : crop;
}

/**
 * The crop divided by its paper: each pixel over the brightest grey within about a character
 * around it (a running maximum on a copy with characters ~6 px high). Uneven light, a shadow
 * and a tinted or patterned background become white paper; ink stays dark.
 */
export async function flatField(crop: Grey, charHeight: number): Promise<Grey> {
  const k = Math.max(1, charHeight / 6);
  const sw = Math.max(1, Math.round(crop.width / k));
  const sh = Math.max(1, Math.round(crop.height / k));
  const small = await sharpOf(crop).resize({ width: sw, height: sh, fit: 'fill' }).raw().toBuffer();
  const radius = 5;
  const across = Buffer.alloc(sw * sh);
  for (let y = 0; y < sh; y++)
    for (let x = 0; x < sw; x++) {
      let m = 0;
      for (let d = Math.max(0, x - radius); d <= Math.min(sw - 1, x + radius); d++) m = Math.max(m, small[y * sw + d]);
      across[y * sw + x] = m;
    }
  const paperSmall = Buffer.alloc(sw * sh);
  for (let y = 0; y < sh; y++)
    for (let x = 0; x < sw; x++) {
      let m = 0;
      for (let d = Math.max(0, y - radius); d <= Math.min(sh - 1, y + radius); d++) m = Math.max(m, across[d * sw + x]);
      paperSmall[y * sw + x] = m;
    }
  const paper = await sharpOf({ data: paperSmall, width: sw, height: sh })
    .blur(1)
    .resize({ width: crop.width, height: crop.height, fit: 'fill' })
    .raw()
    .toBuffer();
  const data = Buffer.alloc(crop.data.length);
  for (let i = 0; i < data.length; i++)
    data[i] = Math.min(255, Math.round((crop.data[i] * 255) / Math.max(paper[i], 16)));
  return { ...crop, data };
}

/** The most of the light a reflection may be taken to have added: past it, what is left of the ink is JPEG noise. */
const MAX_LIFT = 0.92;

/**
 * The crop with a reflection's light taken off. A lamp's or window's reflection on a laminate
 * adds light: where it lies, paper and ink alike move a share `a` of the way to white (ink 30
 * under a = 0.9 reads 232 on paper 254), so dividing by the paper (`flatField`) leaves the ink
 * pale. Each block of about a character gives its paper (its 80th percentile grey: JPEG's bright
 * ringing round the strokes makes a running maximum read white everywhere); the band's median
 * block is the paper as lit, and a brighter block's excess over it, as a share of what white
 * leaves, is that block's lift `a`, undone pixel by pixel as (v - 255a) / (1 - a). Where the
 * paper is as lit, nothing changes.
 */
export async function deglared(crop: Grey, charHeight: number): Promise<Grey> {
  const size = Math.max(4, Math.round(charHeight));
  const [bw, bh] = [Math.ceil(crop.width / size), Math.ceil(crop.height / size)];
  const blocks = Buffer.alloc(bw * bh);
  for (let by = 0; by < bh; by++)
    for (let bx = 0; bx < bw; bx++) {
      const histogram = new Uint32Array(256);
      let n = 0;
      for (let y = by * size; y < Math.min(crop.height, (by + 1) * size); y++)
        for (let x = bx * size; x < Math.min(crop.width, (bx + 1) * size); x++, n++)
          histogram[crop.data[y * crop.width + x]]++;
      let v = 0;
      for (let seen = 0; v < 255; v++) if ((seen += histogram[v]) >= n * 0.8) break;
      blocks[by * bw + bx] = v;
    }
  const lit = [...blocks].sort((a, b) => a - b)[Math.floor(blocks.length / 2)];
  if (lit >= 250) return crop;
  const paper = await sharpOf({ data: blocks, width: bw, height: bh })
    .resize({ width: crop.width, height: crop.height, fit: 'fill', kernel: 'cubic' })
    .blur(Math.max(1, size / 3))
    .raw()
    .toBuffer();
  const data = Buffer.alloc(crop.data.length);
  for (let i = 0; i < data.length; i++) {
    const a = Math.min(MAX_LIFT, Math.max(0, (paper[i] - lit) / (255 - lit)));
    data[i] = Math.max(0, Math.min(255, Math.round((crop.data[i] - 255 * a) / (1 - a))));
  }
  return { ...crop, data };
}

/** How many pixels there are of each grey level. */
function histogramOf(data: Uint8Array): Uint32Array {
  const histogram = new Uint32Array(256);
  for (let i = 0; i < data.length; i++) histogram[data[i]]++;
  return histogram;
}

/** The grey level below which `share` of the `total` pixels a histogram counts lie. */
function levelOf(histogram: Uint32Array, total: number, share: number): number {
  const want = total * share;
  for (let v = 0, seen = 0; v < 256; v++) if ((seen += histogram[v]) >= want) return v;
  return 255;
}

/** The grey level below which `share` of the pixels lie, for each share (one pass over the pixels). */
export function percentiles(data: Uint8Array, ...shares: number[]): number[] {
  const histogram = histogramOf(data);
  return shares.map((share) => levelOf(histogram, data.length, share));
}

/** The grey level below which `share` of the pixels lie. */
export const percentile = (data: Uint8Array, share: number): number => percentiles(data, share)[0]!;

/**
 * A linear stretch of the grey levels from the 1st to the 99th percentile, what sharp's
 * normalise() does, computed on the small source instead of the enlarged output (normalise()
 * costs ~0.2 s on a page enlarged for OCR).
 */
export function fullStretch(grey: Grey): { multiply: number; add: number } {
  const [low, top] = percentiles(grey.data, 0.01, 0.99);
  const high = Math.max(top!, low! + 16);
  const multiply = 255 / (high - low);
  return { multiply, add: -multiply * low };
}

/**
 * The crop's grey levels stretched so that its darkest ink (1st percentile) is black and its
 * paper (the median: a zone's ink covers well under half of its band) is near white. A band
 * left with grey paper beside the white margin OCR is given makes OCR's own threshold fall
 * between paper and margin and take the whole band for ink.
 */
export function paperStretch(crop: Grey): { multiply: number; add: number } {
  const [ink, median] = percentiles(crop.data, 0.01, 0.5);
  const paper = Math.max(median!, ink! + 16);
  const multiply = 240 / (paper - ink);
  return { multiply, add: -multiply * ink };
}

/** PNG for OCR, fast to write: the OCR decodes it once, so compressing it hard buys nothing. */
export const forOcrPng = (pipeline: ReturnType<typeof sharpOf>) =>
  pipeline.png({ compressionLevel: 1, adaptiveFiltering: false }).toBuffer();
