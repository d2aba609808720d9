import type { Box, OcrLine, OcrWord } from './ocr.js';

/** A printed value found beside or under its label, with the lower OCR confidence of the two. */
export interface Labelled {
  value: string;
  confidence: number;
}

/** What the visual zone prints, as OCR reads it: labelled fields, and every date and number-like token. */
export interface PrintedFields {
  /** Every date found, ISO, in reading order (whatever its label). */
  dates: string[];
  /** Tokens shaped like a document number (6-12 letters and digits, at least 3 digits). */
  numbers: string[];
  /** Fields located by their label; only these are ever compared with the zone or a barcode. */
  labelled: Partial<Record<LabelledField, Labelled>>;
  /**
   * Every date found on a line, with the lowest OCR confidence of the words it covers (whatever
   * its label). Never compared with the zone; only a date equal to the zone's birth date but a
   * century earlier may settle its century (analyse.ts `inPrintedCentury`).
   */
  datesRead?: Labelled[];
}

export type LabelledField = 'number' | 'date_of_birth' | 'expiry_date' | 'last_name';

const MONTHS: Record<string, string> = {
  JAN: '01',
  FEB: '02',
  MAR: '03',
  APR: '04',
  MAY: '05',
  JUN: '06',
  JUL: '07',
  AUG: '08',
  SEP: '09',
  SEPT: '09',
  OCT: '10',
  NOV: '11',
  DEC: '12',
};

const valid = (iso: string) =>
  !Number.isNaN(Date.parse(`${iso}T00:00:00Z`)) && new Date(`${iso}T00:00:00Z`).toISOString().startsWith(iso);

/** A date found in text: where it starts and ends, and its ISO form. */
interface DateAt {
  at: number;
  end: number;
  iso: string;
}

/**
 * Dates as documents print them: 12 AUG 1974, 12 AUG/AOUT 1974 (a bilingual month), 12.08.1974,
 * 12 08 1974, 1974-08-12, and US 08/12/1974.
 */
function datesIn(text: string): DateAt[] {
  const found: DateAt[] = [];
  const add = (m: RegExpMatchArray, y: string, mo: string, d: string) => {
    const iso = `${y}-${mo.padStart(2, '0')}-${d.padStart(2, '0')}`;
    if (valid(iso)) found.push({ at: m.index!, end: m.index! + m[0].length, iso });
  };
  for (const m of text.matchAll(/\b(\d{1,2})\s*([A-Z]{3,4})(?:[A-Z]*\s*\/\s*[A-Z]{3,4})*[A-Z]*\s*(\d{4})\b/g))
    if (MONTHS[m[2]]) add(m, m[3], MONTHS[m[2]], m[1]);
  for (const m of text.matchAll(/\b(\d{1,2})\.(\d{1,2})\.(\d{4})\b/g)) add(m, m[3], m[2], m[1]);
  for (const m of text.matchAll(/\b(\d{2}) (\d{2}) ((?:18|19|20)\d{2})\b/g)) add(m, m[3], m[2], m[1]);
  for (const m of text.matchAll(/\b(\d{4})-(\d{2})-(\d{2})\b/g)) add(m, m[1], m[2], m[3]);
  for (const m of text.matchAll(/\b(\d{2})\/(\d{2})\/(\d{4})\b/g)) add(m, m[3], m[1], m[2]);
  return found.sort((a, b) => a.at - b.at);
}

/** Dates as documents print them (datesIn), ISO, in reading order. */
export function printedDates(text: string): string[] {
  return datesIn(text).map((f) => f.iso);
}

/** Number-like tokens of free text (lines holding zone fillers left out). */
function numberTokens(upper: string): string[] {
  const numbers = [...upper.matchAll(/\b[A-Z0-9]{6,12}\b/g)]
    .map((m) => m[0])
    .filter((token) => (token.match(/\d/g) ?? []).length >= 3 && !/^\d{8}$/.test(token));
  return [...new Set(numbers)];
}

/** Labels as documents print them (English, French, German, Spanish captions and US licence codes). */
const LABELS: Record<LabelledField, RegExp> = {
  number:
    /\b(PASSPORT|PASSEPORT|DOCUMENT|DOC|CARD|LICEN[CS]E|PASS)\.?\s*(NO|NUMBER|NR|N°|Nº|NUM)\b\.?|^(DL|LIC|NO)\b\.?/,
  date_of_birth: /DATE\s*OF\s*BIRTH|BIRTH\s*DATE|\bDOB\b|NAISSANCE|GEBURTSTAG|NACIMIENTO/,
  expiry_date: /DATE\s*OF\s*EXPIRY|EXPIRY|EXPIRATION|EXPIRES|\bEXP\b|VALID\s*UNTIL|G[UÜ]LTIG\s*BIS|CADUCIDAD/,
  last_name: /SURNAME|LAST\s*NAME|^LN\b|^NOM\b|FAMILIENNAME|APELLIDOS/,
};

/**
 * Words of the captions printed beside a data page's fields (ICAO 9303 part 4's English captions
 * and their French, German and Spanish forms). A "name" holding one is the next field's caption
 * read where the value should be (a surname too small to read, the given-names caption below it),
 * never a holder's name: it is not a located name and never contradicts the zone.
 */
const CAPTION_WORDS = new Set(
  (
    'NAME NAMES SURNAME SURNAMES GIVEN FORENAMES FIRST LAST NATIONALITY DATE BIRTH PLACE SEX ' +
    'AUTHORITY ISSUE ISSUED EXPIRY HOLDER SIGNATURE TYPE CODE COUNTRY PASSPORT PERSONAL NO ' +
    'NOM NOMS PRENOM PRENOMS NATIONALITE NAISSANCE SEXE VORNAMEN GEBURTSTAG NOMBRE NOMBRES APELLIDOS'
  ).split(' '),
);

const PARSERS: Record<LabelledField, (text: string) => string | undefined> = {
  number: (text) =>
    [...text.matchAll(/\b[A-Z0-9]{5,12}\b/g)]
      .map((m) => m[0])
      .filter((t) => /\d/.test(t))
      .sort((a, b) => b.length - a.length)[0],
  date_of_birth: (text) => printedDates(text)[0],
  expiry_date: (text) => printedDates(text)[0],
  last_name: (text) => {
    const name = text.replace(/[^A-Z\s'-]/g, '').trim();
    return name.replace(/[^A-Z]/g, '').length >= 2 &&
      !Object.values(LABELS).some((l) => l.test(name)) &&
      !name.split(/[\s'-]+/).some((word) => CAPTION_WORDS.has(word))
      ? name
      : undefined;
  },
};

/** Confidence OCR must give both the label and its value for the field to count as located. */
export const LABEL_CONFIDENCE = 70;

const union = (words: OcrWord[]): Box => ({
  x0: Math.min(...words.map((w) => w.bbox.x0)),
  y0: Math.min(...words.map((w) => w.bbox.y0)),
  x1: Math.max(...words.map((w) => w.bbox.x1)),
  y1: Math.max(...words.map((w) => w.bbox.y1)),
});

/** The words of a line that a regex match covers, by character offsets in the joined words. */
function wordsOfMatch(line: OcrLine, start: number, end: number): { label: OcrWord[]; after: OcrWord[] } {
  const label: OcrWord[] = [];
  const after: OcrWord[] = [];
  let at = 0;
  for (const w of line.words) {
    const from = at;
    at += w.text.length + 1;
    if (from < end && at - 1 > start) label.push(w);
    else if (from >= end) after.push(w);
  }
  return { label, after };
}

/** Words that follow one another on a line without a column's gap between them. */
function phrase(words: OcrWord[], height: number): OcrWord[] {
  const out: OcrWord[] = [];
  for (const w of [...words].sort((a, b) => a.bbox.x0 - b.bbox.x0)) {
    if (out.length && w.bbox.x0 - out[out.length - 1].bbox.x1 > height * 1.6) break;
    out.push(w);
  }
  return out;
}

/** One labelled field: the value after the label on its line, else the phrase just below it. */
function findLabelled(lines: OcrLine[], field: LabelledField): Labelled | undefined {
  for (const line of lines) {
    const upper = line.text.toUpperCase();
    const m = LABELS[field].exec(upper);
    if (!m) continue;
    const { label, after } = wordsOfMatch(line, m.index, m.index + m[0].length);
    if (!label.length) continue;
    const box = union(label);
    const height = Math.max(box.y1 - box.y0, 8);
    const labelConfidence = Math.min(...label.map((w) => w.confidence));
    const beside = phrase(
      after.filter((w) => w.bbox.x0 - box.x1 < height * 3),
      height,
    );
    const candidates: OcrWord[][] = [beside];
    for (const other of lines) {
      if (other === line) continue;
      const below = other.words.filter(
        (w) =>
          w.bbox.y0 >= box.y1 - height * 0.3 &&
          w.bbox.y0 - box.y1 <= height * 2.2 &&
          w.bbox.x0 >= box.x0 - height * 1.5 &&
          w.bbox.x0 <= box.x0 + height * 1.5,
      );
      if (below.length)
        candidates.push(
          phrase(
            other.words.filter((w) => w.bbox.x0 >= below[0].bbox.x0 - 1),
            height * 1.5,
          ),
        );
    }
    for (const words of candidates) {
      if (!words.length) continue;
      const value = PARSERS[field](
        words
          .map((w) => w.text)
          .join(' ')
          .toUpperCase(),
      );
      if (value) return { value, confidence: Math.min(labelConfidence, ...words.map((w) => w.confidence)) };
    }
  }
  return undefined;
}

/**
 * Reads the printed side: labelled fields, and every date and number-like token; zone lines
 * (with fillers) are left out, and so are words touching the frame's edge (they may be cut).
 */
export function readPrinted(lines: OcrLine[], frame?: { width: number; height: number }): PrintedFields {
  const inside = (w: OcrWord) =>
    !frame || (w.bbox.x0 > 2 && w.bbox.y0 > 2 && w.bbox.x1 < frame.width - 3 && w.bbox.y1 < frame.height - 3);
  const printed = lines.filter((l) => !l.text.includes('<')).map((l) => ({ ...l, words: l.words.filter(inside) }));
  const upper = printed.map((l) => l.text.toUpperCase()).join('\n');
  const labelled: PrintedFields['labelled'] = {};
  for (const field of Object.keys(LABELS) as LabelledField[]) {
    const found = findLabelled(printed, field);
    if (found) labelled[field] = found;
  }
  const datesRead = printed.flatMap((line) =>
    datesIn(line.words.map((w) => w.text.toUpperCase()).join(' ')).map((d) => {
      const { label } = wordsOfMatch(line, d.at, d.end);
      return { value: d.iso, confidence: label.length ? Math.min(...label.map((w) => w.confidence)) : 0 };
    }),
  );
  return { dates: printedDates(upper), numbers: numberTokens(upper), labelled, datesRead };
}

/** A labelled field OCR read with confidence: the only printed reading that may contradict the zone. */
export const confident = (printed: PrintedFields | null | undefined, field: LabelledField): string | undefined => {
  const found = printed?.labelled[field];
  return found && found.confidence >= LABEL_CONFIDENCE ? found.value : undefined;
};

/** OCR confusions folded together, so a printed 0 and a read O do not count as a disagreement. */
export const confusionKey = (value: string) =>
  value
    .toUpperCase()
    .replace(/[^0-9A-Z]/g, '')
    .replace(/[OQD]/g, '0')
    .replace(/[IL]/g, '1')
    .replace(/Z/g, '2')
    .replace(/S/g, '5')
    .replace(/G/g, '6')
    .replace(/T/g, '7')
    .replace(/B/g, '8');

/**
 * One value is the other, or a cut-off part of it (a word clipped by the frame or OCR), or the
 * other with a stray character or two read into it (`withStrays`), once confusions are folded.
 */
const sameOrPart = (a: string, b: string) => {
  const [x, y] = [confusionKey(a), confusionKey(b)];
  return x === y || x.includes(y) || y.includes(x) || withStrays(x, y) || withStrays(y, x);
};

/**
 * `long` is `short` with at most MISREAD_EDITS characters read into it and nothing else changed
 * (`short` of 6 or more): the English model reads a proportional face's number with a character
 * doubled or a mark taken for one (a page held askew: LAHHW5EU read LAHHWS5EU), or drops one. The
 * zone that passes its check digits is not the reading with a character added or lost: its number
 * field is fixed-width, and a character added or lost shifts every one after it through them.
 */
function withStrays(long: string, short: string): boolean {
  if (short.length < 6 || long.length <= short.length || long.length - short.length > MISREAD_EDITS) return false;
  let at = 0;
  for (const c of long) if (c === short[at]) at++;
  return at === short.length;
}

/**
 * Edits (a character inserted, dropped or changed, after folding confusions) within which a
 * printed number and the zone's are the same number with one of them misread: the English model
 * on a turned page read YCRU0V4TJ as YCRUOVA4T (an A inserted, the J lost), and a zone in a
 * monospace read BAR5K9VNE as 8AR5K0VNE, two misreads that cancel in its check digits. Which of
 * the two is wrong cannot be told, so such a near miss is review (`numberNearMiss`), never
 * ID_INVALID and never ignored; but characters only inserted into one of them, or only dropped
 * (`withStrays`), are the same number. Three or more edits apart, the numbers disagree.
 */
export const MISREAD_EDITS = 2;

/** The printed number differs from the zone's by MISREAD_EDITS or fewer edits once confusions are folded. */
export function numberNearMiss(printed: string, zoneNumber: string): boolean {
  return (
    !sameOrPart(printed, zoneNumber) && editDistance(confusionKey(printed), confusionKey(zoneNumber)) <= MISREAD_EDITS
  );
}

/**
 * Two dates (ISO) one digit apart, the rest equal: a printed `10` read `19` on a card held askew.
 * The zone's date cannot be the one misread in a single digit (its check digit catches every
 * single-digit change), so the printed reading most likely is; but which of the two the document
 * really says is a person's call (an altered printed date looks the same): review, never
 * ID_INVALID and never ignored (analyse.ts `birthMisreadInPrint`). Dates apart only in their century digits
 * (a printed 1972 read 1872) are not near misses: the century rules (analyse.ts) settle those.
 */
export function dateNearMiss(printed: string, zoneDate: string): boolean {
  const [a, b] = [printed.replace(/\D/g, ''), zoneDate.replace(/\D/g, '')];
  if (a.length !== 8 || b.length !== 8 || a.slice(2) === b.slice(2)) return false;
  let differ = 0;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) differ++;
  return differ === 1;
}

/**
 * Whether a printed number contradicts the zone's document number (further off than a near
 * miss). A printed number that is the zone's optional data (a personal or national identity
 * number, printed under its own "No." label, as on Malaysian passports) names that field, not
 * the document: it never disagrees.
 */
export function numbersDisagree(printed: string, zoneNumber: string, zoneOptional?: string): boolean {
  if (sameOrPart(printed, zoneNumber) || numberNearMiss(printed, zoneNumber)) return false;
  const optional = zoneOptional ? confusionKey(zoneOptional) : '';
  return !(optional.length >= 6 && sameOrPart(printed, optional));
}

/** Levenshtein distance: characters inserted, dropped or changed to make one string the other. */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++)
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
  return d[a.length][b.length];
}

/** Surnames as the zone and the printed side give them: equal once folded, or within two edits (Ü as UE). */
export function sameSurname(printed: string, zone: string): boolean {
  const fold = (v: string) =>
    v
      .normalize('NFD')
      .toUpperCase()
      .replace(/[^A-Z]/g, '');
  const [a, b] = [fold(printed), fold(zone)];
  if (!a || !b || a === b || a.includes(b) || b.includes(a)) return true;
  return editDistance(a, b) <= 2;
}
