import { aamvaFields, type BarcodeFields, readPdf417 } from './barcode.js';
import { type Grey, type Refusal, decodeBounded, isRefusal, sharpOf } from './decode.js';
import { type MrzResult, documentTypeOf } from './mrz.js';
import { ocrLines } from './ocr.js';
import { cropBand, fullStretch } from './frame.js';
import {
  type PrintedFields,
  confident,
  dateNearMiss,
  numberNearMiss,
  numbersDisagree,
  readPrinted,
  sameSurname,
} from './printed.js';
import { EVEN_INK, type QualityProblem, type QualityReport, inkEvenness, measureQuality } from './quality.js';
import { type Trace, timed } from './trace.js';
import { type Clock, type ZoneRead, readZone } from './zone.js';

export type Side = 'front' | 'back';

/** What one image gave; plain JSON (the analysis may run in a worker thread). */
export interface SideAnalysis {
  side: Side;
  quality: QualityReport;
  /** The image could not be decoded at all, or was refused before decoding (`refused` says why). */
  undecodable?: boolean;
  refused?: Refusal['reason'];
  mrz: MrzResult | null;
  /** The zone search's wall-clock safety net (zone.ts SAFETY_MS) stopped it early: a failed read ends in review. */
  cutShort?: boolean;
  /** The zone's reading came out the same from two MRZ-model passes with different settings (and, failing, from the English model too). */
  mrzConfirmed?: boolean;
  /** How evenly the zone's ink stands out along its band (quality.ts `inkEvenness`; absent without a band). */
  zoneInk?: number;
  /** Raw PDF417 text was found (whether or not it is AAMVA). */
  barcodeFound: boolean;
  barcode: BarcodeFields | null;
  printed: PrintedFields | null;
}

/** The fields the document check fills (decisions.md applicant.fields keys). */
export interface ReadFields {
  type?: string;
  number?: string;
  issuing_country?: string;
  nationality?: string;
  date_of_birth?: string;
  expiry_date?: string;
  first_name?: string;
  last_name?: string;
  sex?: string;
  /** The machine-readable zone's own reading, compared with the printed one by the rules. */
  mrz?: {
    document_number?: string;
    date_of_birth?: string;
    /** The zone's own birth date when the page's print moved its century (age.ts reviews where that changes the outcome). */
    zone_date_of_birth?: string;
  };
}

export interface DocumentAnalysis {
  sides: SideAnalysis[];
  /**
   * `read`: a zone passing every check digit, or a barcode, was read; `uncertain`: a zone was
   * found but failed or was ambiguous on a capture with no quality problem to blame;
   * `image_quality`: nothing verified and the capture's problems explain it; `unreadable`:
   * nothing pictured, not an image, or refused by the decoding bounds; `printed_only`: printed
   * text but nothing machine-readable; `contradicted`: a complete zone, read the same way by two
   * OCR passes on a capture with no quality problem, whose check digits say its data was changed
   * (positive evidence, unlike a failed read).
   */
  outcome: 'read' | 'uncertain' | 'contradicted' | 'image_quality' | 'unreadable' | 'printed_only';
  problems: QualityProblem[];
  read: ReadFields | null;
  mrz_valid: boolean | null;
  barcode_consistent: boolean | null;
  /** Fields on which the zone, the barcode and a confidently located printed field disagree. */
  disagreements: string[];
  /**
   * Printed fields that disagree with a verified zone on a capture too coarse to be evidence (zone
   * characters under EVIDENCE_CHAR_HEIGHT, or a quality problem): the printed reading is uncertain,
   * so the document goes to review (`PRINTED_FIELDS_UNCERTAIN`), never ID_INVALID.
   */
  doubtful?: string[];
  ms: number;
}

export interface AnalyseOptions {
  /** Kept for the eval script: reading always runs before the quality measures now. */
  readDespiteQuality?: boolean;
  now?: Date;
  /** Told each step's wall time (the eval's profile). */
  trace?: Trace;
  /** The zone search's safety-net clock (tests make it jump); the counted budget never depends on it. */
  clock?: Clock;
}

const EMPTY_QUALITY: QualityReport = {
  metrics: { width: 0, height: 0, char_height: null, sharpness: 0, glare: 0, contrast: 0 },
  problems: [],
};

/** The document's printed area above its zone (the visual inspection zone), upright, for labelled fields. */
async function printedAboveZone(zone: ZoneRead): Promise<Framed | null> {
  const { band, turned } = zone;
  if (!band || !turned || !zone.mrz) return null;
  const bw = band.box.width;
  const tall = zone.mrz.format === 'TD1' ? 0.5 : 0.7;
  // A little wider than the zone (a page's printed fields may reach past its last character) and as tall as a page above its zone: more area costs OCR time and located no more labels (checks-document-accuracy.md).
  const x0 = Math.max(0, Math.round(band.box.left - bw * 0.12));
  const x1 = Math.min(turned.width, Math.round(band.box.left + bw * 1.12));
  const [y0, y1] = zone.flip
    ? [band.box.top + band.box.height, Math.min(turned.height, Math.round(band.box.top + band.box.height + bw * tall))]
    : [Math.max(0, Math.round(band.box.top - bw * tall)), band.box.top];
  if (x1 - x0 < 20 || y1 - y0 < 20) return null;
  // Captions print at about a third of the zone's character height: scaled so they come out near 12 px (16 px cost more OCR time and located no more labels on the tuning set).
  const factor = Math.min(36 / band.charHeight, 1800 / (x1 - x0), 2.5);
  const area = cropBand(turned, { left: x0, top: y0, width: x1 - x0, height: y1 - y0 }, zone.flip);
  const { multiply, add } = fullStretch(area);
  return framed(
    sharpOf(area)
      .resize({ width: Math.round((x1 - x0) * factor) })
      .linear(multiply, add),
  );
}

/** The whole page for printed fields (a side without a zone or barcode: a card or licence front), its text scaled near 28 px (small captions are lost below). */
function wholePage(grey: Grey, textHeight: number | null): Promise<Framed> {
  const factor = Math.min(textHeight ? 28 / textHeight : 1, 1800 / grey.width, 1800 / grey.height, 2.5);
  const { multiply, add } = fullStretch(grey);
  return framed(
    sharpOf(grey)
      .resize({ width: Math.round(grey.width * factor) })
      .linear(multiply, add),
  );
}

/** An image for OCR with its size (words touching its edges may be cut off). */
interface Framed {
  image: Buffer;
  width: number;
  height: number;
}

async function framed(pipeline: ReturnType<typeof sharpOf>): Promise<Framed> {
  const { data, info } = await pipeline
    .png({ compressionLevel: 1, adaptiveFiltering: false })
    .toBuffer({ resolveWithObject: true });
  return { image: data, width: info.width, height: info.height };
}

/** Everything one image gives: the zone read first; barcode and printed text where needed; quality to explain a failure. */
export async function analyseSide(side: Side, image: Buffer, options: AnalyseOptions = {}): Promise<SideAnalysis> {
  const now = options.now ?? new Date();
  const trace = options.trace;
  const grey = await timed(trace, 'decode', () => decodeBounded(image));
  if (isRefusal(grey)) {
    const problems: QualityProblem[] = grey.refused === 'quality' ? ['low_resolution'] : [];
    return {
      side,
      quality: { ...EMPTY_QUALITY, problems },
      undecodable: grey.refused === 'unreadable',
      refused: grey.reason,
      mrz: null,
      barcodeFound: false,
      barcode: null,
      printed: null,
    };
  }
  const zone = await readZone(grey, now, trace, options.clock);
  const result: SideAnalysis = {
    side,
    quality: EMPTY_QUALITY,
    ...(zone.cutShort ? { cutShort: true } : {}),
    mrz: zone.mrz,
    mrzConfirmed: zone.confirmed,
    ...(zone.crop && zone.band ? { zoneInk: inkEvenness(zone.crop, zone.band.charHeight, zone.band.lines) } : {}),
    barcodeFound: false,
    barcode: null,
    printed: null,
  };
  if (!zone.mrz?.valid) {
    const barcodeText = await timed(trace, 'barcode', () => readPdf417(grey).catch(() => null));
    result.barcodeFound = barcodeText !== null;
    result.barcode = barcodeText ? aamvaFields(barcodeText) : null;
  }
  if (zone.mrz?.valid) {
    const above = await timed(trace, 'printed crop', () => printedAboveZone(zone));
    if (above)
      result.printed = readPrinted(
        await timed(trace, 'ocr printed (English)', () => ocrLines(above.image), undefined, above.image),
        above,
      );
  } else if (!zone.mrz && !result.barcodeFound) {
    const page = await wholePage(grey, zone.textHeight);
    result.printed = readPrinted(
      await timed(trace, 'ocr printed page (English)', () => ocrLines(page.image), undefined, page.image),
      page,
    );
  }
  result.quality = await timed(trace, 'quality', () =>
    measureQuality(grey, { crop: zone.crop, charHeight: zone.band?.charHeight ?? null }),
  );
  return result;
}

/** OCR confidence a printed surname needs before it may contradict the zone or a barcode. */
const NAME_CONFIDENCE = 88;

const printedOf = (sides: SideAnalysis[]) => sides.map((s) => s.printed).filter((p): p is PrintedFields => !!p);

/** Each confidently located printed field against a machine reading: the fields that disagree. */
function printedDisagreements(
  printed: PrintedFields[],
  machine: { number?: string; date_of_birth?: string; expiry_date?: string; last_name?: string; optional?: string },
  prefix = 'printed_',
  /** The machine reading is a zone's (two-digit years): a birth date a century apart is the same date. */
  zoneYears = false,
): string[] {
  const out: string[] = [];
  for (const p of printed) {
    const number = confident(p, 'number');
    if (number && machine.number && numbersDisagree(number, machine.number, machine.optional))
      out.push(`${prefix}document_number`);
    const birth = confident(p, 'date_of_birth');
    if (
      birth &&
      machine.date_of_birth &&
      birth !== machine.date_of_birth &&
      !(zoneYears && sameButCentury(birth, machine.date_of_birth)) &&
      !(zoneYears && dateNearMiss(birth, machine.date_of_birth)) &&
      !mislocatedBirth(birth, machine.expiry_date)
    )
      out.push(`${prefix}date_of_birth`);
    const expiry = confident(p, 'expiry_date');
    if (expiry && machine.expiry_date && expiry !== machine.expiry_date && expiry !== machine.date_of_birth)
      out.push(`${prefix}expiry_date`);
    // Names are transliterated, abbreviated and printed in other scripts: only a very sure reading counts.
    const surname =
      (p.labelled.last_name?.confidence ?? 0) >= NAME_CONFIDENCE ? p.labelled.last_name!.value : undefined;
    if (surname && machine.last_name && !sameSurname(surname, machine.last_name)) out.push(`${prefix}last_name`);
  }
  return [...new Set(out)];
}

const sameName = (a?: string, b?: string) =>
  !a || !b || a.replace(/[^A-Z]/gi, '').toUpperCase() === b.replace(/[^A-Z]/gi, '').toUpperCase();

/** The barcode against a valid zone and the confidently located printed fields: field names that disagree. */
function barcodeDisagreements(barcode: BarcodeFields, mrz: MrzResult | null, printed: PrintedFields[]): string[] {
  const out: string[] = [];
  if (mrz?.valid) {
    if (barcode.number && mrz.fields.document_number !== barcode.number) out.push('document_number');
    if (barcode.date_of_birth && mrz.fields.date_of_birth && barcode.date_of_birth !== mrz.fields.date_of_birth)
      out.push('date_of_birth');
    if (!sameName(barcode.last_name, mrz.fields.last_name)) out.push('last_name');
  }
  out.push(...printedDisagreements(printed, barcode));
  return [...new Set(out)];
}

function readFromMrz(mrz: MrzResult, printed: PrintedFields[], zoneBirth?: string): ReadFields {
  const f = mrz.fields;
  const number = printed
    .map((p) => confident(p, 'number'))
    .find((n) => n && numbersDisagree(n, f.document_number, f.optional));
  const birth = printed
    .map((p) => confident(p, 'date_of_birth'))
    .find(
      (d) =>
        d &&
        f.date_of_birth &&
        d !== f.date_of_birth &&
        !sameButCentury(d, f.date_of_birth) &&
        !dateNearMiss(d, f.date_of_birth) &&
        !mislocatedBirth(d, f.expiry_date),
    );
  return {
    type: documentTypeOf(f.document_code),
    // A confidently printed number or birth date that differs stands as printed, so the rules compare it with the zone (ID_INVALID).
    number: number ?? f.document_number,
    date_of_birth: birth ?? f.date_of_birth,
    expiry_date: f.expiry_date,
    issuing_country: f.issuing_country,
    nationality: f.nationality,
    first_name: f.first_name,
    last_name: f.last_name,
    sex: f.sex,
    mrz: {
      document_number: f.document_number,
      date_of_birth: f.date_of_birth,
      ...(zoneBirth ? { zone_date_of_birth: zoneBirth } : {}),
    },
  };
}

function readFromBarcode(b: BarcodeFields): ReadFields {
  return {
    type: 'driving_licence',
    number: b.number,
    date_of_birth: b.date_of_birth,
    expiry_date: b.expiry_date,
    issuing_country: b.issuing_country,
    first_name: b.first_name,
    last_name: b.last_name,
    sex: b.sex,
  };
}

const failures = (m: MrzResult) => m.failed.length * 2 + m.ambiguous.length;

/**
 * Zone characters (uploaded pixels) a failing zone must reach to count as evidence: small
 * characters read wrong the same way by both models (a 376 px scan's 9-11 px zone does), so a
 * small zone that fails goes to review, never to ID_INVALID.
 */
export const EVIDENCE_CHAR_HEIGHT = 14;

/**
 * A verified zone whose number a confidently printed number misses by a misread or two
 * (`numberNearMiss`): one of the two readings is wrong, and the zone's can be (two misreads can
 * cancel in its check digits: a monospace zone read BAR5K9VNE as 8AR5K0VNE, printed right). The
 * number is then ambiguous, as when the second reader disputes it: review, nothing stored.
 */
function numberDisputedByPrint(side: SideAnalysis, printed: PrintedFields[]): SideAnalysis {
  const mrz = side.mrz;
  if (!mrz?.valid) return side;
  const near = printed.some((p) => {
    const number = confident(p, 'number');
    return !!number && numberNearMiss(number, mrz.fields.document_number);
  });
  return near ? { ...side, mrz: { ...mrz, valid: false, ambiguous: [...mrz.ambiguous, 'document_number'] } } : side;
}

/**
 * A confidently printed birth date one digit off a verified zone's (`dateNearMiss`; a card drawn
 * by Chromium and held askew had its printed 1971-08-10 read 1971-08-19). The zone's date passes
 * its check digit, which catches any single changed digit, so it is the one stored; the print
 * most likely was misread, but an altered printed date looks the same: the field is doubtful
 * (review, PRINTED_FIELDS_UNCERTAIN), never a disagreement (ID_INVALID).
 */
function birthMisreadInPrint(printed: PrintedFields[], zoneBirth?: string): string | null {
  if (!zoneBirth) return null;
  const near = printed.some((p) => {
    const birth = confident(p, 'date_of_birth');
    return !!birth && dateNearMiss(birth, zoneBirth);
  });
  return near ? 'printed_date_of_birth' : null;
}

/**
 * A capture fine enough for what it shows to count as evidence: no quality problem, zone
 * characters of EVIDENCE_CHAR_HEIGHT or more, and the zone's ink even along it (EVEN_INK: no
 * part washed out by a reflection or darkened by a shadow, where characters no check digit
 * covers may have been lost: a name read `OLIID` for `OLSEN<<SIGRID` under a lamp's reflection
 * disagreed with the printed surname and gave ID_INVALID).
 */
const evidenceGrade = (side: SideAnalysis) =>
  side.quality.problems.length === 0 &&
  (side.quality.metrics.char_height ?? 0) >= EVIDENCE_CHAR_HEIGHT &&
  (side.zoneInk ?? 1) >= EVEN_INK;

/**
 * A zone that is evidence against the document rather than a failed read: every character
 * readable, read identically by two OCR passes with different settings and by the English model, nothing ambiguous, on a
 * capture with no quality problem and characters of EVIDENCE_CHAR_HEIGHT or more, and still failing a check digit. Anything less is `uncertain`.
 */
function contradicts(side: SideAnalysis): boolean {
  const mrz = side.mrz!;
  return (
    !!side.mrzConfirmed &&
    !nationalLayout(mrz) &&
    !mrz.valid &&
    mrz.failed.length > 0 &&
    !mrz.failed.includes('length') &&
    mrz.ambiguous.length === 0 &&
    !mrz.lines.some((l) => l.includes('?')) &&
    evidenceGrade(side)
  );
}

/**
 * A zone of ICAO 9303's shape that follows a national layout instead: the French identity card
 * of 1988-2021 (`IDFRA`, two lines of 36, no expiry in the zone). It is read by its own layout
 * (mrz-layouts.ts, `FRA-ID`: its number, birth date and composite check digits) and never as TD2
 * data; a failing one is never taken as evidence of alteration (review), since a misread of a
 * layout read less often is likelier than a forgery.
 */
export function nationalLayout(mrz: MrzResult): string | null {
  // A card's zone decoded as TD2 all the same (its lines given with that format) is still the card.
  return mrz.format === 'FRA-ID' || (mrz.format === 'TD2' && /^IDFRA/.test(mrz.lines[0] ?? '')) ? 'FRA-ID' : null;
}

/** Two ISO dates with the same day, month and two-digit year, a century or more apart. */
const sameButCentury = (a: string, b: string) => a !== b && a.slice(2) === b.slice(2);

/**
 * A "birth date" on or after the document's expiry is another field's value taken under the birth
 * date's caption (its own value unread, the next date below it: the expiry), never a birth date
 * that disagrees.
 */
const mislocatedBirth = (birth: string, expiry?: string) => !!expiry && birth >= expiry;

/**
 * OCR confidence a labelled printed birth date needs to settle the century on its own reading.
 * Anything that moves the century is marked on the reading (`mrz.zone_date_of_birth`), and the
 * age check goes to review wherever the zone's own century would change its outcome (age.ts):
 * storing a child as born a century earlier must never pass an age check.
 */
const CENTURY_CONFIDENCE = 88;

/**
 * OCR confidence any other printed date (unlabelled, or labelled but read less surely) needs to
 * settle the century. The zone's check digit has already settled its day, month and two-digit
 * year; the page's date only adds the century digits, and on small pages the captions (a third
 * of the zone's height, several languages with slashes) read too poorly to be located while the
 * dates themselves read well (checks-document-accuracy.md, docread5).
 */
const CENTURY_READ_CONFIDENCE = 50;

/** Years a holder may have lived when the document expires: no one older holds a document. */
const OLDEST_HOLDER = 125;

/**
 * Same day, month and two-digit year, an earlier century (the zone's reading is the latest it
 * can be), and a holder no older than OLDEST_HOLDER at the document's expiry: so the only move is
 * 20YY to 19YY, which print must differ from the zone in two digits to make (a 9 read as 8 makes
 * 1972 into 1872, never into a move).
 */
const earlierCentury = (printed: string, zone: string, expiry?: string) =>
  printed.slice(2) === zone.slice(2) &&
  printed < zone &&
  !!expiry &&
  Number(expiry.slice(0, 4)) - Number(printed.slice(0, 4)) <= OLDEST_HOLDER;

/**
 * The zone gives a birth year's last two digits only; a printed birth date with the same day,
 * month and two digits is the same date, never a disagreement (a holder born in 1920 reads as
 * 2020 from the zone). The century is taken from the page when a labelled birth date read very
 * surely prints the earlier one, or when any date on the page read with some confidence does and
 * none prints the zone's own reading. The zone's own reading is then returned beside it, so the
 * stored reading says its century came from print.
 */
function inPrintedCentury(mrz: MrzResult, printed: PrintedFields[]): { mrz: MrzResult; zoneBirth?: string } {
  const zone = mrz.fields.date_of_birth;
  const expiry = mrz.fields.expiry_date;
  if (!mrz.valid || !zone) return { mrz };
  const sure = printed
    .map((p) => p.labelled.date_of_birth)
    .find((d) => d && d.confidence >= CENTURY_CONFIDENCE && earlierCentury(d.value, zone, expiry))?.value;
  const read = printed
    .flatMap((p) => [...(p.labelled.date_of_birth ? [p.labelled.date_of_birth] : []), ...(p.datesRead ?? [])])
    .filter((d) => d.confidence >= CENTURY_READ_CONFIDENCE);
  const earlier = read.find((d) => earlierCentury(d.value, zone, expiry))?.value;
  const date = sure ?? (earlier && !read.some((d) => d.value === zone) ? earlier : undefined);
  return date ? { mrz: { ...mrz, fields: { ...mrz.fields, date_of_birth: date } }, zoneBirth: zone } : { mrz };
}

/** Combines the sides: what was read, `mrz_valid`, `barcode_consistent` and the outcome (read first, quality only to explain a failure). */
export function combineSides(analysed: SideAnalysis[], ms = 0): DocumentAnalysis {
  const barcode = analysed.map((s) => s.barcode).find((b) => b) ?? null;
  const printed = printedOf(analysed);
  const sides = barcode ? analysed : analysed.map((s) => numberDisputedByPrint(s, printed));
  const zones = sides.filter((s) => s.mrz).sort((a, b) => failures(a.mrz!) - failures(b.mrz!));
  const mrzSide = zones[0];
  const century = mrzSide?.mrz ? inPrintedCentury(mrzSide.mrz, printed) : null;
  const mrz = century?.mrz ?? null;
  const problems = [...new Set(sides.flatMap((s) => s.quality.problems))];
  const base = { sides, problems, ms, mrz_valid: mrz ? mrz.valid : null };
  if (sides.some((s) => s.undecodable))
    return { ...base, outcome: 'unreadable', read: null, barcode_consistent: null, disagreements: [] };
  if (barcode) {
    const disagreements = barcodeDisagreements(barcode, mrz, printed);
    const read = mrz?.valid ? readFromMrz(mrz, printed, century?.zoneBirth) : readFromBarcode(barcode);
    return { ...base, outcome: 'read', read, barcode_consistent: disagreements.length === 0, disagreements };
  }
  if (mrz?.valid) {
    const disagreements = printedDisagreements(
      printed,
      { ...mrz.fields, number: mrz.fields.document_number },
      'printed_',
      true,
    );
    if (disagreements.length > 0 && !evidenceGrade(mrzSide!))
      return {
        ...base,
        outcome: 'read',
        read: readFromMrz(mrz, [], century?.zoneBirth),
        barcode_consistent: null,
        disagreements: [],
        doubtful: disagreements,
      };
    const read = readFromMrz(mrz, printed, century?.zoneBirth);
    const misread = birthMisreadInPrint(printed, mrz.fields.date_of_birth);
    if (disagreements.length === 0 && misread)
      return { ...base, outcome: 'read', read, barcode_consistent: null, disagreements, doubtful: [misread] };
    return { ...base, outcome: 'read', read, barcode_consistent: null, disagreements };
  }
  const none = { read: null, barcode_consistent: null, disagreements: [] };
  // A search the safety net stopped proves nothing either way: review, whatever it had read.
  if (sides.some((s) => s.cutShort)) return { ...base, ...none, outcome: 'uncertain' };
  if (problems.includes('no_content')) return { ...base, ...none, outcome: 'unreadable' };
  if (mrz && contradicts(mrzSide!)) return { ...base, ...none, outcome: 'contradicted' };
  if (mrz) return { ...base, ...none, outcome: mrzSide!.quality.problems.length > 0 ? 'image_quality' : 'uncertain' };
  if (problems.length > 0) return { ...base, ...none, outcome: 'image_quality' };
  const anyPrinted = printed.some(
    (p) => p.dates.length > 0 || p.numbers.length > 0 || Object.keys(p.labelled).length > 0,
  );
  return { ...base, ...none, outcome: anyPrinted ? 'printed_only' : 'unreadable' };
}

/** Analyses a document's images (front required, back optional); pure data in, plain JSON out. */
export async function analyseDocument(
  images: { front: Buffer; back?: Buffer },
  options: AnalyseOptions = {},
): Promise<DocumentAnalysis> {
  const started = Date.now();
  const sides = [await analyseSide('front', images.front, options)];
  if (images.back) sides.push(await analyseSide('back', images.back, options));
  return combineSides(sides, Date.now() - started);
}
