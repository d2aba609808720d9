// Pure unit tests of the checks engine: document rules, age rules, live runners, sandbox forcing, roll-up.
import type { Check } from '../../src/entities/check.entity.js';
import type { FlowSnapshot } from '../../src/entities/verification.entity.js';
import { ageOn, ageRunner } from '../../src/engine/age.js';
import { evaluateDocument, expiryDisposition, findingDisposition } from '../../src/engine/document.js';
import { rollUp } from '../../src/services/checks/index.js';
import { RUNNERS } from '../../src/engine/runners.js';
import { applySandboxOutcome, forcedCheckIndex, sandboxImageResult } from '../../src/engine/sandbox.js';
import type { CheckInput, CheckResult, DocumentRead, Identity } from '../../src/engine/types.js';

const NOW = new Date('2026-06-15T12:00:00Z');
const PAST = '2020-01-01T00:00:00Z';
const FUTURE = '2099-01-01T00:00:00Z';

const snapshot = (extra: Partial<FlowSnapshot> = {}): FlowSnapshot => ({
  steps: [],
  acceptedDocumentTypes: [],
  ...extra,
});

/** A complete, valid, unexpired passport read. */
const passport = (extra: Partial<DocumentRead> = {}): DocumentRead => ({
  type: 'passport',
  number: 'P1234567',
  issuing_country: 'GBR',
  date_of_birth: '1985-04-12',
  expiry_date: '2031-01-01',
  first_name: 'Jane',
  last_name: 'Doe',
  ...extra,
});

const check = (extra: Partial<Check> = {}): Check =>
  ({
    type: 'document',
    status: 'completed',
    required: true,
    verdict: 'approve',
    score: 0.9,
    reasonCodes: [],
    config: {},
    ...extra,
  }) as Check;

const input = (
  extra: {
    check?: Partial<Check>;
    identity?: Identity;
    snapshot?: FlowSnapshot;
    sandbox?: CheckInput['sandbox'];
    now?: Date;
  } = {},
): CheckInput => ({
  check: check(extra.check),
  snapshot: extra.snapshot ?? snapshot(),
  identity: extra.identity ?? {},
  sandbox: extra.sandbox ?? null,
  now: extra.now ?? NOW,
});

describe('roll-up', () => {
  it('a required check rejecting gives rejected, even when another check is in review', () => {
    const out = rollUp([
      check({ verdict: 'approve' }),
      check({ type: 'face_match', verdict: 'review', reasonCodes: ['SELFIE_MISMATCH'] }),
      check({ type: 'liveness', verdict: 'reject', reasonCodes: ['LIVENESS_FAILED'] }),
    ]);
    expect(out).toMatchObject({ status: 'rejected', verdict: 'reject', changeReason: 'engine' });
    expect(out.reasonCodes).toContain('LIVENESS_FAILED');
  });

  it('otherwise any check in review gives manual_review, with the review reason codes', () => {
    const out = rollUp([check(), check({ type: 'face_match', verdict: 'review', reasonCodes: ['SELFIE_MISMATCH'] })]);
    expect(out).toMatchObject({
      status: 'manual_review',
      verdict: 'review',
      reasonCodes: ['SELFIE_MISMATCH'],
      declineType: null,
    });
  });

  it('a non-required check in review still gives manual_review', () => {
    const out = rollUp([
      check(),
      check({ type: 'aml', required: false, verdict: 'review', reasonCodes: ['AML_SCREENING_UNAVAILABLE'] }),
    ]);
    expect(out.status).toBe('manual_review');
  });

  it('otherwise approved, with no reason codes and no decline type', () => {
    const out = rollUp([check(), check({ type: 'liveness' })]);
    expect(out).toMatchObject({ status: 'approved', verdict: 'approve', reasonCodes: [], declineType: null });
  });

  it('never approves without a completed required check: no checks, only optional ones, or none that ran', () => {
    const noApproval = { status: 'manual_review', verdict: 'review', reasonCodes: ['NO_REQUIRED_CHECK_COMPLETED'] };
    expect(rollUp([])).toMatchObject(noApproval);
    expect(rollUp([check({ required: false }), check({ type: 'email', required: false })])).toMatchObject(noApproval);
    expect(rollUp([check({ status: 'skipped', required: false, verdict: null })])).toMatchObject(noApproval);
    expect(rollUp([check({ required: false }), check({ type: 'liveness' })])).toMatchObject({ status: 'approved' });
  });

  it('a non-required check rejecting does not reject the verification', () => {
    const out = rollUp([
      check(),
      check({ type: 'age', required: false, verdict: 'reject', reasonCodes: ['AGE_RESTRICTED'] }),
    ]);
    expect(out).toMatchObject({ status: 'approved', verdict: 'approve' });
  });

  it('collects the reason codes of every rejecting required check', () => {
    const out = rollUp([
      check({ verdict: 'reject', reasonCodes: ['DOCUMENT_EXPIRED'] }),
      check({ type: 'liveness', verdict: 'reject', reasonCodes: ['LIVENESS_FAILED'] }),
    ]);
    expect(out.reasonCodes).toEqual(expect.arrayContaining(['DOCUMENT_EXPIRED', 'LIVENESS_FAILED']));
  });

  it('decline_type is retryable when every rejecting code is retryable', () => {
    const out = rollUp([
      check({ type: 'liveness', verdict: 'reject', reasonCodes: ['LIVENESS_FAILED'] }),
      check({ verdict: 'reject', reasonCodes: ['DOCUMENT_EXPIRED'] }),
    ]);
    expect(out.declineType).toBe('retryable');
  });

  it('decline_type is final for ID_INVALID, alone or beside a retryable code', () => {
    expect(rollUp([check({ verdict: 'reject', reasonCodes: ['ID_INVALID'] })]).declineType).toBe('final');
    const mixed = rollUp([
      check({ verdict: 'reject', reasonCodes: ['ID_INVALID'] }),
      check({ type: 'liveness', verdict: 'reject', reasonCodes: ['LIVENESS_FAILED'] }),
    ]);
    expect(mixed.declineType).toBe('final');
  });

  it('decline_type is final for a rejection that carries no reason code', () => {
    expect(rollUp([check({ verdict: 'reject', reasonCodes: [] })]).declineType).toBe('final');
  });

  it('an optional skipped check (no verdict) neither rejects nor reviews', () => {
    const out = rollUp([
      check(),
      check({ type: 'email', required: false, status: 'skipped', verdict: null, reasonCodes: ['EMAIL_NOT_PROVIDED'] }),
    ]);
    expect(out.status).toBe('approved');
  });

  it('never a fake approval: a required check that was skipped gives manual_review with its reason codes', () => {
    const out = rollUp([
      check(),
      check({ type: 'email', status: 'skipped', verdict: null, reasonCodes: ['EMAIL_NOT_PROVIDED'] }),
    ]);
    expect(out).toMatchObject({ status: 'manual_review', reasonCodes: ['EMAIL_NOT_PROVIDED'] });
  });

  it('never a fake approval: an errored check counts as review, so the others cannot approve alone', () => {
    const out = rollUp([
      check(),
      check({ type: 'aml', status: 'errored', verdict: 'review', score: null, reasonCodes: ['CHECK_UNAVAILABLE'] }),
    ]);
    expect(out).toMatchObject({ status: 'manual_review', reasonCodes: ['CHECK_UNAVAILABLE'] });
  });

  it('the score is the mean of the completed checks', () => {
    expect(rollUp([check({ score: 0.9 }), check({ score: 0.5 })]).score).toBeCloseTo(0.7, 3);
  });
});

describe('document: expiry', () => {
  it('an expired document with expiry_policy default (reject) rejects with DOCUMENT_EXPIRED', () => {
    const out = evaluateDocument(passport({ expiry_date: '2026-06-14' }), snapshot(), NOW);
    expect(out).toMatchObject({ status: 'completed', verdict: 'reject' });
    expect(out.reasonCodes).toEqual(['DOCUMENT_EXPIRED']);
    expect(
      evaluateDocument(
        passport({ expiry_date: '2026-06-14' }),
        snapshot({ expiryPolicy: { default: 'reject', rules: [] } }),
        NOW,
      ).verdict,
    ).toBe('reject');
  });

  it('a document expiring today is still valid', () => {
    expect(evaluateDocument(passport({ expiry_date: '2026-06-15' }), snapshot(), NOW).verdict).toBe('approve');
  });

  it('a rule matching country and document type with disposition review sends an expired document to review', () => {
    const policy = { default: 'reject', rules: [{ country: 'GBR', document_type: 'passport', disposition: 'review' }] };
    const out = evaluateDocument(passport({ expiry_date: '2025-01-01' }), snapshot({ expiryPolicy: policy }), NOW);
    expect(out.verdict).toBe('review');
    expect(out.reasonCodes).toEqual(['DOCUMENT_EXPIRED']);
  });

  it('expiryDisposition: `*` matches any country or type; a non-matching rule falls back to default; no policy rejects', () => {
    const policy = {
      default: 'reject',
      rules: [
        { country: 'FRA', document_type: 'passport', disposition: 'approve' },
        { country: '*', document_type: 'id_card', disposition: 'review' },
      ],
    };
    const snap = snapshot({ expiryPolicy: policy });
    expect(expiryDisposition(snap, 'DEU', 'id_card')).toBe('review');
    expect(expiryDisposition(snap, 'FRA', 'passport')).toBe('approve');
    expect(expiryDisposition(snap, 'GBR', 'passport')).toBe('reject');
    expect(
      expiryDisposition(
        snapshot({
          expiryPolicy: { default: 'review', rules: [{ country: 'GBR', document_type: '*', disposition: 'reject' }] },
        }),
        'GBR',
        'driving_licence',
      ),
    ).toBe('reject');
    expect(expiryDisposition(snapshot(), 'GBR', 'passport')).toBe('reject');
  });

  it.each([0, 1])('an unreadable expiry date gives EXPIRY_UNREADABLE review at sensitivity %s', async (sensitivity) => {
    const snap = snapshot({ sensitivity });
    for (const expiry_date of ['31/12/2030', 'unreadable', '2030-13-45']) {
      const out = evaluateDocument(passport({ expiry_date }), snap, NOW);
      expect(out.verdict).toBe('review');
      expect(out.reasonCodes).toEqual(['EXPIRY_UNREADABLE']);
    }
    const runner = await RUNNERS.document.run(
      input({ check: { sensitivity }, snapshot: snap, identity: { document: passport({ expiry_date: '??' }) } }),
    );
    expect(runner).toMatchObject({ verdict: 'review', reasonCodes: ['EXPIRY_UNREADABLE'] });
  });

  it('a missing expiry date on a kind that always prints one is EXPIRY_UNREADABLE', () => {
    const out = evaluateDocument(passport({ expiry_date: undefined }), snapshot(), NOW);
    expect(out.verdict).toBe('review');
    expect(out.reasonCodes).toContain('EXPIRY_UNREADABLE');
  });
});

describe('document: INCOMPLETE_DOCUMENT', () => {
  it.each(['number', 'date_of_birth', 'issuing_country'] as const)(
    'a missing printed %s gives INCOMPLETE_DOCUMENT review',
    (field) => {
      const out = evaluateDocument(passport({ [field]: undefined }), snapshot(), NOW);
      expect(out.verdict).toBe('review');
      expect(out.reasonCodes).toEqual(['INCOMPLETE_DOCUMENT']);
    },
  );

  it('never rejects, even when the findings policy says reject', () => {
    const snap = snapshot({ policyTree: { findings: { INCOMPLETE_DOCUMENT: { disposition: 'reject' } } } });
    const out = evaluateDocument(passport({ number: undefined }), snap, NOW);
    expect(out.verdict).toBe('review');
    expect(out.reasonCodes).toEqual(['INCOMPLETE_DOCUMENT']);
  });

  it.each([0, 1])('goes to review at sensitivity %s', (sensitivity) => {
    expect(evaluateDocument(passport({ number: undefined }), snapshot({ sensitivity }), NOW).verdict).toBe('review');
  });

  const waive = { INCOMPLETE_DOCUMENT: { disposition: 'waive' } };
  it.each([
    ['the root', { findings: waive }],
    ['by_country', { by_country: { GBR: { findings: waive } } }],
    ['by_country.by_document_type', { by_country: { GBR: { by_document_type: { passport: { findings: waive } } } } }],
  ])('is waived by a findings disposition waive at %s', (_where, policyTree) => {
    const out = evaluateDocument(passport({ date_of_birth: undefined }), snapshot({ policyTree }), NOW);
    expect(out.verdict).toBe('approve');
    expect(out.reasonCodes).toEqual([]);
  });

  it('a waiver for another country or document type does not apply', () => {
    const other = snapshot({
      policyTree: {
        by_country: { FRA: { findings: waive }, GBR: { by_document_type: { id_card: { findings: waive } } } },
      },
    });
    expect(evaluateDocument(passport({ number: undefined }), other, NOW).verdict).toBe('review');
  });

  it('is not waived when the waiver finding has expired (expires_at in the past)', () => {
    const expired = { INCOMPLETE_DOCUMENT: { disposition: 'waive', expires_at: PAST } };
    for (const policyTree of [
      { findings: expired },
      { by_country: { GBR: { findings: expired } } },
      { by_country: { GBR: { by_document_type: { passport: { findings: expired } } } } },
    ]) {
      const out = evaluateDocument(passport({ number: undefined }), snapshot({ policyTree }), NOW);
      expect(out.verdict).toBe('review');
      expect(out.reasonCodes).toEqual(['INCOMPLETE_DOCUMENT']);
    }
    const live = { INCOMPLETE_DOCUMENT: { disposition: 'waive', expires_at: FUTURE } };
    expect(
      evaluateDocument(passport({ number: undefined }), snapshot({ policyTree: { findings: live } }), NOW).verdict,
    ).toBe('approve');
  });

  it('findingDisposition: the most specific leaf wins; an expired leaf yields to the next one', () => {
    const tree = {
      findings: { X: { disposition: 'review' } },
      by_country: {
        GBR: {
          findings: { X: { disposition: 'reject' } },
          by_document_type: { passport: { findings: { X: { disposition: 'waive', expires_at: PAST } } } },
        },
      },
    };
    expect(findingDisposition(snapshot({ policyTree: tree }), 'X', 'GBR', 'passport')).toBe('reject');
    expect(findingDisposition(snapshot({ policyTree: tree }), 'X', 'FRA', 'passport')).toBe('review');
    expect(findingDisposition(snapshot(), 'X', 'GBR', 'passport')).toBeUndefined();
  });
});

describe('document: ID_INVALID, accepted types, read data', () => {
  it('an MRZ document number disagreeing with the printed one rejects with ID_INVALID', () => {
    const out = evaluateDocument(passport({ mrz: { document_number: 'P7654321' } }), snapshot(), NOW);
    expect(out.verdict).toBe('reject');
    expect(out.reasonCodes).toEqual(['ID_INVALID']);
  });

  it('an MRZ date of birth disagreeing with the printed one rejects with ID_INVALID', () => {
    const out = evaluateDocument(passport({ mrz: { date_of_birth: '1985-04-21' } }), snapshot(), NOW);
    expect(out.verdict).toBe('reject');
    expect(out.reasonCodes).toEqual(['ID_INVALID']);
  });

  it('an MRZ agreeing with the print (ignoring spacing and case) approves', () => {
    const out = evaluateDocument(
      passport({ number: 'p 123-4567', mrz: { document_number: 'P1234567', date_of_birth: '1985-04-12' } }),
      snapshot(),
      NOW,
    );
    expect(out.verdict).toBe('approve');
  });

  it('a document type not in accepted_document_types rejects with DOCUMENT_TYPE_NOT_ACCEPTED', () => {
    const out = evaluateDocument(passport(), snapshot({ acceptedDocumentTypes: ['id_card', 'driving_licence'] }), NOW);
    expect(out.verdict).toBe('reject');
    expect(out.reasonCodes).toEqual(['DOCUMENT_TYPE_NOT_ACCEPTED']);
    expect(evaluateDocument(passport(), snapshot({ acceptedDocumentTypes: ['passport'] }), NOW).verdict).toBe(
      'approve',
    );
  });

  it.each(['passport', 'id_card', 'driving_licence', 'residence_permit'])(
    'an unrestricted flow (empty list) accepts a %s',
    (type) => {
      expect(evaluateDocument(passport({ type }), snapshot({ acceptedDocumentTypes: [] }), NOW)).toMatchObject({
        verdict: 'approve',
        reasonCodes: [],
      });
    },
  );

  it('a driving licence without an expiry date is complete', () => {
    expect(
      evaluateDocument(passport({ type: 'driving_licence', expiry_date: undefined }), snapshot(), NOW).verdict,
    ).toBe('approve');
  });

  it('a rejection keeps the review codes found beside it', () => {
    const out = evaluateDocument(passport({ expiry_date: '2020-01-01', number: undefined }), snapshot(), NOW);
    expect(out.verdict).toBe('reject');
    expect(out.reasonCodes).toEqual(expect.arrayContaining(['DOCUMENT_EXPIRED', 'INCOMPLETE_DOCUMENT']));
  });
});

describe('age', () => {
  const rules = {
    ageRules: [
      { fromAge: 0, toAge: 17, action: 'reject' },
      { fromAge: 18, toAge: 20, action: 'review' },
      { fromAge: 21, toAge: 64, action: 'pass' },
    ],
  };
  const ageCheck = (date_of_birth: string | undefined, config: Record<string, unknown> = rules, now = NOW) =>
    ageRunner.run(
      input({ check: { type: 'age', config }, identity: { document: passport({ date_of_birth }) }, now }),
    ) as CheckResult;

  it('ageOn counts whole years on the exact date: the birthday itself adds the year, the day before does not', () => {
    expect(ageOn('2008-06-15', NOW)).toBe(18);
    expect(ageOn('2008-06-16', NOW)).toBe(17);
    expect(ageOn('2008-07-01', NOW)).toBe(17);
    expect(ageOn('2008-05-31', NOW)).toBe(18);
    expect(ageOn('2008-02-29', new Date('2026-02-28T23:59:59Z'))).toBe(17);
    expect(ageOn('2008-02-29', new Date('2026-03-01T00:00:00Z'))).toBe(18);
  });

  it('rule ranges are inclusive at both ends', () => {
    expect(ageCheck('2008-06-16')).toMatchObject({ verdict: 'reject', reasonCodes: ['AGE_RESTRICTED'] }); // 17
    expect(ageCheck('2008-06-15').verdict).toBe('review'); // 18
    expect(ageCheck('2005-06-16').verdict).toBe('review'); // 20
    expect(ageCheck('2005-06-15').verdict).toBe('approve'); // 21
    expect(ageCheck('1961-06-16').verdict).toBe('approve'); // 64
  });

  it('actions reject, review and pass map to reject, review and approve', () => {
    expect(ageCheck('2016-01-01')).toMatchObject({
      status: 'completed',
      verdict: 'reject',
      reasonCodes: ['AGE_RESTRICTED'],
    });
    expect(ageCheck('2007-01-01')).toMatchObject({ verdict: 'review', reasonCodes: ['AGE_REVIEW'] });
    expect(ageCheck('1990-01-01')).toMatchObject({ verdict: 'approve', reasonCodes: [] });
  });

  it('ageRuleFallback applies when no rule matches; its default is pass', () => {
    expect(ageCheck('1950-01-01').verdict).toBe('approve'); // 76: no rule, no fallback
    expect(ageCheck('1950-01-01', { ...rules, ageRuleFallback: 'reject' }).verdict).toBe('reject');
    expect(ageCheck('1950-01-01', { ...rules, ageRuleFallback: 'review' }).verdict).toBe('review');
    expect(ageCheck('1990-01-01', { ageRuleFallback: 'reject' }).verdict).toBe('reject');
    expect(ageCheck('1990-01-01', {}).verdict).toBe('approve');
  });

  it('the birthday boundary: the rule is chosen by the age on the exact date of the check', () => {
    const under18 = { ageRules: [{ fromAge: 0, toAge: 17, action: 'reject' }] };
    expect(ageCheck('2008-06-15', under18, new Date('2026-06-14T23:59:59Z')).verdict).toBe('reject');
    expect(ageCheck('2008-06-15', under18, new Date('2026-06-15T00:00:00Z')).verdict).toBe('approve');
  });

  it('an unreadable or missing date of birth goes to review', () => {
    for (const dob of ['unreadable', '12/04/1985', undefined]) {
      const out = ageCheck(dob);
      expect(out.verdict).toBe('review');
      expect(out.reasonCodes).toEqual(['DATE_OF_BIRTH_UNREADABLE']);
    }
    expect(ageRunner.run(input({ check: { type: 'age', config: rules } }))).toMatchObject({ verdict: 'review' });
  });
});

describe('live runners (no sandbox): never a fake approval', () => {
  it.each(['liveness', 'face_match'])(
    '%s without image analysis is review IMAGE_ANALYSIS_UNAVAILABLE',
    async (type) => {
      const out = await RUNNERS[type].run(input({ check: { type }, identity: { document: passport() } }));
      expect(out).toMatchObject({
        status: 'completed',
        verdict: 'review',
        reasonCodes: ['IMAGE_ANALYSIS_UNAVAILABLE'],
      });
    },
  );

  it('document without read data is review IMAGE_ANALYSIS_UNAVAILABLE', async () => {
    expect(await RUNNERS.document.run(input())).toMatchObject({
      verdict: 'review',
      reasonCodes: ['IMAGE_ANALYSIS_UNAVAILABLE'],
    });
  });

  it('age without read data is review, not approve', async () => {
    expect((await RUNNERS.age.run(input({ check: { type: 'age', config: {} } }))).verdict).toBe('review');
  });

  it('aml screens the read name: a person on no list approves, an unread name is review AML_NAME_UNREADABLE', async () => {
    expect(await RUNNERS.aml.run(input({ check: { type: 'aml' }, identity: { document: passport() } }))).toMatchObject({
      verdict: 'approve',
      reasonCodes: [],
    });
    expect(await RUNNERS.aml.run(input({ check: { type: 'aml' } }))).toMatchObject({
      verdict: 'review',
      reasonCodes: ['AML_NAME_UNREADABLE'],
    });
  });

  it('a live session of liveness, face_match, document (unread) and aml rolls up to manual_review', async () => {
    const checks = await Promise.all(
      ['document', 'liveness', 'face_match', 'aml'].map(async (type) => {
        const r = await RUNNERS[type].run(input({ check: { type } }));
        return check({ type, status: r.status, verdict: r.verdict, reasonCodes: r.reasonCodes, score: r.score });
      }),
    );
    expect(rollUp(checks).status).toBe('manual_review');
  });
});

describe('sandbox forcing', () => {
  it('forcedCheckIndex: liveness carries a rejection, face_match a review, else the first required check', () => {
    const types = ['document', 'liveness', 'face_match'];
    expect(forcedCheckIndex(types, [true, true, true], 'rejected')).toBe(1);
    expect(forcedCheckIndex(types, [true, true, true], 'review')).toBe(2);
    expect(forcedCheckIndex(['document', 'liveness'], [true, true], 'review')).toBe(1);
    expect(forcedCheckIndex(['aml', 'document'], [false, true], 'rejected')).toBe(1);
  });

  it('forcedCheckIndex: an optional image check never carries the verdict while a required check exists', () => {
    expect(forcedCheckIndex(['document', 'liveness'], [true, false], 'rejected')).toBe(0);
    expect(forcedCheckIndex(['document', 'liveness', 'face_match'], [true, false, true], 'rejected')).toBe(2);
    expect(forcedCheckIndex(['aml', 'liveness'], [false, false], 'review')).toBe(1);
  });

  it('sandbox image analysis approves every capture; live says it is unavailable', () => {
    expect(sandboxImageResult()).toMatchObject({ verdict: 'approve', providerTier: 'sandbox' });
  });

  it('applySandboxOutcome: rejected rejects the carrying check of any type, with the given or a default code', () => {
    const approve = {
      status: 'completed' as const,
      verdict: 'approve' as const,
      score: 0.95,
      reasonCodes: [],
      providerTier: 'standard',
    };
    expect(applySandboxOutcome('liveness', approve, { outcome: 'rejected' })).toMatchObject({
      verdict: 'reject',
      reasonCodes: ['LIVENESS_FAILED'],
      providerTier: 'sandbox',
    });
    expect(applySandboxOutcome('document', approve, { outcome: 'rejected' })).toMatchObject({
      verdict: 'reject',
      reasonCodes: ['SANDBOX_REJECTED'],
    });
    expect(
      applySandboxOutcome('age', approve, { outcome: 'rejected', reason_codes: ['IMAGE_QUALITY'] }).reasonCodes,
    ).toEqual(['IMAGE_QUALITY']);
    expect(applySandboxOutcome('face_match', approve, { outcome: 'review' })).toMatchObject({
      verdict: 'review',
      reasonCodes: ['SELFIE_MISMATCH'],
    });
    expect(applySandboxOutcome('aml', approve, { outcome: 'review' })).toMatchObject({
      verdict: 'review',
      reasonCodes: ['SANDBOX_REVIEW'],
    });
  });

  it("applySandboxOutcome: approved leaves the result alone; review never softens the check's own rejection", () => {
    const expired = {
      status: 'completed' as const,
      verdict: 'reject' as const,
      score: 0.1,
      reasonCodes: ['DOCUMENT_EXPIRED'],
      providerTier: 'standard',
    };
    expect(applySandboxOutcome('document', expired, { outcome: 'approved' })).toBe(expired);
    expect(applySandboxOutcome('document', expired, { outcome: 'review' })).toBe(expired);
    expect(applySandboxOutcome('document', expired, { outcome: 'rejected' }).reasonCodes).toEqual([
      'SANDBOX_REJECTED',
      'DOCUMENT_EXPIRED',
    ]);
  });
});
