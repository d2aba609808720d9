import { type Grey, sharpOf } from './decode.js';
import { components } from './locate.js';

/** Measurements of one capture; they explain a failed read and never refuse one that passed its check digits. */
export interface QualityMetrics {
  /** The uploaded image's oriented size (reported, never a reason on its own). */
  width: number;
  height: number;
  /** The zone's character height in the uploaded image's pixels (null: no zone located). */
  char_height: number | null;
  /** Variance of the Laplacian on the zone scaled to a fixed character height (or on the page without one); higher is sharper. */
  sharpness: number;
  /** Share of the document's area clipped to white while its paper is not white: a specular highlight. */
  glare: number;
  /** Standard deviation of the grey levels: near 0 means nothing is pictured. */
  contrast: number;
}

export type QualityProblem = 'low_resolution' | 'blurred' | 'glare' | 'no_content';

export interface QualityReport {
  metrics: QualityMetrics;
  problems: QualityProblem[];
}

/**
 * Limits set on renders and the tuning set: characters under ~9 px are where OCR stops
 * reading a zone; the sharpness limit is measured on the zone at SHARPNESS_CHAR_HEIGHT.
 */
export const QUALITY_LIMITS = {
  minCharHeight: 9,
  minSharpness: 120,
  minPageSharpness: 40,
  maxGlare: 0.04,
  minContrast: 12,
  whitePaper: 238,
};
const SHARPNESS_CHAR_HEIGHT = 24;
const PAGE_WIDTH = 800;

function laplacianVariance(pixels: Buffer, width: number, height: number): number {
  let sum = 0;
  let sumSq = 0;
  let n = 0;
  for (let y = 1; y < height - 1; y++) {
    for (let x = 1; x < width - 1; x++) {
      const i = y * width + x;
      const v = pixels[i - 1] + pixels[i + 1] + pixels[i - width] + pixels[i + width] - 4 * pixels[i];
      sum += v;
      sumSq += v * v;
      n++;
    }
  }
  if (n === 0) return 0;
  const mean = sum / n;
  return sumSq / n - mean * mean;
}

const median = (values: Buffer) => {
  const histogram = new Uint32Array(256);
  for (let i = 0; i < values.length; i++) histogram[values[i]]++;
  let seen = 0;
  for (let v = 0; v < 256; v++) if ((seen += histogram[v]) >= values.length / 2) return v;
  return 255;
};

/** The zone where one was located (its crop and character height in working pixels), else the page. */
export interface QualityZone {
  crop: Grey | null;
  charHeight: number | null;
}

/** Resolution by the zone's character height, blur, specular glare and whether anything is pictured. */
export async function measureQuality(grey: Grey, zone: QualityZone): Promise<QualityReport> {
  const width = Math.min(PAGE_WIDTH, grey.width);
  const page = await sharpOf(grey).resize({ width }).raw().toBuffer({ resolveWithObject: true });
  const stats = await sharpOf({ data: page.data, width: page.info.width, height: page.info.height }).stats();
  const toOriginal = grey.original.width / grey.width;
  const charHeight = zone.charHeight ? Math.round(zone.charHeight * toOriginal * 10) / 10 : null;
  let sharpness: number;
  let glare: number;
  if (zone.crop && zone.charHeight) {
    const factor = Math.min(SHARPNESS_CHAR_HEIGHT / zone.charHeight, 2);
    const scaled = await sharpOf(zone.crop)
      .resize({ width: Math.max(8, Math.round(zone.crop.width * factor)) })
      .raw()
      .toBuffer({ resolveWithObject: true });
    sharpness = laplacianVariance(scaled.data, scaled.info.width, scaled.info.height);
    glare = Math.max(glareOf(zone.crop.data, zone.crop.width, zone.crop.height), washedOut(zone.crop, zone.charHeight));
  } else {
    sharpness = laplacianVariance(page.data, page.info.width, page.info.height);
    glare = glareOf(page.data, page.info.width, page.info.height);
  }
  const metrics: QualityMetrics = {
    width: grey.original.width,
    height: grey.original.height,
    char_height: charHeight,
    sharpness: Math.round(sharpness),
    glare: Math.round(glare * 1000) / 1000,
    contrast: Math.round(stats.channels[0].stdev * 10) / 10,
  };
  const problems: QualityProblem[] = [];
  if (metrics.contrast < QUALITY_LIMITS.minContrast) problems.push('no_content');
  if (charHeight !== null && charHeight < QUALITY_LIMITS.minCharHeight) problems.push('low_resolution');
  if (metrics.sharpness < (zone.crop ? QUALITY_LIMITS.minSharpness : QUALITY_LIMITS.minPageSharpness))
    problems.push('blurred');
  if (metrics.glare > QUALITY_LIMITS.maxGlare) problems.push('glare');
  return { metrics, problems };
}

/**
 * Specular glare: clipped (>= 250) blobs on a document whose own tone is darker than white.
 * White paper is not glare: a blob spanning the frame (the paper or canvas around a scan, the
 * ground between a zone's letters), a blob filling its box like a rectangle (a printed white
 * box), and a blob with print inside it (a white ground printed on a tinted card: a zone's
 * strip, a barcode's quiet zone) are left out. A highlight washes out what lies under it, so
 * no dark ink stands inside it; a white ground keeps its print.
 */
function glareOf(pixels: Buffer, width: number, height: number): number {
  if (median(pixels) >= QUALITY_LIMITS.whitePaper) return 0;
  const clipped = new Uint8Array(pixels.length);
  for (let i = 0; i < pixels.length; i++) clipped[i] = pixels[i] >= 250 ? 1 : 0;
  let glare = 0;
  for (const c of components(clipped, width, height)) {
    const spans = (c.left === 0 && c.right === width - 1) || (c.top === 0 && c.bottom === height - 1);
    const boxed = c.count / ((c.right - c.left + 1) * (c.bottom - c.top + 1));
    if (!spans && boxed < 0.88 && c.count >= pixels.length * 0.002 && !printedInside(pixels, clipped, width, c))
      glare += c.count;
  }
  return glare / Math.max(1, pixels.length);
}

/** Ink darker than this inside a clipped blob is print on a white ground (glare leaves nothing this dark). */
const INK_UNDER_WHITE = 100;
/** Share of a blob's row spans that may be such ink before the blob counts as a printed white ground. */
const PRINTED_SHARE = 0.05;

/**
 * Whether a clipped blob holds print: on each row of its box, the pixels between the first and
 * last clipped ones are counted, and the dark ones among them (ink, bars) compared with its size.
 */
function printedInside(
  pixels: Buffer,
  clipped: Uint8Array,
  width: number,
  c: { left: number; top: number; right: number; bottom: number; count: number },
): boolean {
  let dark = 0;
  for (let y = c.top; y <= c.bottom; y++) {
    const row = y * width;
    let first = -1;
    let last = -1;
    for (let x = c.left; x <= c.right; x++)
      if (clipped[row + x]) {
        if (first < 0) first = x;
        last = x;
      }
    for (let x = first; first >= 0 && x <= last; x++) if (pixels[row + x] < INK_UNDER_WHITE) dark++;
  }
  return dark >= c.count * PRINTED_SHARE;
}

/**
 * The least share of its median contrast any part of the zone may show for the zone to be
 * evidence (`inkEvenness`). Evenly lit zones measure 0.94-0.99 on renders and 0.76
 * or more on the real sets but for one specimen (0.18, its zone under an overprint); the lamp's
 * reflection that gave ID_INVALID measured 0.54.
 */
export const EVEN_INK = 0.7;

/**
 * A band cut into windows of about two characters (its margins left out): each window's paper
 * (its 80th percentile grey) and ink (its 2nd).
 */
function bandWindows(crop: Grey, charHeight: number): { paper: number; ink: number }[] {
  const { data, width, height } = crop;
  const step = Math.max(4, Math.round(charHeight * 2));
  const margin = Math.round(charHeight * 1.5);
  const windows: { paper: number; ink: number }[] = [];
  for (let x0 = margin; x0 + step <= width - margin; x0 += step) {
    const histogram = new Uint32Array(256);
    for (let y = 0; y < height; y++) for (let x = x0; x < x0 + step; x++) histogram[data[y * width + x]]++;
    const n = step * height;
    const at = (share: number) => {
      for (let v = 0, seen = 0; v < 256; v++) if ((seen += histogram[v]) >= n * share) return v;
      return 255;
    };
    windows.push({ paper: at(0.8), ink: at(0.02) });
  }
  return windows;
}

/**
 * How evenly the zone's ink stands out along it: each window's contrast (paper less ink), the
 * lowest over the median one. About 0.8-1 on an evenly lit zone; a lamp's reflection or a hand's
 * shadow over part of it washes that part out and brings it under a half. A zone read there may
 * have lost characters no check digit covers (a name), so it is not evidence against the
 * document (analyse.ts `evidenceGrade`).
 */
export function inkEvenness(crop: Grey, charHeight: number, lines = 1): number {
  return Math.min(...linesOf(crop, lines).map((line) => lineInkEvenness(line, charHeight)));
}

function lineInkEvenness(crop: Grey, charHeight: number): number {
  const contrasts = bandWindows(crop, charHeight).map((w) => w.paper - w.ink);
  if (contrasts.length < 3) return 1;
  const sorted = [...contrasts].sort((a, b) => a - b);
  const middle = sorted[Math.floor(sorted.length / 2)];
  return middle > 0 ? Math.round((sorted[0] / middle) * 100) / 100 : 1;
}

/**
 * A band cut into its lines (equal strips of its height): a reflection over a card's lower lines
 * leaves the first line's ink in every window of the whole band, and measured whole the band
 * looks evenly inked.
 */
export function linesOf(crop: Grey, lines: number): Grey[] {
  const n = Math.max(1, Math.round(lines));
  return Array.from({ length: n }, (_, i) => {
    const [top, bottom] = [Math.floor((crop.height * i) / n), Math.floor((crop.height * (i + 1)) / n)];
    return { ...crop, data: crop.data.subarray(top * crop.width, bottom * crop.width), height: bottom - top };
  });
}

/**
 * How evenly lit the band's paper is: its darkest window's paper over its brightest's. Under
 * UNEVEN_PAPER (a shadow's edge across the zone) the MRZ model's own threshold splits each line
 * where the paper changes, and the band is read divided by its paper first (zone.ts).
 */
export function paperEvenness(crop: Grey, charHeight: number): number {
  const papers = bandWindows(crop, charHeight).map((w) => w.paper);
  if (papers.length < 3) return 1;
  return Math.round((Math.min(...papers) / Math.max(Math.max(...papers), 1)) * 100) / 100;
}

/**
 * The share of the zone washed out by a reflection: windows whose contrast is under EVEN_INK of
 * the median window's and whose paper is brighter than the median paper (a shadow darkens its
 * paper instead). A soft reflection need not clip to white, and the glare measure above counts
 * only clipped blobs; counted as glare when over QUALITY_LIMITS.maxGlare, it makes a zone that
 * does not read a retake request with its reason, not a review.
 */
export function washedOut(crop: Grey, charHeight: number): number {
  const windows = bandWindows(crop, charHeight);
  if (windows.length < 3) return 0;
  const middle = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const contrast = middle(windows.map((w) => w.paper - w.ink));
  const paper = middle(windows.map((w) => w.paper));
  const washed = windows.filter((w) => w.paper - w.ink < contrast * EVEN_INK && w.paper > paper);
  return Math.round((washed.length / windows.length) * 1000) / 1000;
}
