import { type Grey, sharpOf } from './decode.js';
import { INK_SETTINGS, type ZoneBand, locateZone } from './locate.js';
import { type MrzResult, findMrz } from './mrz.js';
import { ocrMrzText } from './ocr.js';

/**
 * How a band is given to OCR, in the order tried: the character height it is scaled to, and
 * whether it is binarised. Each size reads zones the others miss (measured on the tuning set:
 * 30 px reads most, 20 px and 40 px each add a few), so they are tried in turn while none passes.
 */
const OCR_VARIANTS = [
  { charHeight: 30, binary: false },
  { charHeight: 20, binary: false },
  { charHeight: 40, binary: false },
  { charHeight: 30, binary: true },
];
/** Widest band image OCR is given (a bound on the upscale). */
const MAX_BAND_WIDTH = 2600;
/** OCR attempts on one side at most: the last ones only when the first read fails. */
const MAX_ATTEMPTS = 8;
/** Time the zone search may take before it settles for its best reading (p99 of a check stays near 5 s). */
const BUDGET_MS = 2500;

export interface ZoneRead {
  mrz: MrzResult | null;
  /** The band the reading came from (absent when the zone was read without one). */
  band: ZoneBand | null;
  /** The band rotated upright and cropped from the working copy (for the quality measures). */
  crop: Grey | null;
  /** The working copy turned so the band runs horizontally, and whether it then reads upside down. */
  turned: Grey | null;
  flip: boolean;
  attempts: number;
  /**
   * The reading kept came out character for character the same from two OCR passes with
   * different settings: what the zone says was read with confidence, whether or not it checks.
   */
  confirmed: boolean;
  /** The page's median character height in working-copy pixels (null: no ink found). */
  textHeight: number | null;
}

/** The working copy turned by `rotation` degrees (clockwise), white where the turn uncovers the canvas. */
export async function turn(grey: Grey, rotation: number): Promise<Grey> {
  if (rotation === 0) return grey;
  const { data, info } = await sharpOf(grey)
    .rotate(rotation, { background: '#ffffff' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, original: grey.original };
}

/** A band cut out, upright, as a raw copy. */
async function cropBand(turned: Grey, band: ZoneBand, flip: boolean): Promise<Grey> {
  const box = {
    ...band.box,
    width: Math.min(band.box.width, turned.width - band.box.left),
    height: Math.min(band.box.height, turned.height - band.box.top),
  };
  let pipeline = sharpOf(turned).extract(box);
  if (flip) pipeline = pipeline.rotate(180);
  const { data, info } = await pipeline.raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, original: turned.original };
}

/** The band as OCR gets it: scaled to the OCR character height (bounded), stretched, optionally binarised. */
async function forOcr(crop: Grey, charHeight: number, variant: (typeof OCR_VARIANTS)[number]): Promise<Buffer> {
  const { binary } = variant;
  const factor = Math.min(variant.charHeight / Math.max(charHeight, 1), MAX_BAND_WIDTH / crop.width, 4);
  const width = Math.max(1, Math.round(crop.width * factor));
  let pipeline = sharpOf(crop).resize({ width, kernel: 'cubic' }).normalise();
  if (binary) pipeline = pipeline.threshold(140);
  return pipeline.extend({ top: 12, bottom: 12, left: 12, right: 12, background: '#ffffff' }).png().toBuffer();
}

const better = (a: MrzResult | null, b: MrzResult | null) =>
  !!a && (!b || a.failed.length * 2 + a.ambiguous.length < b.failed.length * 2 + b.ambiguous.length);

/**
 * Locates the zone (the dark band of long equal lines, at any angle), OCRs only that band,
 * upright first, and stops at the first reading whose check digits all pass. Without a band,
 * the lower and upper parts of the deskewed image are read as a last resort.
 */
export async function readZone(grey: Grey, now: Date): Promise<ZoneRead> {
  let best: ZoneRead = {
    mrz: null,
    band: null,
    crop: null,
    turned: null,
    flip: false,
    attempts: 0,
    textHeight: null,
    confirmed: false,
  };
  const readings = new Map<string, number>();
  const deadline = Date.now() + BUDGET_MS;
  const turned = new Map<number, Grey>();
  const tried: ZoneBand[] = [];
  for (const ink of INK_SETTINGS) {
    if (best.attempts > 0 && Date.now() > deadline) break;
    const layout = await locateZone(grey, ink);
    best.textHeight ??= layout.textHeight;
    const fresh = layout.bands.filter((b) => !tried.some((t) => sameBand(t, b)));
    for (const band of fresh.slice(0, 2)) {
      tried.push(band);
      if (!turned.has(band.rotation)) turned.set(band.rotation, await turn(grey, band.rotation));
      best = await readBand(turned.get(band.rotation)!, band, best, now, deadline, readings);
      if (best.mrz?.valid || best.attempts >= MAX_ATTEMPTS) return best;
    }
  }
  if (!best.mrz && tried.length === 0) {
    const parts = await readParts(grey, now);
    best = { ...best, mrz: parts.mrz, attempts: best.attempts + parts.attempts };
  }
  return best;
}

const readingKey = (mrz: MrzResult) => mrz.lines.join('\n');

/** The same band found by another setting: same turn, boxes overlapping by most of their area. */
function sameBand(a: ZoneBand, b: ZoneBand): boolean {
  if (Math.abs(a.rotation - b.rotation) > 1) return false;
  const w = Math.min(a.box.left + a.box.width, b.box.left + b.box.width) - Math.max(a.box.left, b.box.left);
  const h = Math.min(a.box.top + a.box.height, b.box.top + b.box.height) - Math.max(a.box.top, b.box.top);
  return w > 0 && h > 0 && w * h > 0.6 * Math.min(a.box.width * a.box.height, b.box.width * b.box.height);
}

/** One band OCR'd upright first (each variant in turn), the other way up when nothing zone-shaped came out. */
async function readBand(
  turned: Grey,
  band: ZoneBand,
  best: ZoneRead,
  now: Date,
  deadline: number,
  readings: Map<string, number>,
): Promise<ZoneRead> {
  for (const flip of band.upright ? [false, true] : [true, false]) {
    const crop = await cropBand(turned, band, flip);
    let foundHere = false;
    for (const variant of OCR_VARIANTS) {
      // The budget cuts only the extra attempts: the first two run however slow the machine is.
      if (best.attempts >= MAX_ATTEMPTS || (best.attempts >= 2 && Date.now() > deadline)) return best;
      const mrz = findMrz(await ocrMrzText(await forOcr(crop, band.charHeight, variant)), now);
      best = { ...best, attempts: best.attempts + 1 };
      if (mrz) {
        foundHere = true;
        readings.set(readingKey(mrz), (readings.get(readingKey(mrz)) ?? 0) + 1);
      }
      if (better(mrz, best.mrz)) best = { ...best, mrz, band, crop, turned, flip };
      best = { ...best, confirmed: !!best.mrz && (readings.get(readingKey(best.mrz)) ?? 0) >= 2 };
      if (best.mrz?.valid) return best;
      // Nothing shaped like a zone this way up: the other way up before another variant.
      if (!foundHere) break;
    }
    if (foundHere) break;
  }
  return best;
}

/** No band found: the lower part of the image, then the upper part upside down. */
async function readParts(grey: Grey, now: Date): Promise<{ mrz: MrzResult | null; attempts: number }> {
  const width = Math.min(grey.width, 1600);
  const part = async (flip: boolean) => {
    const top = flip ? 0 : Math.floor(grey.height * 0.55);
    let pipeline = sharpOf(grey).extract({ left: 0, top, width: grey.width, height: Math.ceil(grey.height * 0.45) });
    if (flip) pipeline = pipeline.rotate(180);
    return pipeline.resize({ width }).normalise().png().toBuffer();
  };
  let best: MrzResult | null = null;
  let attempts = 0;
  for (const flip of [false, true]) {
    const mrz = findMrz(await ocrMrzText(await part(flip)), now);
    attempts += 1;
    if (better(mrz, best)) best = mrz;
    if (best?.valid) break;
  }
  return { mrz: best, attempts };
}
