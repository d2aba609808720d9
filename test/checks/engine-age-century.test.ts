// The age check where the document check took a birth date's century from the printed page
// (branch docread5, issue 26): the zone gives two-digit years, so a holder born 1911-11-11 reads
// 2011-11-11 from it. The century from print is marked on the reading (`mrz.zone_date_of_birth`);
// wherever the zone's own century would give another outcome, the age check goes to review, so a
// child misdated a century earlier never passes. Pure data, no images.
import type { FlowSnapshot } from '../../src/entities/verification.entity.js';
import { ageRunner } from '../../src/engine/age.js';
import { documentResult } from '../../src/engine/document.js';
import { combineSides, readMrzLines } from '../../src/engine/document/index.js';
import type { CheckInput, CheckResult, DocumentRead } from '../../src/engine/types.js';
import { HOLDERS, sideWith, td3 } from '../engine/corpus/documents.js';

const NOW = new Date('2026-06-15T12:00:00Z');
const MINORS_REJECTED = { ageRules: [{ fromAge: 0, toAge: 17, action: 'reject' }] };
const snapshot = { steps: [], acceptedDocumentTypes: [], policyTree: {}, expiryPolicy: {} } as unknown as FlowSnapshot;

const ageOf = (document: DocumentRead, config: Record<string, unknown> = MINORS_REJECTED) =>
  ageRunner.run({
    check: { type: 'age', config },
    snapshot,
    identity: { document },
    sandbox: null,
    now: NOW,
  } as CheckInput) as CheckResult;

const passport = (dob: string, mrz?: DocumentRead['mrz']): DocumentRead => ({
  type: 'passport',
  number: 'P1234567',
  issuing_country: 'SVK',
  date_of_birth: dob,
  expiry_date: '2031-01-01',
  ...(mrz ? { mrz } : {}),
});

describe('a birth century taken from print', () => {
  it('goes to AGE_REVIEW when the zone’s own century would change the outcome (a possible minor never passes)', () => {
    const fromPrint = passport('1911-11-11', {
      document_number: 'P1234567',
      date_of_birth: '1911-11-11',
      zone_date_of_birth: '2011-11-11',
    });
    expect(ageOf(fromPrint)).toMatchObject({ verdict: 'review', reasonCodes: ['AGE_REVIEW'] });
    // The other direction: the print says a child, the zone's century would be an adult: review too.
    const childFromPrint = passport('2010-01-01', { date_of_birth: '2010-01-01', zone_date_of_birth: '2110-01-01' });
    expect(
      ageOf(childFromPrint, { ageRules: [{ fromAge: 0, toAge: 17, action: 'review' }], ageRuleFallback: 'reject' }),
    ).toMatchObject({ verdict: 'review', reasonCodes: ['AGE_REVIEW'] });
  });

  it('keeps its verdict where both centuries give the same outcome, and without the mark', () => {
    const fromPrint = passport('1911-11-11', { date_of_birth: '1911-11-11', zone_date_of_birth: '2011-11-11' });
    // No age rule: approve under either century.
    expect(ageOf(fromPrint, {})).toMatchObject({ verdict: 'approve', reasonCodes: [] });
    // Rules that reject minors and centenarians alike (both centuries reject): still a rejection.
    expect(ageOf(fromPrint, { ...MINORS_REJECTED, ageRuleFallback: 'reject' })).toMatchObject({
      verdict: 'reject',
      reasonCodes: ['AGE_RESTRICTED'],
    });
    // A 1911 birth the zone itself settled (no mark): approve, as before.
    expect(ageOf(passport('1911-11-11', { date_of_birth: '1911-11-11' }))).toMatchObject({ verdict: 'approve' });
    // The birth date changed by hand since (it is no longer the zone's reading): the mark no longer applies.
    const edited = passport('1950-03-03', { date_of_birth: '1911-11-11', zone_date_of_birth: '2011-11-11' });
    expect(ageOf(edited)).toMatchObject({ verdict: 'approve' });
  });

  it('end to end: a zone read 2011 with a page printing 11.11.1911 stores 1911, marked; the minors rule reviews instead of approving', () => {
    const [l1, l2] = td3({ ...HOLDERS.anna, birth: '2011-11-11' });
    const mrz = readMrzLines('TD3', [l1, l2], NOW);
    expect(mrz.fields.date_of_birth).toBe('2011-11-11');
    // The page's date found without its caption (a caption too small to read), read at 62.
    const side = sideWith(mrz, {
      dates: ['1911-11-11'],
      numbers: [],
      labelled: {},
      datesRead: [{ value: '1911-11-11', confidence: 62 }],
    });
    const result = documentResult(combineSides([side]), snapshot, NOW);
    expect(result.reasonCodes).not.toContain('ID_INVALID');
    expect(result.document).toMatchObject({
      date_of_birth: '1911-11-11',
      mrz: { date_of_birth: '1911-11-11', zone_date_of_birth: '2011-11-11' },
    });
    expect(ageOf(result.document!)).toMatchObject({ verdict: 'review', reasonCodes: ['AGE_REVIEW'] });
  });
});
