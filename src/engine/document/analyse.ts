import sharp from 'sharp';
import { aamvaFields, type BarcodeFields, readPdf417 } from './barcode.js';
import { type MrzResult, documentTypeOf, findMrz } from './mrz.js';
import { ocrMrzText, ocrText } from './ocr.js';
import { lowerPart, prepareForOcr, upsideDown } from './prepare.js';
import { type PrintedFields, comparePrintedNumber, printedBirthDate, readPrinted } from './printed.js';
import { type QualityProblem, type QualityReport, measureQuality } from './quality.js';

export type Side = 'front' | 'back';

/** What one image gave; plain JSON (the analysis may run in a worker thread). */
export interface SideAnalysis {
  side: Side;
  quality: QualityReport;
  /** The image could not be decoded at all. */
  undecodable?: boolean;
  mrz: MrzResult | null;
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
  mrz?: { document_number?: string; date_of_birth?: string };
}

export interface DocumentAnalysis {
  sides: SideAnalysis[];
  /**
   * `read`: a zone or barcode was decoded from good captures; `image_quality`: a capture is too poor to trust;
   * `unreadable`: nothing pictured or not an image; `printed_only`: text but nothing machine-readable.
   */
  outcome: 'read' | 'image_quality' | 'unreadable' | 'printed_only';
  problems: QualityProblem[];
  read: ReadFields | null;
  mrz_valid: boolean | null;
  barcode_consistent: boolean | null;
  /** Fields on which the zone, the barcode and the printed text disagree. */
  disagreements: string[];
  ms: number;
}

export interface AnalyseOptions {
  /** Read even when the quality gate fails (the eval script measures reading under every condition). */
  readDespiteQuality?: boolean;
  now?: Date;
}

/**
 * OCRs the zone: the lower part first (fast); while no reading passes its check digits, the
 * lower part binarised and enlarged, the whole image, then upside down. A failing zone is
 * read several ways before it counts as invalid, so one misread does not reject a document.
 */
async function readMrz(prepared: Buffer, now: Date): Promise<MrzResult | null> {
  let best: MrzResult | null = null;
  const attempts = [
    () => lowerPart(prepared),
    async () => sharp(await lowerPart(prepared)).threshold(150).png().toBuffer(),
    async () => sharp(await lowerPart(prepared)).resize({ width: 1900 }).png().toBuffer(),
    async () => prepared,
    async () => lowerPart(await upsideDown(prepared)),
  ];
  for (const attempt of attempts) {
    const found = findMrz(await ocrMrzText(await attempt()), now);
    if (found && (!best || found.failed.length < best.failed.length)) best = found;
    if (best?.valid) return best;
  }
  return best;
}

/** Everything one image gives: quality, then (unless the gate stops it) zone, barcode and printed text. */
export async function analyseSide(side: Side, image: Buffer, options: AnalyseOptions = {}): Promise<SideAnalysis> {
  const now = options.now ?? new Date();
  let quality: QualityReport;
  try {
    quality = await measureQuality(image);
  } catch {
    const empty = { width: 0, height: 0, sharpness: 0, glare: 0, contrast: 0 };
    return { side, quality: { metrics: empty, problems: ['no_content'] }, undecodable: true, mrz: null, barcodeFound: false, barcode: null, printed: null };
  }
  const result: SideAnalysis = { side, quality, mrz: null, barcodeFound: false, barcode: null, printed: null };
  if (quality.problems.length > 0 && !options.readDespiteQuality) return result;
  const barcodeText = await readPdf417(image).catch(() => null);
  result.barcodeFound = barcodeText !== null;
  result.barcode = barcodeText ? aamvaFields(barcodeText) : null;
  const prepared = await prepareForOcr(image);
  if (!result.barcode) result.mrz = await readMrz(prepared, now);
  result.printed = readPrinted(await ocrText(prepared));
  return result;
}

const sameName = (a?: string, b?: string) => !a || !b || a.replace(/[^A-Z]/gi, '').toUpperCase() === b.replace(/[^A-Z]/gi, '').toUpperCase();

/** The barcode against the zone and the printed text: field names that disagree. */
function barcodeDisagreements(barcode: BarcodeFields, mrz: MrzResult | null, printed: PrintedFields[]): string[] {
  const out: string[] = [];
  if (mrz) {
    if (barcode.number && mrz.fields.document_number !== barcode.number) out.push('document_number');
    if (barcode.date_of_birth && mrz.fields.date_of_birth && barcode.date_of_birth !== mrz.fields.date_of_birth) out.push('date_of_birth');
    if (!sameName(barcode.last_name, mrz.fields.last_name)) out.push('last_name');
  }
  const all: PrintedFields = { dates: printed.flatMap((p) => p.dates), numbers: printed.flatMap((p) => p.numbers) };
  if (barcode.number && comparePrintedNumber(all, barcode.number).verdict === 'disagrees') out.push('printed_document_number');
  const printedBirth = printedBirthDate(all);
  if (barcode.date_of_birth && printedBirth && printedBirth !== barcode.date_of_birth) out.push('printed_date_of_birth');
  if (barcode.expiry_date && all.dates.length > 1 && !all.dates.includes(barcode.expiry_date)) out.push('printed_expiry_date');
  return [...new Set(out)];
}

function readFromMrz(mrz: MrzResult, printed: PrintedFields[]): ReadFields {
  const f = mrz.fields;
  const all: PrintedFields = { dates: printed.flatMap((p) => p.dates), numbers: printed.flatMap((p) => p.numbers) };
  const number = comparePrintedNumber(all, f.document_number);
  const printedBirth = printedBirthDate(all);
  return {
    type: documentTypeOf(f.document_code),
    // The printed number and birth date stand as printed so the rules compare them with the zone (ID_INVALID).
    number: number.verdict === 'disagrees' ? number.printed : f.document_number,
    date_of_birth: printedBirth && all.dates.length > 1 ? printedBirth : f.date_of_birth,
    expiry_date: f.expiry_date,
    issuing_country: f.issuing_country,
    nationality: f.nationality,
    first_name: f.first_name,
    last_name: f.last_name,
    sex: f.sex,
    mrz: { document_number: f.document_number, date_of_birth: f.date_of_birth },
  };
}

function readFromBarcode(b: BarcodeFields): ReadFields {
  return { type: 'driving_licence', number: b.number, date_of_birth: b.date_of_birth, expiry_date: b.expiry_date, issuing_country: b.issuing_country, first_name: b.first_name, last_name: b.last_name, sex: b.sex };
}

/** Combines the sides: the read fields, `mrz_valid`, `barcode_consistent` and the outcome. */
export function combineSides(sides: SideAnalysis[], ms = 0): DocumentAnalysis {
  const problems = [...new Set(sides.flatMap((s) => s.quality.problems))];
  const mrz = sides.map((s) => s.mrz).find((m) => m) ?? null;
  const barcode = sides.map((s) => s.barcode).find((b) => b) ?? null;
  const printed = sides.map((s) => s.printed).filter((p): p is PrintedFields => !!p);
  const disagreements = barcode ? barcodeDisagreements(barcode, mrz, printed) : [];
  const base = { sides, problems, ms, mrz_valid: mrz ? mrz.valid : null, barcode_consistent: barcode ? disagreements.length === 0 : null, disagreements };
  const read = mrz ? readFromMrz(mrz, printed) : barcode ? readFromBarcode(barcode) : null;
  // A poor capture decides the outcome even when something was read: what it hides cannot be checked.
  if (sides.some((s) => s.undecodable) || problems.includes('no_content')) return { ...base, outcome: 'unreadable', read };
  if (problems.length > 0) return { ...base, outcome: 'image_quality', read };
  if (read) return { ...base, outcome: 'read', read };
  const anyPrinted = printed.some((p) => p.dates.length > 0 || p.numbers.length > 0);
  return { ...base, outcome: anyPrinted ? 'printed_only' : 'unreadable', read: null };
}

/** Analyses a document's images (front required, back optional); pure data in, plain JSON out. */
export async function analyseDocument(images: { front: Buffer; back?: Buffer }, options: AnalyseOptions = {}): Promise<DocumentAnalysis> {
  const started = Date.now();
  const sides = [await analyseSide('front', images.front, options)];
  if (images.back) sides.push(await analyseSide('back', images.back, options));
  return combineSides(sides, Date.now() - started);
}
