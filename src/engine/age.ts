import { isDate } from './document.js';
import { ageFromFace, canEstimateAge } from './face/runners.js';
import { type CheckInput, type CheckResult, type CheckRunner, result } from './types.js';

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
    const age = ageOn(dob, input.now);
    const config = input.check.config as { ageRules?: AgeRule[]; ageRuleFallback?: string };
    const rule = (config.ageRules ?? []).find((r) => age >= r.fromAge && age <= r.toAge);
    const action = rule?.action ?? config.ageRuleFallback ?? 'pass';
    const verdict = actionToVerdict(action);
    const codes = verdict === 'approve' ? [] : [verdict === 'reject' ? 'AGE_RESTRICTED' : 'AGE_REVIEW'];
    return result(verdict, verdict === 'approve' ? 1 : 0, codes);
  },
};
