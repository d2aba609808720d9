import { createRequire } from 'node:module';
import anyAscii from 'any-ascii';

// talisman and i18n-iso-countries are CommonJS without types; loaded once through require.
const require = createRequire(import.meta.url);
const doubleMetaphone = require('talisman/phonetics/double-metaphone.js') as (word: string) => [string, string];
const jaroWinkler = require('talisman/metrics/jaro-winkler.js') as { similarity: (a: string, b: string) => number };
const countries = require('i18n-iso-countries') as {
  registerLocale(locale: unknown): void;
  getAlpha2Code(name: string, lang: string): string | undefined;
  alpha3ToAlpha2(code: string): string | undefined;
  isValid(code: string): boolean;
};
countries.registerLocale(require('i18n-iso-countries/langs/en.json'));

/** Titles and honorifics that lists and documents print inconsistently; they never decide a match. */
const NOISE = new Set([
  'MR',
  'MRS',
  'MS',
  'MISS',
  'DR',
  'PROF',
  'SIR',
  'HAJI',
  'HAJJI',
  'SHEIKH',
  'SHAIKH',
  'GENERAL',
  'COLONEL',
]);

/**
 * A name as screening compares it: transliterated to ASCII (any-ascii: Cyrillic, Greek,
 * Arabic, CJK...), upper case, split on anything that is not a letter or digit, honorifics
 * dropped. MRZ filler `<` splits like a space.
 */
export function nameTokens(name: string): string[] {
  const ascii = anyAscii(name.normalize('NFKC')).toUpperCase();
  return ascii
    .replace(/'/g, '')
    .split(/[^A-Z0-9]+/)
    .filter((t) => t.length > 0 && !NOISE.has(t));
}

/** Blocking keys of a token: its double-metaphone codes and its first three letters (typos that change the sound). */
export function blockingKeys(token: string): string[] {
  if (token.length < 3 || /^\d+$/.test(token)) return [];
  const [primary, secondary] = doubleMetaphone(token);
  const keys = new Set<string>([`P:${token.slice(0, 3)}`]);
  if (primary) keys.add(`M:${primary}`);
  if (secondary) keys.add(`M:${secondary}`);
  return [...keys];
}

/** The sorted primary double-metaphone codes of a name's tokens: the same for reordered names and most spelling slips. */
export function doubleMetaphoneKeys(name: string): string[] {
  return [
    ...new Set(
      nameTokens(name)
        .map((t) => doubleMetaphone(t)[0])
        .filter(Boolean),
    ),
  ].sort();
}

export const tokenSimilarity = (a: string, b: string): number => (a === b ? 1 : jaroWinkler.similarity(a, b));

/** OFAC prints country names its own way; the ones i18n-iso-countries does not know. */
const COUNTRY_ALIASES: Record<string, string> = {
  BURMA: 'MM',
  'KOREA, NORTH': 'KP',
  'KOREA, SOUTH': 'KR',
  'NORTH KOREA': 'KP',
  'SOUTH KOREA': 'KR',
  'CONGO, DEMOCRATIC REPUBLIC OF THE': 'CD',
  'CONGO, REPUBLIC OF THE': 'CG',
  'WEST BANK': 'PS',
  GAZA: 'PS',
  KOSOVO: 'XK',
  'SOVIET UNION': 'SU',
};

/**
 * A nationality as ISO 3166 alpha-2 (upper case): from alpha-2, alpha-3 (MRZ prints alpha-3,
 * plus `D` for Germany) or an English country name; undefined when unknown.
 */
export function countryCode(value: string | undefined | null): string | undefined {
  if (!value) return undefined;
  const v = value.trim().toUpperCase().replace(/<+/g, '');
  if (!v) return undefined;
  if (v === 'D') return 'DE';
  if (/^[A-Z]{2}$/.test(v)) return v === 'UK' ? 'GB' : v;
  if (/^[A-Z]{3}$/.test(v)) {
    const a2 = countries.alpha3ToAlpha2(v);
    if (a2) return a2;
  }
  if (COUNTRY_ALIASES[v]) return COUNTRY_ALIASES[v];
  const byName = countries.getAlpha2Code(value.trim(), 'en');
  return byName ? byName.toUpperCase() : undefined;
}
