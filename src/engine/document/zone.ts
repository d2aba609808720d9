import { straightened } from './bow.js';
import { type Grey, sharpOf } from './decode.js';
import { type Turned, cropBand, deglared, flatField, forOcrPng, paperStretch, turn } from './frame.js';
import { confirmByGlyphs, numberDisputedByGlyphs } from './glyphs.js';
import { INK_SETTINGS, type ZoneBand, locateZone, sameBand } from './locate.js';
import { linesOf, paperEvenness, washedOut } from './quality.js';
import { type MrzResult, findMrz, onlyUnconfirmed } from './mrz.js';
import { ocrMrz, ocrMrzText, ocrReady } from './ocr.js';
import { confirmNumber, numberDisputed, repairByOtherReader } from './second-reader.js';
import { type Trace, timed } from './trace.js';

export { turn } from './frame.js';

/**
 * How a band is given to OCR (the MRZ model, models/mrz), in the order tried while none passes:
 * the character height it is scaled to, and whether it is first divided by its paper
 * (`flatField`: uneven light, shadows, tinted and patterned backgrounds). The order is measured
 * on the tuning set and the synthetic corpus (docs/checks-document.md, "Reading").
 */
const VARIANTS: Variant[] = [
  { charHeight: 30, flat: false },
  { charHeight: 20, flat: false },
  { charHeight: 30, flat: true },
];
/**
 * The variants for a band whose paper is uneven (a shadow's edge across it): divided by its paper
 * at both heights first, so that two passes can agree on what only the flat copies read.
 */
const SHADOWED: Variant[] = [
  { charHeight: 30, flat: true },
  { charHeight: 20, flat: true },
  ...VARIANTS.filter((v) => !v.flat),
];
/**
 * The variants for a band part of which a reflection washed out (quality.ts `washedOut`): the
 * reflection's light taken off first (frame.ts `deglared`), at both heights. The MRZ model reads
 * such a band with the washed-out characters missing, as no zone at all, and a band that reads as
 * no zone either way up is given up before any other variant.
 */
const GLARED: Variant[] = [
  { charHeight: 30, flat: false, deglare: true },
  { charHeight: 20, flat: false, deglare: true },
  ...VARIANTS,
];
export interface Variant {
  charHeight: number;
  flat: boolean;
  /** A reflection's light taken off first (frame.ts `deglared`). */
  deglare?: boolean;
}
/**
 * A band whose darkest paper is under this share of its brightest (a shadow's edge across it) is
 * read divided by its paper first: the MRZ model's own threshold splits each line where the paper
 * changes, and the band read as no zone was given up before the flat variant was tried.
 */
const UNEVEN_PAPER = 0.7;
/** Widest band image OCR is given (a bound on the upscale). */
const MAX_BAND_WIDTH = 2600;
/** Longest side of the whole page given to OCR (the working copy is at most 2400 px already). */
const MAX_PAGE_SIDE = 2000;
/**
 * Longest side of the whole page read when no band was found at any ink setting. Such a page is
 * mostly one with no zone (a card's front, a cover, a form): the MRZ model then reads every line
 * of its print or texture, 5-20 s at 2000 px for a form or an embossed cover, and across the
 * spent real sets, the renders and the stress probes (about 420 pictures) no zone was ever read
 * this way. At 1000 px a zone filling the frame still has characters of 20 px or more.
 */
const NO_BAND_PAGE_SIDE = 1000;
/**
 * The search's budget is counted work, never time: at most this many OCR attempts on one side
 * (the last ones only when the first read fails), plus the fixed follow-ups on the reading kept
 * (one English repair read, one number read, at most two confirming reads). What a picture reads
 * is then the same on an idle machine and under any load; a wall-clock budget (8 s until
 * docread4) cut the fallbacks under load, and a forged zone came out MRZ_NOT_FOUND instead of
 * ID_INVALID when the machine was busy.
 */
export const MAX_ATTEMPTS = 8;
/**
 * A last-resort safety net, far above any search's real length (the slowest whole checks
 * measured: 10.8 s at load 5-6, p99 13.2 s at load 10-14): past it the search stops where it is and
 * the side is marked `cutShort`, which can only end in review (never `ID_INVALID`, never a
 * rejection the search with time to spare would not give). Counted from the search's start.
 */
export const SAFETY_MS = 60_000;
/** Milliseconds from some origin (the safety net's clock; injectable for tests). */
export type Clock = () => number;

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
  /** The safety net (SAFETY_MS) stopped the search before its counted budget was used: review at most. */
  cutShort: boolean;
}

/** The band as OCR gets it: scaled to the OCR character height (bounded), stretched, on a white margin. */
export async function forOcr(crop: Grey, charHeight: number, variant: Variant): Promise<Buffer> {
  const source = variant.flat
    ? await flatField(crop, charHeight)
    : variant.deglare
      ? await deglared(crop, charHeight)
      : crop;
  const factor = Math.min(variant.charHeight / Math.max(charHeight, 1), MAX_BAND_WIDTH / crop.width, 4);
  const width = Math.max(1, Math.round(crop.width * factor));
  const { multiply, add } = paperStretch(source);
  return forOcrPng(
    sharpOf(source)
      .resize({ width, kernel: 'cubic' })
      .linear(multiply, add)
      .extend({ top: 12, bottom: 12, left: 12, right: 12, background: '#ffffff' }),
  );
}

/** The band's box in the turned copy, clipped to it. */
const boxOf = (turned: Grey, band: ZoneBand) => ({
  ...band.box,
  width: Math.min(band.box.width, turned.width - band.box.left),
  height: Math.min(band.box.height, turned.height - band.box.top),
});

/**
 * The band's rows across the whole width of the turned page, a character's height above and
 * below: a band the ink search cut short (a line broken by a gap or a photo's edge) reads whole.
 */
function stripOf(turned: Turned, band: ZoneBand, flip: boolean): Promise<Buffer> {
  const pad = Math.round(band.charHeight);
  const top = Math.max(0, band.box.top - pad);
  const height = Math.min(turned.height - top, band.box.height + 2 * pad);
  const strip = cropBand(turned, { left: 0, top, width: turned.width, height }, flip);
  const factor = Math.min(30 / Math.max(band.charHeight, 1), MAX_BAND_WIDTH / turned.width, 4);
  return forOcrPng(
    sharpOf(strip)
      .resize({ width: Math.max(1, Math.round(turned.width * factor)), kernel: 'cubic' })
      .normalise()
      .extend({ top: 12, bottom: 12, left: 12, right: 12, background: '#ffffff' }),
  );
}

/** The whole page (turned upright), at most MAX_PAGE_SIDE: the MRZ model finds the zone's lines itself. */
function pageOf(turned: Turned, flip: boolean, side = MAX_PAGE_SIDE): Promise<Buffer> {
  const factor = Math.min(1, side / Math.max(turned.width, turned.height));
  let pipeline = sharpOf(turned);
  if (flip) pipeline = pipeline.rotate(180);
  if (factor < 1) pipeline = pipeline.resize({ width: Math.round(turned.width * factor) });
  return forOcrPng(pipeline);
}

const score = (m: MrzResult) => m.failed.length * 2 + m.ambiguous.length;
const better = (a: MrzResult | null, b: MrzResult | null) => !!a && (!b || score(a) < score(b));
/** A reading that says little: nothing zone-shaped, or most of its check digits failing (upside down, or the wrong band). */
const poor = (m: MrzResult | null) => !m || m.failed.length >= 3 || m.failed.includes('length');

/** What the search has so far, and its bookkeeping (readings seen, the safety net). */
interface Search {
  best: ZoneRead;
  readings: Map<string, number>;
  deadline: number;
  clock: Clock;
  now: Date;
  trace?: Trace;
}

/** The counted budget is spent, or the safety net fired (which marks the reading cut short). */
function outOfBudget(s: Search): boolean {
  if (s.best.attempts >= MAX_ATTEMPTS) return true;
  if (s.clock() > s.deadline) s.best = { ...s.best, cutShort: true };
  return s.best.cutShort;
}
/**
 * A reading whose only doubt is its number's unconfirmed characters (mrz.ts), read the same by two
 * passes: further passes of the same model would repeat it, so the search stops and the second
 * reader decides (readZone).
 */
const settleable = ({ best }: Search) => !!best.mrz && best.confirmed && onlyUnconfirmed(best.mrz);
const done = (s: Search) => !!s.best.mrz?.valid || settleable(s) || outOfBudget(s);

/** One OCR of one image: counted, remembered, kept when it is the best reading so far. */
async function attempt(
  s: Search,
  pending: Buffer | Promise<Buffer>,
  where: Partial<ZoneRead>,
  label: string,
): Promise<{ mrz: MrzResult | null; confidence: number }> {
  const image = await pending;
  const { text, confidence } = await timed(
    s.trace,
    `ocr ${label}`,
    () => ocrMrz(image),
    (r) => `${summary(findMrz(r.text, s.now))} (confidence ${Math.round(r.confidence)})`,
    image,
  );
  const mrz = findMrz(text, s.now);
  s.best = { ...s.best, attempts: s.best.attempts + 1 };
  if (mrz) s.readings.set(readingKey(mrz), (s.readings.get(readingKey(mrz)) ?? 0) + 1);
  if (better(mrz, s.best.mrz)) s.best = { ...s.best, mrz, ...where };
  s.best = { ...s.best, confirmed: !!s.best.mrz && (s.readings.get(readingKey(s.best.mrz)) ?? 0) >= 2 };
  return { mrz, confidence };
}

/**
 * Locates the zone (the dark band of long equal lines, at any angle), OCRs only that band with
 * the MRZ model and stops at the first reading whose check digits all pass. When the band does
 * not read: the band's rows across the whole page, then the whole page turned upright, then the
 * bands other ink settings find; with no band at all on a colour picture, the same on a copy with pale colour lifted
 * (a thin pink stamp over the zone). Without any band, the whole page both ways up, at most
 * NO_BAND_PAGE_SIDE.
 */
export async function readZone(
  grey: Grey,
  now: Date,
  trace?: Trace,
  clock: Clock = () => performance.now(),
): Promise<ZoneRead> {
  const s = await search(grey, now, clock, trace);
  // Cut short, the failing reading is not repaired, disputed or confirmed: the side goes to review.
  if (s.best.cutShort && !s.best.mrz?.valid) return { ...s.best, confirmed: false };
  if (s.best.mrz && !s.best.mrz.valid && s.best.band && s.best.crop) {
    const image = await forOcr(s.best.crop, s.best.band.charHeight, VARIANTS[0]);
    const repaired = await timed(
      trace,
      'repair (English model)',
      () => repairByOtherReader(image, s.best.mrz!, now),
      (r) => summary(r),
    );
    if (repaired) s.best = { ...s.best, mrz: repaired, confirmed: false };
  }
  const { mrz, band, crop } = s.best;
  // A number no check digit can settle (a U, L or G amid digits, or a D amid digits only the letter passes), read the same by two passes of the
  // MRZ model: the English model may settle it (second-reader.ts).
  // The zone's own glyphs first (no OCR: the characters in question against the same characters elsewhere in the
  // zone), which alone may settle swaps that cancel; then the English model.
  if (mrz?.unconfirmed && band && crop && (s.readings.get(readingKey(mrz)) ?? 0) >= 2) {
    const outcome = (r: MrzResult | null) => (r ? 'settled' : 'not settled');
    const settled =
      (await timed(
        trace,
        'number unconfirmed (zone glyphs)',
        () => confirmByGlyphs(crop, band.charHeight, mrz),
        outcome,
      )) ?? (await timed(trace, 'number unconfirmed (English model)', () => confirmNumber(crop, band, mrz), outcome));
    if (settled) s.best = { ...s.best, mrz: settled };
  }
  if (mrz?.valid && band && crop) {
    const disputed =
      (await timed(trace, 'number (zone glyphs)', () => numberDisputedByGlyphs(crop, band.charHeight, mrz), String)) ||
      (await timed(trace, 'number (English model)', () => numberDisputed(crop, band, mrz), String));
    if (disputed) s.best.mrz = { ...mrz, valid: false, ambiguous: [...mrz.ambiguous, 'document_number'] };
  }
  const confirmed =
    s.best.confirmed && (await timed(trace, 'confirm (English model)', () => otherModelAgrees(s.best, now), String));
  return { ...s.best, confirmed };
}

/**
 * A failing zone is evidence only when a second, independent reader sees the same characters:
 * the MRZ model repeats its own misreadings from one pass to the next (a layout it was not
 * trained on, or worn characters, read wrong the same way twice), so its agreement with itself
 * is not enough. The English model reads the kept band; only an identical reading confirms it.
 * Whole-page readings (no band) are never confirmed.
 */
async function otherModelAgrees(best: ZoneRead, now: Date): Promise<boolean> {
  const { mrz, band, crop } = best;
  if (!best.confirmed || !mrz || mrz.valid || !band || !crop) return false;
  for (const charHeight of [30, 20]) {
    const image = await forOcr(crop, band.charHeight, { charHeight, flat: false });
    const other = findMrz(await ocrMrzText(image, 'eng'), now);
    if (other && readingKey(other) === readingKey(mrz)) return true;
  }
  return false;
}

async function search(grey: Grey, now: Date, clock: Clock, trace?: Trace): Promise<Search> {
  const started = clock();
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
      cutShort: false,
    },
    readings: new Map(),
    deadline: started + SAFETY_MS,
    clock,
    now,
    trace,
  };
  const tried: ZoneBand[] = [];
  /** Which way up each band read better (true: turned 180°). */
  const ways = new Map<ZoneBand, boolean>();
  /** The bands each ink setting finds on `source`, read in turn; true when the search is done. */
  const bandsOn = async (source: Grey, label = '') => {
    const turned = new Map<number, Turned>();
    const turnedBy = async (rotation: number) => {
      if (!turned.has(rotation))
        turned.set(rotation, await timed(trace, `turn ${rotation}${label}`, () => turn(source, rotation)));
      return turned.get(rotation)!;
    };
    let pageRead = false;
    for (const ink of INK_SETTINGS) {
      if (s.best.attempts > 0 && outOfBudget(s)) break;
      const layout = await timed(
        trace,
        `locate ink ${ink.contrast}/${ink.enlarge}${label}`,
        () => locateZone(source, ink),
        (l) => l.bands.map(describeBand).join('; '),
      );
      s.best.textHeight ??= layout.textHeight;
      // A band already read is not read again, unless it now holds more lines (a TD1 card's third line lost on a
      // patterned ground at one ink setting and found at the next: the two-line band reads as no zone).
      const fresh = layout.bands.filter((b) => !tried.some((t) => sameBand(t, b) && t.lines >= b.lines));
      for (const band of fresh.slice(0, 2)) {
        tried.push(band);
        ways.set(band, await readBand(s, await turnedBy(band.rotation), band));
        if (done(s)) return true;
      }
      if (!pageRead && tried.length > 0) {
        pageRead = true;
        // The first band found, read across the page and then as a whole page, before further ink settings.
        const band = tried[0];
        const page = await turnedBy(band.rotation);
        const flip = ways.get(band) ?? !band.upright;
        const where = { band, crop: cropBand(page, boxOf(page, band), flip), turned: page, flip };
        await attempt(s, await stripOf(page, band, flip), where, `strip${flip ? ' flipped' : ''}`);
        if (done(s)) return true;
        const whole = { band: null, crop: null, turned: page, flip };
        await attempt(s, await pageOf(page, flip), whole, `page turned${flip ? ' flipped' : ''}`);
        if (done(s)) return true;
      }
    }
    return false;
  };
  if (await bandsOn(grey)) return s;
  // No band at any ink setting: a pale coloured mark (a thin pink SPECIMEN stamp) may cross the zone's lines; the
  // colour image is searched again with fainter colour lifted to paper (decode.ts `PALE_COLOUR`).
  if (tried.length === 0 && grey.paleMarksLifted) {
    const pale = { ...grey, data: grey.paleMarksLifted(), paleMarksLifted: undefined };
    if (await bandsOn(pale, ' (pale colour lifted)')) return s;
  }
  if (tried.length === 0) {
    for (const flip of [false, true]) {
      if (outOfBudget(s)) break;
      await attempt(
        s,
        await pageOf(grey, flip, NO_BAND_PAGE_SIDE),
        { band: null, crop: null, turned: grey, flip },
        `page${flip ? ' flipped' : ''}`,
      );
      if (s.best.mrz?.valid) return s;
    }
  }
  return s;
}

const readingKey = (mrz: MrzResult) => mrz.lines.join('\n');

/** A reading in a few words (the trace). */
const summary = (mrz: MrzResult | null) =>
  !mrz
    ? 'no zone'
    : mrz.valid
      ? `${mrz.format} valid`
      : `${mrz.format} failed ${[...mrz.failed, ...mrz.ambiguous].join(',')}`;
const describeBand = (b: ZoneBand) =>
  `${b.lines} lines ${b.box.width} px at ${b.rotation.toFixed(1)}°${b.upright ? '' : ' (text above it: upside down)'}`;

/** A reflection washed out part of some line of the band (quality.ts `washedOut`, line by line). */
const reflected = (crop: Grey, band: ZoneBand) =>
  linesOf(crop, band.lines).some((line) => washedOut(line, band.charHeight) > 0);

/**
 * One band: the first variant the way up the page's text suggests, then, when that says little
 * (nothing zone-shaped, most check digits failing), the other way up; the remaining variants
 * on whichever way the OCR was surer of (text upside down reads at a low confidence, and its
 * garbage may even pass a check digit by chance). Returns the way kept (true: turned 180°).
 */
async function readBand(s: Search, turned: Turned, band: ZoneBand): Promise<boolean> {
  const box = boxOf(turned, band);
  const ways = band.upright ? [false, true] : [true, false];
  const crops = new Map<boolean, Grey>();
  // A bowed band (a bent page) is straightened first (bow.ts); a level one is read as cut.
  const cropOf = (flip: boolean) => {
    if (!crops.has(flip)) {
      const crop = cropBand(turned, box, flip);
      crops.set(flip, straightened(crop, band.charHeight) ?? crop);
    }
    return crops.get(flip)!;
  };
  const read = (flip: boolean, variant: Variant) =>
    attempt(
      s,
      forOcr(cropOf(flip), band.charHeight, variant),
      { band, crop: cropOf(flip), turned, flip },
      `band ${variant.charHeight}px${variant.flat ? ' flat' : ''}${variant.deglare ? ' deglared' : ''}${flip ? ' flipped' : ''}`,
    );
  let flip = ways[0];
  // A shadow's edge across the band: read divided by its paper first (quality.ts `paperEvenness`); a reflection over
  // part of it: read with the reflection's light taken off first.
  const variants =
    paperEvenness(cropOf(flip), band.charHeight) < UNEVEN_PAPER
      ? SHADOWED
      : reflected(cropOf(flip), band)
        ? GLARED
        : VARIANTS;
  const first = await read(flip, variants[0]);
  if (done(s)) return flip;
  if (poor(first.mrz)) {
    const other = await read(ways[1], variants[0]);
    if (done(s)) return ways[1];
    // Neither way up gave anything zone-shaped: this band is not the zone.
    if (!first.mrz && !other.mrz) return flip;
    if (other.mrz && (!first.mrz || other.confidence > first.confidence)) flip = ways[1];
  }
  for (const variant of variants.slice(1)) {
    await read(flip, variant);
    if (done(s)) return flip;
  }
  return flip;
}
