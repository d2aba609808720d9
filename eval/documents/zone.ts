import type { Layout } from './manifest.js';

/*
 * The truth's own check: ICAO 9303 check digits over a zone typed in by hand. Written apart
 * from src/engine/document/mrz.ts on purpose, so the truth does not depend on the engine it grades.
 */
const WEIGHTS = [7, 3, 1];
const value = (c: string) => (c === '<' ? 0 : /\d/.test(c) ? Number(c) : c.charCodeAt(0) - 55);
export const icaoCheckDigit = (s: string): string =>
  String([...s].reduce((sum, c, i) => sum + value(c) * WEIGHTS[i % 3], 0) % 10);

export const LINE_LENGTH: Record<Layout, number> = {
  TD1: 30,
  TD2: 36,
  TD3: 44,
  'MRV-A': 44,
  'MRV-B': 36,
  'FRA-ID': 36,
};

export interface ZoneFields {
  number: string;
  birth: string;
  expiry: string | null;
}

/** Each check digit's field (name, covered text, digit) for a layout; visas carry no composite. */
function checks(layout: Layout, [a, b]: string[]): [string, string, string][] {
  if (layout === 'TD1')
    return [
      ['number', a.slice(5, 14), a[14]],
      ['birth', b.slice(0, 6), b[6]],
      ['expiry', b.slice(8, 14), b[14]],
      ['composite', a.slice(5, 30) + b.slice(0, 7) + b.slice(8, 15) + b.slice(18, 29), b[29]],
    ];
  if (layout === 'FRA-ID')
    return [
      ['number', b.slice(0, 12), b[12]],
      ['birth', b.slice(27, 33), b[33]],
      ['composite', a + b.slice(0, 35), b[35]],
    ];
  const end = layout === 'TD2' ? 35 : 43;
  const out: [string, string, string][] = [
    ['number', b.slice(0, 9), b[9]],
    ['birth', b.slice(13, 19), b[19]],
    ['expiry', b.slice(21, 27), b[27]],
  ];
  if (layout === 'TD3' || layout === 'TD2')
    out.push(['composite', b.slice(0, 10) + b.slice(13, 20) + b.slice(21, end), b[end]]);
  if (layout === 'TD3') out.push(['optional', b.slice(28, 42), b[42]]);
  return out;
}

/** Names of the check digits a zone fails (an empty list: every one passes). */
export function failedCheckDigits(layout: Layout, lines: string[]): string[] {
  return checks(layout, lines)
    .filter(([, text, digit]) => icaoCheckDigit(text) !== (digit === '<' ? '0' : digit))
    .map(([name]) => name);
}

/** Number (fillers dropped), birth and expiry (YYMMDD) as the zone states them. */
export function zoneFields(layout: Layout, [a, b]: string[]): ZoneFields {
  if (layout === 'TD1')
    return { number: a.slice(5, 14).replace(/</g, ''), birth: b.slice(0, 6), expiry: b.slice(8, 14) };
  if (layout === 'FRA-ID') return { number: b.slice(0, 12).replace(/</g, ''), birth: b.slice(27, 33), expiry: null };
  return { number: b.slice(0, 9).replace(/</g, ''), birth: b.slice(13, 19), expiry: b.slice(21, 27) };
}

/** YYYY-MM-DD to the zone's YYMMDD. */
export const yymmdd = (iso: string): string => iso.slice(2, 4) + iso.slice(5, 7) + iso.slice(8, 10);
