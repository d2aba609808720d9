import { parse } from 'csv-parse/sync';
import { countryCode } from './text.js';
import type { AmlEntry } from './types.js';

/**
 * The OFAC SDN list in the CSV form OFAC publishes (no header row, every field quoted, `-0-`
 * for empty, a trailing SUB (0x1A) line):
 *   sdn.csv: ent_num, SDN_Name, SDN_Type, Program, Title, Call_Sign, Vess_type, Tonnage, GRT,
 *            Vess_flag, Vess_owner, Remarks
 *   alt.csv: ent_num, alt_num, alt_type (aka, fka, nka), alt_name, alt_remarks
 * Individuals have SDN_Type `individual` and names printed `LAST, First Middle`; dates of
 * birth and nationalities live in Remarks (`DOB 12 Mar 1965; alt. DOB 1966; nationality Iran`).
 */

export const OFAC_LIST = 'ofac_sdn';

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
  OCT: '10',
  NOV: '11',
  DEC: '12',
};

const empty = (value: string | undefined): boolean => !value || value.trim() === '-0-' || value.trim() === '';

function rows(text: string): string[][] {
  // OFAC ends its files with an ASCII SUB character on a line of its own.
  const clean = text.replace(/\u001a/g, '');
  return (
    parse(clean, { relax_column_count: true, relax_quotes: true, skip_empty_lines: true, trim: true }) as string[][]
  ).filter((r) => /^\d+$/.test(r[0] ?? ''));
}

/** `12 Mar 1965` -> 1965-03-12, `Mar 1965` -> 1965-03, `circa 1965` / `1965` -> 1965, `1960 to 1962` -> each year. */
export function ofacDates(text: string): string[] {
  const t = text
    .trim()
    .replace(/\.$/, '')
    .replace(/^circa\s+/i, '');
  let m = /^(\d{1,2}) ([A-Za-z]{3}) (\d{4})$/.exec(t);
  if (m && MONTHS[m[2]!.toUpperCase()]) return [`${m[3]}-${MONTHS[m[2]!.toUpperCase()]}-${m[1]!.padStart(2, '0')}`];
  m = /^([A-Za-z]{3}) (\d{4})$/.exec(t);
  if (m && MONTHS[m[1]!.toUpperCase()]) return [`${m[2]}-${MONTHS[m[1]!.toUpperCase()]}`];
  m = /^(\d{4}) to (\d{4})$/.exec(t);
  if (m) {
    const from = Number(m[1]);
    const to = Math.min(Number(m[2]), from + 10);
    return Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => String(from + i));
  }
  m = /^(\d{4})$/.exec(t);
  return m ? [m[1]!] : [];
}

/** Dates of birth and nationalities (and citizenships) out of an SDN Remarks field. */
export function parseRemarks(remarks: string): { birthDates: string[]; nationalities: string[] } {
  const birthDates: string[] = [];
  const nationalities: string[] = [];
  for (const raw of remarks.split(';')) {
    const part = raw.trim().replace(/^alt\.\s+/i, '');
    const dob = /^DOB\s+(.+)$/i.exec(part);
    if (dob) birthDates.push(...ofacDates(dob[1]!));
    const nat = /^(?:nationality|citizen)\s+(.+?)\.?$/i.exec(part);
    if (nat) {
      const code = countryCode(nat[1]);
      if (code) nationalities.push(code);
    }
  }
  return { birthDates: [...new Set(birthDates)], nationalities: [...new Set(nationalities)] };
}

/** Individuals of sdn.csv with their aliases from alt.csv (entities, vessels and aircraft are not people). */
export function parseOfacCsv(sdnText: string, altText?: string): AmlEntry[] {
  const entries = new Map<string, AmlEntry>();
  for (const r of rows(sdnText)) {
    if ((r[2] ?? '').trim().toLowerCase() !== 'individual' || empty(r[1])) continue;
    const remarks = empty(r[11]) ? '' : r[11]!;
    entries.set(r[0]!, {
      list: OFAC_LIST,
      id: r[0]!,
      kind: 'sanction',
      names: [r[1]!.trim()],
      weakNames: [],
      ...parseRemarks(remarks),
    });
  }
  for (const r of altText ? rows(altText) : []) {
    const entry = entries.get(r[0]!);
    if (!entry || empty(r[3])) continue;
    // OFAC marks low-quality a.k.a.s as weak; they are kept apart and score lower.
    if (!empty(r[4]) && /weak/i.test(r[4]!)) entry.weakNames.push(r[3]!.trim());
    else entry.names.push(r[3]!.trim());
  }
  return [...entries.values()];
}

/** Whether a CSV is OFAC's alt.csv rather than sdn.csv: five columns, the third an alias type. */
export function looksLikeAltCsv(text: string): boolean {
  const first = rows(text.slice(0, 4096).split(/\r?\n/).slice(0, 3).join('\n'))[0];
  return !!first && first.length <= 5 && /^(aka|fka|nka)$/i.test(first[2] ?? '');
}
