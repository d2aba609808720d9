/** What the visual zone prints, as free-text OCR reads it (labels and values in reading order). */
export interface PrintedFields {
  /** Every date found, ISO, in reading order. */
  dates: string[];
  /** Tokens shaped like a document number (6-12 letters and digits, at least 3 digits). */
  numbers: string[];
}

const MONTHS: Record<string, string> = {
  JAN: '01', FEB: '02', MAR: '03', APR: '04', MAY: '05', JUN: '06', JUL: '07', AUG: '08', SEP: '09', SEPT: '09', OCT: '10', NOV: '11', DEC: '12',
};

const valid = (iso: string) => !Number.isNaN(Date.parse(`${iso}T00:00:00Z`)) && new Date(`${iso}T00:00:00Z`).toISOString().startsWith(iso);

/** Dates as documents print them: 12 AUG 1974, 12.08.1974, 1974-08-12, and US 08/12/1974. */
export function printedDates(text: string): string[] {
  const found: { at: number; iso: string }[] = [];
  const add = (at: number, y: string, m: string, d: string) => {
    const iso = `${y}-${m.padStart(2, '0')}-${d.padStart(2, '0')}`;
    if (valid(iso)) found.push({ at, iso });
  };
  for (const m of text.matchAll(/\b(\d{1,2})\s*([A-Z]{3,4})[A-Z/]*\s*(\d{4})\b/g)) if (MONTHS[m[2]]) add(m.index!, m[3], MONTHS[m[2]], m[1]);
  for (const m of text.matchAll(/\b(\d{1,2})\.(\d{1,2})\.(\d{4})\b/g)) add(m.index!, m[3], m[2], m[1]);
  for (const m of text.matchAll(/\b(\d{4})-(\d{2})-(\d{2})\b/g)) add(m.index!, m[1], m[2], m[3]);
  for (const m of text.matchAll(/\b(\d{2})\/(\d{2})\/(\d{4})\b/g)) add(m.index!, m[3], m[1], m[2]);
  return found.sort((a, b) => a.at - b.at).map((f) => f.iso);
}

/** Reads the printed dates and number-like tokens; MRZ lines (with fillers) are left out. */
export function readPrinted(text: string): PrintedFields {
  const upper = text
    .toUpperCase()
    .split('\n')
    .filter((line) => !line.includes('<'))
    .join('\n');
  const numbers = [...upper.matchAll(/\b[A-Z0-9]{6,12}\b/g)]
    .map((m) => m[0])
    .filter((token) => (token.match(/\d/g) ?? []).length >= 3 && !/^\d{8}$/.test(token));
  return { dates: printedDates(upper), numbers: [...new Set(numbers)] };
}

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
 * The printed document number compared with a machine-read one: `agrees` when a printed token
 * matches it (up to OCR confusions), `disagrees` when exactly one candidate is printed and it
 * differs, `unknown` otherwise (nothing printed was read, or several candidates).
 */
export function comparePrintedNumber(printed: PrintedFields, machine: string): { verdict: 'agrees' | 'disagrees' | 'unknown'; printed?: string } {
  const key = confusionKey(machine);
  const match = printed.numbers.find((n) => confusionKey(n) === key);
  if (match) return { verdict: 'agrees', printed: machine };
  if (printed.numbers.length === 1) return { verdict: 'disagrees', printed: printed.numbers[0] };
  return { verdict: 'unknown' };
}

/** The printed date of birth: the earliest date printed (issue and expiry dates come later in life). */
export const printedBirthDate = (printed: PrintedFields): string | undefined => [...printed.dates].sort()[0];
