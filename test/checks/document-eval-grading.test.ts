// engine:eval's grading of the document check on a genuine document (eval/documents/grade.ts):
// each outcome counted once, the costly errors flagged, nothing passing by default.
import type { CheckResult } from '../../src/engine/types.js';
import { gradeGenuine, percentile } from '../../eval/documents/grade.js';

const truth = { document_number: 'L898902C3', date_of_birth: '1974-08-12', expiry_date: '2034-04-15' };
const check = (over: Partial<CheckResult>, valid: boolean | null = true): CheckResult => ({
  status: 'completed',
  verdict: 'approve',
  score: 0.95,
  reasonCodes: [],
  providerTier: 'engine',
  evidence: [{ kind: 'document', side: 'front', analysis: { mrz_valid: valid, problems: [] } }],
  ...over,
});

describe('grading a genuine document', () => {
  it('reads right only when number, birth date and expiry all equal the truth', () => {
    expect(
      gradeGenuine(
        truth,
        check({ document: { number: 'L898902C3', date_of_birth: '1974-08-12', expiry_date: '2034-04-15' } }),
      ).outcome,
    ).toBe('read_right');
    expect(
      gradeGenuine(
        truth,
        check({ document: { number: 'L898902C3', date_of_birth: '2074-08-12', expiry_date: '2034-04-15' } }),
      ).outcome,
    ).toBe('misread');
  });

  it('flags a wrong number reported valid, and ID_INVALID on a genuine document', () => {
    const graded = gradeGenuine(
      truth,
      check({
        reasonCodes: ['ID_INVALID'],
        document: { number: 'L898902C8', date_of_birth: '1974-08-12', expiry_date: '2034-04-15' },
      }),
    );
    expect(graded).toMatchObject({ outcome: 'misread', idInvalid: true, wrongNumberValid: true });
    expect(gradeGenuine(truth, check({ document: { number: 'L898902C8' } }, false)).wrongNumberValid).toBe(false);
  });

  it('counts a gate refusal by its reason code and problems, and no reading as no zone', () => {
    const refused = check({
      reasonCodes: ['IMAGE_QUALITY'],
      evidence: [{ kind: 'document', analysis: { mrz_valid: null, problems: ['low_resolution', 'glare'] } }],
    });
    expect(gradeGenuine(truth, refused)).toMatchObject({
      outcome: 'refused',
      refusedAs: 'IMAGE_QUALITY (low_resolution, glare)',
    });
    expect(gradeGenuine(truth, check({ reasonCodes: ['MRZ_NOT_FOUND'] }, null)).outcome).toBe('no_zone');
  });

  it('takes a zone without an expiry (the 1994 French card) as right only when no expiry is stored', () => {
    const french = { ...truth, expiry_date: null };
    expect(
      gradeGenuine(french, check({ document: { number: 'L898902C3', date_of_birth: '1974-08-12' } })).outcome,
    ).toBe('read_right');
    expect(
      gradeGenuine(
        french,
        check({ document: { number: 'L898902C3', date_of_birth: '1974-08-12', expiry_date: '2030-01-01' } }),
      ).outcome,
    ).toBe('misread');
  });

  it('takes nearest-rank percentiles', () => {
    expect(percentile([5, 1, 3, 2, 4], 50)).toBe(3);
    expect(percentile([5, 1, 3, 2, 4], 99)).toBe(5);
    expect(percentile([], 50)).toBeNull();
  });
});
