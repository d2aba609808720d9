import { countryCode, tokenSimilarity } from './text.js';
import type { DobRelation } from './types.js';

/** Below this a token pair counts as no match at all (Jaro-Winkler is generous with short strings). */
const TOKEN_FLOOR = 0.75;

/**
 * Token similarity for names: Jaro-Winkler, discounted when the lengths differ a lot (its
 * prefix bonus otherwise makes `CARLOSSANTANA` look like `CARLOS`).
 */
function pairSimilarity(a: string, b: string): number {
  const ratio = Math.min(a.length, b.length) / Math.max(a.length, b.length);
  const similarity = tokenSimilarity(a, b);
  return ratio < 0.75 ? similarity * Math.sqrt(ratio) : similarity;
}

/** For each token of `from`, its best Jaro-Winkler partner in `to`; the mean (Monge-Elkan). */
function mongeElkan(from: string[], to: string[]): number {
  if (from.length === 0 || to.length === 0) return 0;
  let sum = 0;
  for (const a of from) {
    let best = 0;
    for (const b of to) best = Math.max(best, pairSimilarity(a, b));
    sum += best >= TOKEN_FLOOR ? best : 0;
  }
  return sum / from.length;
}

/** The token list with two adjacent tokens joined, for each adjacent pair (`WEI LONG` -> `WEILONG`). */
function joinedVariants(tokens: string[]): string[][] {
  const variants: string[][] = [];
  for (let i = 0; i + 1 < tokens.length && variants.length < 6; i += 1)
    variants.push([...tokens.slice(0, i), tokens[i]! + tokens[i + 1]!, ...tokens.slice(i + 2)]);
  return variants;
}

/**
 * Name similarity, independent of token order: Monge-Elkan from the subject's tokens (every
 * name the document prints must be on the entry) weighted 0.8, and from the entry's tokens
 * 0.2 (a middle name the document omits costs a little, not the match). Transliterations
 * that join or split a name (`WEILONG` / `WEI LONG`) are tried as variants with one pair
 * of adjacent tokens joined.
 */
export function nameSimilarity(subject: string[], entry: string[]): number {
  if (subject.length === 0 || entry.length === 0) return 0;
  const score = (s: string[], e: string[]) => 0.8 * mongeElkan(s, e) + 0.2 * mongeElkan(e, s);
  let best = score(subject, entry);
  if (best < 1) for (const e of joinedVariants(entry)) best = Math.max(best, score(subject, e));
  if (best < 1) for (const s of joinedVariants(subject)) best = Math.max(best, score(s, entry));
  // A single-token subject (only a surname read) is a weak identifier: it can never match alone.
  return subject.length === 1 ? best * 0.85 : best;
}

/**
 * How a date of birth (YYYY-MM-DD) relates to an entry's dates (any precision): exact at the
 * entry's precision, same year, within one year, or a mismatch; unknown when either side has none.
 */
export function dobRelation(dob: string | undefined, entryDates: string[]): DobRelation {
  if (!dob || !/^\d{4}-\d{2}-\d{2}$/.test(dob) || entryDates.length === 0) return 'unknown';
  const year = Number(dob.slice(0, 4));
  let best: DobRelation = 'mismatch';
  const rank: Record<DobRelation, number> = { exact: 4, same_year: 3, within_one_year: 2, mismatch: 1, unknown: 0 };
  for (const date of entryDates) {
    let relation: DobRelation;
    // A list that knows only the year (or month) matches exactly at the precision it has.
    if (dob.startsWith(date)) relation = 'exact';
    else if (date.slice(0, 4) === dob.slice(0, 4)) relation = 'same_year';
    else if (Math.abs(Number(date.slice(0, 4)) - year) === 1) relation = 'within_one_year';
    else relation = 'mismatch';
    if (rank[relation] > rank[best]) best = relation;
  }
  return best;
}

/** What each date-of-birth relation adds to the name score. A mismatch all but rules the entry out. */
export const DOB_ADJUSTMENT: Record<DobRelation, number> = {
  exact: 0.05,
  same_year: 0,
  within_one_year: -0.07,
  unknown: -0.03,
  mismatch: -0.35,
};

/** A shared nationality is a boost only: lists often omit it and people hold several. */
export const NATIONALITY_BOOST = 0.04;

export function nationalityMatches(nationality: string | undefined, entryNationalities: string[]): boolean {
  const code = countryCode(nationality);
  return !!code && entryNationalities.includes(code);
}

/** The final score of a candidate, 0 to 1, rounded to three decimals. */
export function combinedScore(nameScore: number, dob: DobRelation, nationality: boolean): number {
  const score = nameScore + DOB_ADJUSTMENT[dob] + (nationality ? NATIONALITY_BOOST : 0);
  return Math.round(Math.min(1, Math.max(0, score)) * 1000) / 1000;
}
