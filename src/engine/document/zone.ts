import { type Grey, sharpOf } from './decode.js';
import { INK_SETTINGS, type ZoneBand, locateZone } from './locate.js';
import { type MrzResult, findMrz } from './mrz.js';
import { ocrMrzText, ocrReady } from './ocr.js';

/**
 * How a band is given to OCR (the MRZ model, models/mrz), in the order tried: the character
 * height it is scaled to. Grey, not binarised: on the tuning set and the synthetic corpus 30 px
 * and 20 px each read zones the other misses, 40 px and a binarised copy add nothing new (and the
 * English model reads half as many), so the two sizes are tried while none passes.
 */
const VARIANTS = [{ charHeight: 30 }, { charHeight: 20 }];
/** Widest band image OCR is given (a bound on the upscale). */
const MAX_BAND_WIDTH = 2600;
/** Longest side of the whole page given to OCR (the working copy is at most 2400 px already). */
const MAX_PAGE_SIDE = 2000;
/** OCR attempts on one side at most: the last ones only when the first read fails. */
const MAX_ATTEMPTS = 9;
/**
 * Wall time the zone search may take before it settles for its best reading: a safety bound.
 * The attempt cap bounds the search on a working machine (9 attempts are about 3 s on 2 idle
 * cores); a tighter clock made what is read depend on the machine's load (under 12 other jobs
 * it cut the fallbacks that read real tuning pictures).
 */
const BUDGET_MS = 8000;

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
   * The reading kept came out character for character the same from two passes of the MRZ
   * model with different settings and, for a zone that fails its check digits, from the
   * English model too: what the zone says was read with confidence, whether or not it checks.
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

/** The band as OCR gets it: scaled to the OCR character height (bounded), stretched, on a white margin. */
async function forOcr(crop: Grey, charHeight: number, target: number): Promise<Buffer> {
  const factor = Math.min(target / Math.max(charHeight, 1), MAX_BAND_WIDTH / crop.width, 4);
  const width = Math.max(1, Math.round(crop.width * factor));
  return sharpOf(crop)
    .resize({ width, kernel: 'cubic' })
    .normalise()
    .extend({ top: 12, bottom: 12, left: 12, right: 12, background: '#ffffff' })
    .png()
    .toBuffer();
}

/**
 * The band's rows across the whole width of the turned page, a character's height above and
 * below: a band the ink search cut short (a line broken by a gap or a photo's edge) reads whole.
 */
async function stripOf(turned: Grey, band: ZoneBand, flip: boolean): Promise<Buffer> {
  const pad = Math.round(band.charHeight);
  const top = Math.max(0, band.box.top - pad);
  const height = Math.min(turned.height - top, band.box.height + 2 * pad);
  let pipeline = sharpOf(turned).extract({ left: 0, top, width: turned.width, height });
  if (flip) pipeline = pipeline.rotate(180);
  const factor = Math.min(30 / Math.max(band.charHeight, 1), MAX_BAND_WIDTH / turned.width, 4);
  return pipeline
    .resize({ width: Math.max(1, Math.round(turned.width * factor)), kernel: 'cubic' })
    .normalise()
    .extend({ top: 12, bottom: 12, left: 12, right: 12, background: '#ffffff' })
    .png()
    .toBuffer();
}

/** The whole page (turned upright), at most MAX_PAGE_SIDE: the MRZ model finds the zone's lines itself. */
async function pageOf(turned: Grey, flip: boolean): Promise<Buffer> {
  const factor = Math.min(1, MAX_PAGE_SIDE / Math.max(turned.width, turned.height));
  let pipeline = sharpOf(turned);
  if (flip) pipeline = pipeline.rotate(180);
  if (factor < 1) pipeline = pipeline.resize({ width: Math.round(turned.width * factor) });
  return pipeline.png().toBuffer();
}

const better = (a: MrzResult | null, b: MrzResult | null) =>
  !!a && (!b || a.failed.length * 2 + a.ambiguous.length < b.failed.length * 2 + b.ambiguous.length);

/** What the search has so far, and its bookkeeping (readings seen, time left). */
interface Search {
  best: ZoneRead;
  readings: Map<string, number>;
  deadline: number;
  now: Date;
}

/** The budget cuts only the extra attempts: the first two run however slow the machine is. */
const outOfTime = (s: Search) => s.best.attempts >= MAX_ATTEMPTS || (s.best.attempts >= 2 && Date.now() > s.deadline);

/** One OCR of one image: counted, remembered, kept when it is the best reading so far. */
async function attempt(s: Search, image: Buffer, where: Partial<ZoneRead>): Promise<MrzResult | null> {
  const mrz = findMrz(await ocrMrzText(image), s.now);
  s.best = { ...s.best, attempts: s.best.attempts + 1 };
  if (mrz) s.readings.set(readingKey(mrz), (s.readings.get(readingKey(mrz)) ?? 0) + 1);
  if (better(mrz, s.best.mrz)) s.best = { ...s.best, mrz, ...where };
  s.best = { ...s.best, confirmed: !!s.best.mrz && (s.readings.get(readingKey(s.best.mrz)) ?? 0) >= 2 };
  return mrz;
}

/**
 * Locates the zone (the dark band of long equal lines, at any angle), OCRs only that band with
 * the MRZ model, upright first, and stops at the first reading whose check digits all pass.
 * When the band does not read: the band's rows across the whole page, then the whole page
 * turned upright, then the bands other ink settings find. Without any band, the whole page
 * both ways up, then its lower and upper parts.
 */
export async function readZone(grey: Grey, now: Date): Promise<ZoneRead> {
  const s = await search(grey, now);
  return { ...s.best, confirmed: s.best.confirmed && (await otherModelAgrees(s.best, now)) };
}

/**
 * A failing zone is evidence only when a second, independent reader sees the same characters:
 * the MRZ model repeats its own misreadings from one pass to the next (a layout it was not
 * trained on, or worn characters, read wrong the same way twice), so its agreement with itself
 * is not enough. The
 * English model reads the kept band; only an identical reading confirms it. Whole-page readings
 * (no band) are never confirmed.
 */
async function otherModelAgrees(best: ZoneRead, now: Date): Promise<boolean> {
  const { mrz, band, crop } = best;
  if (!best.confirmed || !mrz || mrz.valid || !band || !crop) return false;
  for (const variant of VARIANTS) {
    const other = findMrz(await ocrMrzText(await forOcr(crop, band.charHeight, variant.charHeight), 'eng'), now);
    if (other && readingKey(other) === readingKey(mrz)) return true;
  }
  return false;
}

async function search(grey: Grey, now: Date): Promise<Search> {
  // The model's first load is no reading time: the budget starts once it is in memory.
  await ocrReady();
  const s: Search = {
    best: {
      mrz: null,
      band: null,
      crop: null,
      turned: null,
      flip: false,
      attempts: 0,
      textHeight: null,
      confirmed: false,
    },
    readings: new Map(),
    deadline: Date.now() + BUDGET_MS,
    now,
  };
  const turned = new Map<number, Grey>();
  const turnedBy = async (rotation: number) => {
    if (!turned.has(rotation)) turned.set(rotation, await turn(grey, rotation));
    return turned.get(rotation)!;
  };
  const tried: ZoneBand[] = [];
  let pageRead = false;
  for (const ink of INK_SETTINGS) {
    if (s.best.attempts > 0 && outOfTime(s)) break;
    const layout = await locateZone(grey, ink);
    s.best.textHeight ??= layout.textHeight;
    const fresh = layout.bands.filter((b) => !tried.some((t) => sameBand(t, b)));
    for (const band of fresh.slice(0, 2)) {
      tried.push(band);
      await readBand(s, await turnedBy(band.rotation), band);
      if (s.best.mrz?.valid || outOfTime(s)) return s;
    }
    if (!pageRead && tried.length > 0) {
      pageRead = true;
      // The first band found, read across the page and then as a whole page, before further ink settings.
      const band = tried[0];
      const page = await turnedBy(band.rotation);
      const flip = s.best.band === band ? s.best.flip : !band.upright;
      await attempt(s, await stripOf(page, band, flip), {
        band,
        crop: await cropBand(page, band, flip),
        turned: page,
        flip,
      });
      if (s.best.mrz?.valid || outOfTime(s)) return s;
      await attempt(s, await pageOf(page, flip), { band: null, crop: null, turned: page, flip });
      if (s.best.mrz?.valid || outOfTime(s)) return s;
    }
  }
  if (tried.length === 0) {
    for (const flip of [false, true]) {
      if (outOfTime(s)) break;
      await attempt(s, await pageOf(grey, flip), { band: null, crop: null, turned: grey, flip });
      if (s.best.mrz?.valid) return s;
    }
    if (!s.best.mrz && !outOfTime(s)) {
      const parts = await readParts(grey, now);
      s.best = { ...s.best, mrz: parts.mrz, attempts: s.best.attempts + parts.attempts };
    }
  }
  return s;
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
async function readBand(s: Search, turned: Grey, band: ZoneBand): Promise<void> {
  for (const flip of band.upright ? [false, true] : [true, false]) {
    const crop = await cropBand(turned, band, flip);
    let foundHere = false;
    for (const variant of VARIANTS) {
      if (outOfTime(s)) return;
      const mrz = await attempt(s, await forOcr(crop, band.charHeight, variant.charHeight), {
        band,
        crop,
        turned,
        flip,
      });
      foundHere ||= !!mrz;
      if (s.best.mrz?.valid) return;
      // Nothing shaped like a zone this way up: the other way up before another variant.
      if (!foundHere) break;
    }
    if (foundHere) break;
  }
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
