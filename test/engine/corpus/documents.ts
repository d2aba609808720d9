import type { SideAnalysis } from '../../../src/engine/document/index.js';
import { checkDigit } from '../../../src/engine/document/mrz.js';

/** A synthetic holder: every image of the corpus is rendered from one of these. */
export interface Holder {
  lastName: string;
  firstName: string;
  number: string;
  country: string;
  nationality: string;
  /** YYYY-MM-DD */
  birth: string;
  expiry: string;
  sex: 'M' | 'F';
}

export const HOLDERS: Record<string, Holder> = {
  anna: { lastName: 'ERIKSSON', firstName: 'ANNA MARIA', number: 'L898902C3', country: 'UTO', nationality: 'UTO', birth: '1974-08-12', expiry: '2034-04-15', sex: 'F' },
  jan: { lastName: 'DE VRIES', firstName: 'JAN', number: 'NX47B1205', country: 'NLD', nationality: 'NLD', birth: '1990-02-28', expiry: '2031-11-30', sex: 'M' },
  lena: { lastName: 'SCHMIDT', firstName: 'LENA', number: 'C01X00T47', country: 'D', nationality: 'D', birth: '1985-06-15', expiry: '2022-03-01', sex: 'F' },
  john: { lastName: 'PUBLIC', firstName: 'JOHN QUINCY', number: 'D1234562', country: 'USA', nationality: 'USA', birth: '1974-08-12', expiry: '2031-01-15', sex: 'M' },
};

const yymmdd = (iso: string) => iso.slice(2, 4) + iso.slice(5, 7) + iso.slice(8, 10);
const pad = (value: string, length: number) => (value + '<'.repeat(length)).slice(0, length);
const code3 = (value: string) => pad(value, 3);
const names = (h: Holder) => `${h.lastName.replace(/ /g, '<')}<<${h.firstName.replace(/ /g, '<')}`;

/** TD3 (passport) lines with real check digits. */
export function td3(h: Holder, docCode = 'P'): string[] {
  const number = pad(h.number, 9);
  const personal = pad('', 14);
  const l2Parts = [number + checkDigit(number), code3(h.nationality), yymmdd(h.birth) + checkDigit(yymmdd(h.birth)), h.sex, yymmdd(h.expiry) + checkDigit(yymmdd(h.expiry)), personal + checkDigit(personal)];
  const composite = l2Parts[0] + l2Parts[2] + l2Parts[4] + l2Parts[5];
  return [pad(`${pad(docCode, 2)}${code3(h.country)}${names(h)}`, 44), l2Parts.join('') + checkDigit(composite)];
}

/** TD1 (identity card) lines with real check digits. */
export function td1(h: Holder, docCode = 'I'): string[] {
  const number = pad(h.number, 9);
  const l1 = `${pad(docCode, 2)}${code3(h.country)}${number}${checkDigit(number)}${pad('', 15)}`;
  const l2head = `${yymmdd(h.birth)}${checkDigit(yymmdd(h.birth))}${h.sex}${yymmdd(h.expiry)}${checkDigit(yymmdd(h.expiry))}${code3(h.nationality)}${pad('', 11)}`;
  const composite = l1.slice(5, 30) + l2head.slice(0, 7) + l2head.slice(8, 15) + l2head.slice(18, 29);
  return [l1, l2head + checkDigit(composite), pad(names(h), 30)];
}

/**
 * A forged zone: the birth year changed by ten (1974 -> 1984) with the check digits left as
 * issued, so the birth date's and the composite check digits fail.
 */
export function corruptCheckDigit(lines: string[], format: 'TD1' | 'TD3'): string[] {
  const [line, column] = format === 'TD3' ? [1, 13] : [1, 0];
  const out = [...lines];
  const wrong = String((Number(out[line][column]) + 1) % 10);
  out[line] = out[line].slice(0, column) + wrong + out[line].slice(column + 1);
  return out;
}

/** AAMVA 2020 (version 10) driver licence data as a PDF417 carries it (US dates: MMDDCCYY). */
export function aamva(h: Holder, overrides: Partial<Holder> = {}): string {
  const d = { ...h, ...overrides };
  const us = (iso: string) => iso.slice(5, 7) + iso.slice(8, 10) + iso.slice(0, 4);
  const [first, ...middle] = d.firstName.split(' ');
  const elements = [`DAQ${d.number}`, `DCS${d.lastName}`, `DAC${first}`, `DAD${middle.join(' ') || 'NONE'}`, `DBB${us(d.birth)}`, `DBA${us(d.expiry)}`, 'DBD01152023', `DBC${d.sex === 'M' ? 1 : 2}`, 'DAJCA', 'DCGUSA', 'DAG123 MAIN ST', 'DAIANYTOWN', 'DAK940100000'];
  const subfile = `DL${elements.join('\n')}\r`;
  const offset = 31;
  return `@\n\x1e\rANSI 636014100001DL${String(offset).padStart(4, '0')}${String(subfile.length).padStart(4, '0')}${subfile}`;
}

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
/** How a passport prints a date: 12 AUG 1974. */
export const printedDate = (iso: string) => `${iso.slice(8, 10)} ${MONTHS[Number(iso.slice(5, 7)) - 1]} ${iso.slice(0, 4)}`;
/** How a US licence prints a date: 08/12/1974. */
export const usDate = (iso: string) => `${iso.slice(5, 7)}/${iso.slice(8, 10)}/${iso.slice(0, 4)}`;

/** A sharp front side whose zone was read as given and whose printed side says `printed` (for rules above the reader). */
export const sideWith = (mrz: SideAnalysis['mrz'], printed: SideAnalysis['printed']): SideAnalysis => ({
  side: 'front',
  quality: {
    metrics: { width: 1200, height: 850, char_height: 30, sharpness: 2000, glare: 0, contrast: 50 },
    problems: [],
  },
  mrz,
  barcodeFound: false,
  barcode: null,
  printed,
});
