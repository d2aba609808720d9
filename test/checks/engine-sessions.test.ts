// The checks engine end to end: POST /v1/verifications with inline checks and a sandbox document,
// the outcome read back with GET /v1/verifications/{id}, and what was stored.
import { createHash, randomUUID } from 'node:crypto';
import { withTestServer } from '../support/account.js';
import type { TestServer } from '../support/test-server.js';
import { waitFor } from '../support/wait.js';

let server: TestServer;
let sandbox: string;

withTestServer(async (s) => {
  server = s;
  sandbox = (await server.bootstrap()).keys.sandbox.secret_key;
});

const unique = () => randomUUID().replace(/-/g, '').slice(0, 10).toUpperCase();
const isoDate = (d: Date) => d.toISOString().slice(0, 10);
const yearsAgo = (years: number) => {
  const d = new Date();
  d.setUTCFullYear(d.getUTCFullYear() - years);
  return isoDate(d);
};
const inFiveYears = () => yearsAgo(-5);

/** A complete, valid, unexpired passport with a fresh number (so no session matches another). */
const passport = (extra: Record<string, unknown> = {}) => ({
  type: 'passport',
  number: `P${unique()}`,
  issuing_country: 'GBR',
  date_of_birth: '1985-04-12',
  expiry_date: inFiveYears(),
  first_name: 'Jane',
  last_name: 'Doe',
  ...extra,
});

async function run(body: Record<string, unknown>) {
  const created = await server.request('/v1/verifications', { token: sandbox, body });
  expect(created.status).toBe(201);
  return waitFor(
    async () => {
      const res = await server.request(`/v1/verifications/${created.body.id}`, { token: sandbox });
      return ['approved', 'rejected', 'manual_review', 'expired'].includes(res.body.status) ? res.body : undefined;
    },
    30_000,
    `${created.body.id} to settle`,
  );
}

const checkOf = (v: any, type: string) => v.checks.find((c: { type: string }) => c.type === type);
const eventsOf = (id: string) =>
  server.sql<{ type: string; payload: any }>(
    "select type, payload from events where verification_id = $1 order by (payload->'verification'->>'sequence')::int",
    [id],
  );

async function createFlow(body: Record<string, unknown>): Promise<string> {
  const res = await server.request('/v1/flows', { token: sandbox, body: { name: `engine ${unique()}`, ...body } });
  expect(res.status).toBe(201);
  return res.body.id;
}

describe('document rules run on the simulated document', () => {
  it('an expired sandbox document with outcome approved is rejected with DOCUMENT_EXPIRED (retryable)', async () => {
    const v = await run({
      checks: [{ type: 'document' }, { type: 'liveness' }],
      sandbox: { outcome: 'approved', document: passport({ expiry_date: yearsAgo(1) }) },
    });
    expect(v).toMatchObject({ status: 'rejected', verdict: 'reject', change_reason: 'engine' });
    expect(v.reason_codes).toEqual(['DOCUMENT_EXPIRED']);
    expect(checkOf(v, 'document')).toMatchObject({
      status: 'completed',
      verdict: 'reject',
      reason_codes: ['DOCUMENT_EXPIRED'],
    });
    expect(checkOf(v, 'liveness')).toMatchObject({ status: 'completed', verdict: 'approve' });
    const completed = (await eventsOf(v.id)).find((e) => e.type === 'verification.completed')!;
    expect(completed.payload.verification).toMatchObject({
      status: 'rejected',
      decline_type: 'retryable',
      reason_codes: ['DOCUMENT_EXPIRED'],
    });
  });

  it('an unreadable expiry date goes to manual_review with EXPIRY_UNREADABLE', async () => {
    const v = await run({
      checks: [{ type: 'document' }],
      sandbox: { outcome: 'approved', document: passport({ expiry_date: '31/12/2031' }) },
    });
    expect(v).toMatchObject({ status: 'manual_review', verdict: 'review', reason_codes: ['EXPIRY_UNREADABLE'] });
  });

  it('a document missing its printed number goes to manual_review with INCOMPLETE_DOCUMENT', async () => {
    const document = passport();
    delete (document as Record<string, unknown>).number;
    const v = await run({ checks: [{ type: 'document' }], sandbox: { outcome: 'approved', document } });
    expect(v).toMatchObject({ status: 'manual_review', reason_codes: ['INCOMPLETE_DOCUMENT'] });
  });

  it('an MRZ disagreeing with the printed number is rejected with ID_INVALID, decline_type final', async () => {
    const v = await run({
      checks: [{ type: 'document' }],
      sandbox: { outcome: 'approved', document: passport({ mrz: { document_number: 'X0000000' } }) },
    });
    expect(v).toMatchObject({ status: 'rejected', reason_codes: ['ID_INVALID'] });
    const completed = (await eventsOf(v.id)).find((e) => e.type === 'verification.completed')!;
    expect(completed.payload.verification.decline_type).toBe('final');
  });

  it('a flow accepting only id cards rejects a passport with DOCUMENT_TYPE_NOT_ACCEPTED', async () => {
    const flow = await createFlow({ steps: [{ type: 'document' }], accepted_document_types: ['id_card'] });
    const v = await run({ flow, sandbox: { outcome: 'approved', document: passport() } });
    expect(v).toMatchObject({ status: 'rejected', reason_codes: ['DOCUMENT_TYPE_NOT_ACCEPTED'] });
  });

  it("the flow's expiry_policy rule (review for GBR passports) sends an expired passport to manual_review", async () => {
    const flow = await createFlow({
      steps: [{ type: 'document' }],
      expiry_policy: {
        default: 'reject',
        rules: [{ country: 'GBR', document_type: 'passport', disposition: 'review' }],
      },
    });
    const v = await run({ flow, sandbox: { outcome: 'approved', document: passport({ expiry_date: yearsAgo(1) }) } });
    expect(v).toMatchObject({ status: 'manual_review', reason_codes: ['DOCUMENT_EXPIRED'] });
  });

  it("the flow's policy_tree waiver of INCOMPLETE_DOCUMENT for GBR passports approves an incomplete one", async () => {
    const flow = await createFlow({
      steps: [{ type: 'document' }],
      policy_tree: {
        by_country: {
          GBR: { by_document_type: { passport: { findings: { INCOMPLETE_DOCUMENT: { disposition: 'waive' } } } } },
        },
      },
    });
    const v = await run({ flow, sandbox: { outcome: 'approved', document: passport({ date_of_birth: undefined }) } });
    expect(v).toMatchObject({ status: 'approved', reason_codes: [] });
  });
});

describe('age rules run on the simulated date of birth', () => {
  const under18 = { ageRules: [{ fromAge: 0, toAge: 17, action: 'reject' }], ageRuleFallback: 'pass' };

  it('an age step rejecting under 18 rejects a 16-year-old', async () => {
    const v = await run({
      checks: [{ type: 'document' }, { type: 'age', config: under18 }],
      sandbox: { outcome: 'approved', document: passport({ date_of_birth: yearsAgo(16) }) },
    });
    expect(v).toMatchObject({ status: 'rejected', verdict: 'reject' });
    expect(checkOf(v, 'age')).toMatchObject({ verdict: 'reject', reason_codes: ['AGE_RESTRICTED'] });
    expect(checkOf(v, 'document').verdict).toBe('approve');
  });

  it('the same step approves someone 18 today (the birthday counts)', async () => {
    const v = await run({
      checks: [{ type: 'age', config: under18 }],
      sandbox: { outcome: 'approved', document: passport({ date_of_birth: yearsAgo(18) }) },
    });
    expect(v.status).toBe('approved');
  });

  it('an optional (required: false) age check that rejects leaves the verification approved', async () => {
    const v = await run({
      checks: [
        { type: 'document' },
        { type: 'age', required: false, config: under18 },
        { type: 'aml', required: false },
      ],
      sandbox: { outcome: 'approved', document: passport({ date_of_birth: yearsAgo(16) }) },
    });
    expect(checkOf(v, 'age')).toMatchObject({ required: false, status: 'completed', verdict: 'reject' });
    expect(v).toMatchObject({ status: 'approved', verdict: 'approve' });
  });
});

describe('the sandbox reaches its forced outcome whatever the flow', () => {
  it('a document-only flow forced to rejected is rejected, the document check carrying SANDBOX_REJECTED', async () => {
    const v = await run({ checks: [{ type: 'document' }], sandbox: { outcome: 'rejected', document: passport() } });
    expect(v).toMatchObject({ status: 'rejected', verdict: 'reject' });
    expect(checkOf(v, 'document')).toMatchObject({ verdict: 'reject', reason_codes: ['SANDBOX_REJECTED'] });
  });

  it('a document + age flow forced to review goes to manual_review with the given reason code', async () => {
    const v = await run({
      checks: [{ type: 'document' }, { type: 'age' }],
      sandbox: { outcome: 'review', reason_codes: ['IMAGE_QUALITY'], document: passport() },
    });
    expect(v).toMatchObject({ status: 'manual_review', verdict: 'review', reason_codes: ['IMAGE_QUALITY'] });
  });

  it('an aml-only flow forced to review goes to manual_review', async () => {
    const v = await run({ checks: [{ type: 'aml' }], sandbox: { outcome: 'review', document: passport() } });
    expect(v).toMatchObject({ status: 'manual_review', reason_codes: ['SANDBOX_REVIEW'] });
  });

  it('a forced rejection never lands on an optional liveness check: the required document carries it and the session is rejected', async () => {
    const v = await run({
      checks: [{ type: 'document' }, { type: 'liveness', required: false }],
      sandbox: { outcome: 'rejected', document: passport() },
    });
    expect(v).toMatchObject({ status: 'rejected', verdict: 'reject' });
    expect(checkOf(v, 'liveness')).toMatchObject({ verdict: 'approve' });
  });
});

describe('never a fake approval', () => {
  it('a required email step with no address is skipped and the session goes to manual_review, not approved', async () => {
    const v = await run({
      checks: [{ type: 'document' }, { type: 'email' }],
      sandbox: { outcome: 'approved', document: passport() },
    });
    expect(checkOf(v, 'email')).toMatchObject({ status: 'skipped', reason_codes: ['EMAIL_NOT_PROVIDED'] });
    expect(v).toMatchObject({ status: 'manual_review', verdict: 'review' });
  });

  it('with the address sent at create the same flow approves', async () => {
    const v = await run({
      checks: [{ type: 'document' }, { type: 'email' }],
      applicant: { email: `e-${unique()}@example.com` },
      sandbox: { outcome: 'approved', document: passport() },
    });
    expect(v).toMatchObject({ status: 'approved', verdict: 'approve' });
  });
});

describe('what a run stores', () => {
  it('each check is saved completed, with one check.completed event and one non-billable usage record per check', async () => {
    const v = await run({
      checks: [{ type: 'document' }, { type: 'liveness' }, { type: 'face_match' }, { type: 'aml' }],
      sandbox: { outcome: 'approved', document: passport() },
    });
    expect(v.status).toBe('approved');
    const rows = await server.sql(
      'select id, type, status, verdict, score from checks where verification_id = $1 order by position',
      [v.id],
    );
    expect(rows.map((r) => r.type)).toEqual(['document', 'liveness', 'face_match', 'aml']);
    for (const row of rows)
      expect(row).toMatchObject({ status: 'completed', verdict: 'approve', score: expect.any(Number) });

    const events = await eventsOf(v.id);
    const checkEvents = events.filter((e) => e.type === 'check.completed');
    expect(checkEvents.map((e) => e.payload.check.id).sort()).toEqual(rows.map((r) => r.id).sort());
    for (const e of checkEvents) expect(e.payload.check).toMatchObject({ status: 'completed', verdict: 'approve' });
    const types = events.map((e) => e.type);
    expect(types.lastIndexOf('check.completed')).toBeLessThan(types.indexOf('verification.completed'));

    const usage = await server.sql('select check_type, billable, mode from usage_records where verification_id = $1', [
      v.id,
    ]);
    expect(usage.map((u) => u.check_type).sort()).toEqual(['aml', 'document', 'face_match', 'liveness']);
    expect(usage.every((u) => u.billable === false && u.mode === 'sandbox')).toBe(true);
  });

  it('the identity column is ciphertext without the plaintext, and email_fingerprint is a keyed hash', async () => {
    const email = `Jane.Doe.${unique()}@Example.com`;
    const document = passport({ first_name: 'Wilhelmina', last_name: 'Fairweather' });
    const v = await run({
      applicant: { email, reference_id: `cust-${unique()}` },
      checks: [{ type: 'document' }],
      sandbox: { outcome: 'approved', document },
    });
    const [row] = await server.sql('select identity, email_fingerprint from verifications where id = $1', [v.id]);
    expect(typeof row.identity).toBe('string');
    expect(row.identity.length).toBeGreaterThan(20);
    const stored = row.identity.toLowerCase();
    for (const plain of [
      document.number,
      'Wilhelmina',
      'Fairweather',
      email,
      email.split('@')[0],
      document.date_of_birth,
    ]) {
      expect(stored).not.toContain(String(plain).toLowerCase());
    }
    expect(() => JSON.parse(row.identity)).toThrow();
    expect(row.email_fingerprint).toMatch(/^[0-9a-f]{64}$/);
    const sha = (s: string) => createHash('sha256').update(s).digest('hex');
    expect([sha(email), sha(email.toLowerCase()), sha(email.trim().toLowerCase())]).not.toContain(
      row.email_fingerprint,
    );
  });
});
