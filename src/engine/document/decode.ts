import sharp, { type Sharp } from 'sharp';

/**
 * Bounds on every image the document check decodes, checked on the header before any pixel is
 * decoded: an image bomb (a huge canvas, or a 1x250 strip that a resize to a fixed width would
 * blow up) is refused, never decoded or enlarged.
 */
export const IMAGE_LIMITS = {
  /** Pixels of the encoded image (a 48 MP phone photo passes). */
  maxInputPixels: 50_000_000,
  /** Longer side over shorter side: a document in any framing stays well below. */
  maxAspect: 6,
  /** Shorter side: below this nothing on a document can be read. */
  minSide: 64,
  /** The working copy's longer side: enough for zone characters ~10 px high on a document filling a quarter of a phone photo. */
  workLongSide: 2400,
};

/** An EXIF-oriented greyscale working copy (raw, one byte a pixel). */
export interface Grey {
  data: Buffer;
  width: number;
  height: number;
  /** The oriented size of the image as uploaded. */
  original: { width: number; height: number };
  /**
   * A colour image's grey levels with fainter colour lifted too (`PALE_COLOUR`): where no zone
   * band is found on the working copy, the search looks again on this one (zone.ts). Made only
   * when asked for (a pass over every pixel of the colour image).
   */
  paleMarksLifted?: () => Buffer;
}

export type Refusal = {
  refused: 'unreadable' | 'quality';
  reason: 'not_an_image' | 'too_many_pixels' | 'aspect_ratio' | 'too_small';
};

export const isRefusal = (value: Grey | Refusal): value is Refusal => 'refused' in value;

/** sharp with the pixel bound on the decoder itself, for every call on uploaded bytes. */
export const boundedSharp = (input: Buffer) =>
  sharp(input, { limitInputPixels: IMAGE_LIMITS.maxInputPixels, failOn: 'truncated' });

/** Decodes an upload to the working copy, or says why it is refused (from the header alone). */
export async function decodeBounded(bytes: Buffer): Promise<Grey | Refusal> {
  let meta: Awaited<ReturnType<Sharp['metadata']>>;
  try {
    // The header only: no pixel is decoded here, so the decoder's own limit is lifted to learn the real size.
    meta = await sharp(bytes, { limitInputPixels: false }).metadata();
  } catch {
    return { refused: 'unreadable', reason: 'not_an_image' };
  }
  const { width = 0, height = 0 } = meta;
  if (!width || !height) return { refused: 'unreadable', reason: 'not_an_image' };
  if (width * height > IMAGE_LIMITS.maxInputPixels) return { refused: 'unreadable', reason: 'too_many_pixels' };
  if (Math.max(width, height) / Math.min(width, height) > IMAGE_LIMITS.maxAspect)
    return { refused: 'unreadable', reason: 'aspect_ratio' };
  if (Math.min(width, height) < IMAGE_LIMITS.minSide) return { refused: 'quality', reason: 'too_small' };
  const sideways = (meta.orientation ?? 1) >= 5;
  const original = sideways ? { width: height, height: width } : { width, height };
  const long = IMAGE_LIMITS.workLongSide;
  try {
    const { data, info } = await boundedSharp(bytes)
      .rotate()
      .flatten({ background: '#ffffff' })
      .resize({ width: long, height: long, fit: 'inside', withoutEnlargement: true })
      .raw()
      .toBuffer({ resolveWithObject: true });
    const pixels = info.width * info.height;
    const raw = { width: info.width, height: info.height, channels: info.channels };
    const luminance = info.channels === 1 ? data : await sharp(data, { raw }).greyscale().raw().toBuffer();
    const grey = firstChannel(luminance, luminance.length / pixels);
    const colour = info.channels >= 3;
    return {
      data: colour ? colourMarksLifted(data, grey, info.channels) : grey,
      width: info.width,
      height: info.height,
      original,
      ...(colour ? { paleMarksLifted: () => colourMarksLifted(data, grey, info.channels, PALE_COLOUR) } : {}),
    };
  } catch {
    return { refused: 'unreadable', reason: 'not_an_image' };
  }
}

/** Colourfulness (brightest minus darkest channel) from which a pixel starts to count as a coloured mark, and the span over which it fully does. */
const COLOUR = { from: 80, span: 60 };
/**
 * The same for pale coloured marks: a thin pink SPECIMEN stamp on a pale green page, softened by
 * JPEG, measures 20-60 and crosses a zone's first line (a PRADO specimen of a Belize passport,
 * held-out 7, whose zone was found by no ink setting). Tinted paper measures up to about 25 and
 * loses nothing when lifted; dark neutral ink measures less still.
 */
const PALE_COLOUR = { from: 30, span: 40 };

/**
 * Grey levels with coloured marks lifted to paper: each pixel's luminance, moved toward its
 * brightest channel as its colourfulness passes `lift.from`. Strongly coloured marks over a page
 * (a red SPECIMEN or MUSTER stamp, a ring drawn round the zone) turn light and neither join the
 * zone's lines nor hide its characters; dark neutral ink, tinted paper and small blurred
 * characters on it (little colour either way) keep their luminance.
 */
function colourMarksLifted(rgb: Buffer, grey: Buffer, channels: number, lift = COLOUR): Buffer {
  const out = Buffer.alloc(grey.length);
  for (let i = 0, j = 0; i < out.length; i++, j += channels) {
    const r = rgb[j];
    const g = rgb[j + 1];
    const b = rgb[j + 2];
    const max = r > g ? (r > b ? r : b) : g > b ? g : b;
    const min = r < g ? (r < b ? r : b) : g < b ? g : b;
    const w = Math.min(1, Math.max(0, (max - min - lift.from) / lift.span));
    out[i] = w === 0 ? grey[i] : Math.round(grey[i] + (max - grey[i]) * w);
  }
  return out;
}

function firstChannel(data: Buffer, channels: number): Buffer {
  if (channels === 1) return data;
  const out = Buffer.alloc(data.length / channels);
  for (let i = 0; i < out.length; i++) out[i] = data[i * channels];
  return out;
}

/** A sharp pipeline over a working copy. */
export const sharpOf = (grey: { data: Buffer; width: number; height: number }) =>
  sharp(grey.data, { raw: { width: grey.width, height: grey.height, channels: 1 } }).toColourspace('b-w');
