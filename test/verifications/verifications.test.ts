import type { TestServer } from '../support/test-server.js';
import { withTestAccount } from '../support/account.js';
import { waitFor } from '../support/wait.js';

let server: TestServer;
let sandbox: string;
let live: string;

withTestAccount((t) => ({ server, sandbox, live } = t));

const create = (token: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  server.request('/v1/verifications', { token, body, headers });
const get = (token: string, id: string, query = '') => server.request(`/v1/verifications/${id}${query}`, { token });
const settled = (token: string, id: string) =>
  waitFor(
    async () => {
      const res = await get(token, id);
      return ['approved', 'rejected', 'manual_review', 'expired'].includes(res.body.status) ? res.body : undefined;
    },
    15_000,
    `${id} to settle`,
  );
const eventsOf = (id: string) =>
  server.sql<{ type: string; payload: any }>(
    "select type, payload from events where verification_id = $1 order by (payload->'verification'->>'sequence')::int",
    [id],
  );

describe('POST /v1/verifications', () => {
  it('answers 201 with client_token only on create, the hosted_verify_url under PUBLIC_URL and expires_at 24 hours ahead', async () => {
    const res = await create(sandbox, { sandbox: { outcome: 'pending' } });
    expect(res.status).toBe(201);
    expect(res.headers.get('idempotency-replayed')).toBe('false');
    expect(res.body).toMatchObject({
      object: 'verification',
      status: 'pending',
      mode: 'sandbox',
      verdict: null,
      change_reason: null,
      identity_version: 0,
      locale: 'en',
      metadata: {},
    });
    expect(res.body.id).toMatch(/^vs_[0-9A-Za-z]{24}$/);
    expect(res.body.client_token).toMatch(/^vct_/);
    expect(res.body.hosted_verify_url).toBe(
      `${server.config.publicUrl}/verify/${res.body.id}#token=${res.body.client_token}`,
    );
    const hours = (Date.parse(res.body.expires_at) - Date.parse(res.body.created_at)) / 3600_000;
    expect(hours).toBeCloseTo(24, 3);
    const read = await get(sandbox, res.body.id);
    expect(read.body.client_token).toBeNull();
    const [row] = await server.sql('select client_token_hash from verifications where id = $1', [res.body.id]);
    expect(row.client_token_hash).toHaveLength(64);
    expect(row.client_token_hash).not.toBe(res.body.client_token);
  });

  it('with neither flow nor checks runs the built-in preset (document, liveness, face_match) and names the flow that ran', async () => {
    const res = await create(sandbox, { sandbox: { outcome: 'pending' } });
    expect(res.body.flow).toMatch(/^flw_/);
    expect(res.body.checks.map((c: { type: string }) => c.type)).toEqual(['document', 'liveness', 'face_match']);
    expect(res.body.checks.every((c: { status: string }) => c.status === 'pending')).toBe(true);
    const again = await create(sandbox, {});
    expect(again.body.flow).toBe(res.body.flow);
  });

  it('sending both flow and checks is invalid; an unknown flow is 400 FLOW_NOT_FOUND', async () => {
    const both = await create(sandbox, { flow: 'flw_x', checks: [{ type: 'liveness' }] });
    expect(both.status).toBe(400);
    expect(both.body.error.param).toBe('checks');
    const unknown = await create(sandbox, { flow: 'flw_doesnotexist000000000000' });
    expect(unknown.body.error).toMatchObject({ type: 'invalid_request_error', code: 'FLOW_NOT_FOUND' });
  });

  it('validates email (at most 254), locale (BCP 47), metadata (50 keys, 40-char keys, 500-char string values) and unknown fields', async () => {
    const long = await create(sandbox, { applicant: { email: `${'a'.repeat(250)}@b.co` } });
    expect(long.body.error).toMatchObject({ code: 'PARAMETER_INVALID', param: 'applicant.email' });
    const locale = await create(sandbox, { locale: 'xx-notreal-123456789' });
    expect(locale.body.error).toMatchObject({ code: 'PARAMETER_INVALID', param: 'locale' });
    expect((await create(sandbox, { locale: 'de-CH', sandbox: { outcome: 'pending' } })).body.locale).toBe('de-CH');
    const nested = await create(sandbox, { metadata: { order: { id: 1 } } });
    expect(nested.body.error).toMatchObject({ code: 'PARAMETER_INVALID', param: 'metadata.order' });
    const tooMany = await create(sandbox, {
      metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])),
    });
    expect(tooMany.body.error).toMatchObject({ code: 'PARAMETER_INVALID', param: 'metadata' });
    const unknown = await create(sandbox, { colour: 'red' });
    expect(unknown.body.error).toMatchObject({ code: 'PARAMETER_UNKNOWN', param: 'colour' });
    const badCheck = await create(sandbox, { checks: [{ type: 'retina' }] });
    expect(badCheck.body.error).toMatchObject({ code: 'PARAMETER_INVALID', param: 'checks[0].type' });
    const rows = await server.sql(`select count(*)::int as n from verifications where metadata ? 'k50'`);
    expect(rows[0].n).toBe(0);
  });

  it("a new account's first creates, more at once than the database pool holds, all succeed under one built-in preset", async () => {
    const fresh = await server.bootstrap();
    const token = fresh.keys.sandbox.secret_key;
    const responses = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        create(token, { applicant: { email: `first.${i}@example.org` } }, { 'idempotency-key': `first-${i}` }),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(16).fill(201));
    expect(new Set(responses.map((r) => r.body.flow)).size).toBe(1);
    const presets = await server.sql('select count(*)::int as n from flows where merchant_id = $1 and is_preset', [
      fresh.merchant.id,
    ]);
    expect(presets[0].n).toBe(1);
  });

  it('writes the session, its checks, its two outbox events and the stored idempotent answer together', async () => {
    const res = await create(
      sandbox,
      { applicant: { email: 'together@example.org' }, metadata: { k: 'v' } },
      { 'idempotency-key': 'together-1' },
    );
    expect(res.status).toBe(201);
    const [row] = await server.sql(
      'select status, sequence, email_fingerprint, identity, metadata from verifications where id = $1',
      [res.body.id],
    );
    expect(row).toMatchObject({ status: 'pending', sequence: 2, metadata: { k: 'v' } });
    expect(row.email_fingerprint).toHaveLength(64);
    expect(row.identity).not.toContain('together@example.org');
    const checks = await server.sql(
      'select id, type, status from checks where verification_id = $1 order by position',
      [res.body.id],
    );
    expect(checks.map((c) => c.id)).toEqual(res.body.checks.map((c: { id: string }) => c.id));
    expect((await eventsOf(res.body.id)).map((e) => [e.type, e.payload.verification.sequence])).toEqual([
      ['verification.created', 1],
      ['verification.pending', 2],
    ]);
    const [stored] = await server.sql("select status, response_status from idempotency_keys where key = 'together-1'");
    expect(stored).toEqual({ status: 'completed', response_status: 201 });
  });

  it('a live key sending sandbox gets 400 PARAMETER_UNKNOWN', async () => {
    const res = await create(live, { sandbox: { outcome: 'approved' } });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'PARAMETER_UNKNOWN', param: 'sandbox' });
  });
});

describe('sandbox simulation reaches the forced outcome', () => {
  it.each([
    ['approved', 'approved', 'approve'],
    ['rejected', 'rejected', 'reject'],
    ['review', 'manual_review', 'review'],
  ])(
    'outcome %s ends %s with verdict %s, change_reason engine, and the outcome events',
    async (outcome, status, verdict) => {
      const res = await create(sandbox, { sandbox: { outcome } });
      const done = await settled(sandbox, res.body.id);
      expect(done).toMatchObject({ status, verdict, change_reason: 'engine' });
      expect(done.checks.every((c: { status: string }) => c.status === 'completed')).toBe(true);
      const types = (await eventsOf(res.body.id)).map((e) => e.type);
      const verdictEvent = {
        approved: 'verification.approved',
        rejected: 'verification.rejected',
        manual_review: 'verification.review',
      }[status];
      expect(types).toEqual([
        'verification.created',
        'verification.pending',
        'verification.awaiting_service',
        'check.completed',
        'check.completed',
        'check.completed',
        'verification.completed',
        verdictEvent,
        // A case waiting on a reviewer also says so (action.pending).
        ...(status === 'manual_review' ? ['action.pending'] : []),
      ]);
    },
  );

  it('a manual_review outcome creates a queued Manual review record', async () => {
    const res = await create(sandbox, { sandbox: { outcome: 'review', reason_codes: ['SELFIE_MISMATCH'] } });
    const done = await settled(sandbox, res.body.id);
    expect(done.reason_codes).toContain('SELFIE_MISMATCH');
    const reviews = await server.sql('select status, reviewed_at from manual_reviews where verification_id = $1', [
      res.body.id,
    ]);
    expect(reviews).toEqual([{ status: 'queued', reviewed_at: null }]);
  });

  it('pending stays pending', async () => {
    const res = await create(sandbox, { sandbox: { outcome: 'pending' } });
    await new Promise((r) => setTimeout(r, 800));
    expect((await get(sandbox, res.body.id)).body.status).toBe('pending');
  });

  it('event payloads carry ids, outcome facts and a growing sequence, never applicant identity', async () => {
    const res = await create(sandbox, {
      applicant: { email: 'Jane.Doe@Example.com', reference_id: 'cust-42' },
      sandbox: {
        outcome: 'approved',
        document: {
          number: 'P1234567',
          first_name: 'Jane',
          last_name: 'Doe',
          date_of_birth: '1985-04-12',
          issuing_country: 'GBR',
          type: 'passport',
          expiry_date: '2031-01-01',
        },
      },
    });
    await settled(sandbox, res.body.id);
    const events = await eventsOf(res.body.id);
    const body = JSON.stringify(events);
    for (const secret of ['Jane', 'jane.doe', 'P1234567', '1985-04-12', 'cust-42'])
      expect(body.toLowerCase()).not.toContain(secret.toLowerCase());
    const sequences = events.map((e) => e.payload.verification.sequence);
    expect(sequences).toEqual([...sequences].sort((a, b) => a - b));
    expect(new Set(sequences).size).toBe(sequences.length);
    const completed = events.find((e) => e.type === 'verification.completed')!;
    expect(completed.payload.verification).toEqual({
      id: res.body.id,
      status: 'approved',
      verdict: 'approve',
      decline_type: null,
      reason_codes: [],
      changeReason: 'engine',
      flow: res.body.flow,
      sequence: expect.any(Number),
    });
  });
});
