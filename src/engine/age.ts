import { isDate } from './document.js';
import { ageFromFace, canEstimateAge } from './face/runners.js';
import { type CheckInput, type CheckResult, type CheckRunner, type DocumentRead, result } from './types.js';

interface AgeRule {
  fromAge: number;
  toAge: number;
  action: string;
}

/** Whole years between a YYYY-MM-DD birth date and `now` (UTC). */
export function ageOn(dateOfBirth: string, now: Date): number {
  const [y, m, d] = dateOfBirth.split('-').map(Number);
  let age = now.getUTCFullYear() - y;
  if (now.getUTCMonth() + 1 < m || (now.getUTCMonth() + 1 === m && now.getUTCDate() < d)) age -= 1;
  return age;
}

/**
 * The zone's own birth date when the stored one is the zone's reading with its century taken from
 * the printed page (document check, analyse.ts `inPrintedCentury`); undefined otherwise, or once
 * the birth date was changed by hand.
 */
function centuryFromPrint(document: DocumentRead, dob: string): string | undefined {
  const zone = document.mrz?.zone_date_of_birth;
  return zone && isDate(zone) && zone !== dob && document.mrz?.date_of_birth === dob ? zone : undefined;
}

const actionToVerdict = (action: string) =>
  action === 'reject' ? 'reject' : action === 'review' ? 'review' : 'approve';

/** The age check from the document's date of birth, with the step's `ageRules` and `ageRuleFallback`. */
export const ageRunner: CheckRunner = {
  type: 'age',
  needsImages: true,
  run(input: CheckInput): CheckResult | Promise<CheckResult> {
    const dob = input.identity.document?.date_of_birth;
    if (!isDate(dob)) {
      // Without a date of birth the face's estimated age helps a reviewer; it never approves.
      if (canEstimateAge(input)) return ageFromFace(input);
      return result('review', 0, [input.identity.document ? 'DATE_OF_BIRTH_UNREADABLE' : 'IMAGE_ANALYSIS_UNAVAILABLE']);
    }
    const config = input.check.config as { ageRules?: AgeRule[]; ageRuleFallback?: string };
    const verdictAt = (age: number) => {
      const rule = (config.ageRules ?? []).find((r) => age >= r.fromAge && age <= r.toAge);
      return actionToVerdict(rule?.action ?? config.ageRuleFallback ?? 'pass');
    };
    const verdict = verdictAt(ageOn(dob, input.now));
    // The zone gives two-digit years; where the page's print moved the birth a century earlier, the zone's own century must give the same outcome, else review.
    const zoneBirth = centuryFromPrint(input.identity.document!, dob);
    if (zoneBirth && verdictAt(ageOn(zoneBirth, input.now)) !== verdict) return result('review', 0, ['AGE_REVIEW']);
    const codes = verdict === 'approve' ? [] : [verdict === 'reject' ? 'AGE_RESTRICTED' : 'AGE_REVIEW'];
    return result(verdict, verdict === 'approve' ? 1 : 0, codes);
  },
};
