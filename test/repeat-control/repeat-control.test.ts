import type { BootstrapResult } from '../../src/services/access/index.js';
import { withTestServer } from '../support/account.js';
import type { TestServer } from '../support/test-server.js';
import { waitFor } from '../support/wait.js';

let server: TestServer;
withTestServer((s) => (server = s));

const create = (token: string, body: Record<string, unknown>) => server.request('/v1/verifications', { token, body });
const status = async (token: string, id: string) => (await server.request(`/v1/verifications/${id}`, { token })).body;
const settled = (token: string, id: string) =>
  waitFor(
    async () => {
      const v = await status(token, id);
      return ['approved', 'rejected', 'manual_review', 'expired'].includes(v.status) ? v : undefined;
    },
    15_000,
    `${id} to settle`,
  );
const eventTypes = async (id: string) =>
  (
    await server.sql(
      `select type, payload from events where verification_id = $1 order by (payload->'verification'->>'sequence')::int`,
      [id],
    )
  ).map((e) => e.type);
const doc = (number: string, extra: Record<string, unknown> = {}) => ({
  number,
  type: 'passport',
  issuing_country: 'GBR',
  date_of_birth: '1990-01-01',
  expiry_date: '2032-01-01',
  first_name: 'A',
  last_name: 'B',
  ...extra,
});
const patchSettings = (account: BootstrapResult, body: Record<string, unknown>) =>
  server.request('/v1/console/settings', { token: account.member.session_token, method: 'PATCH', body });

let n = 0;
const unique = (label: string) => `${label}-${Date.now()}-${n++}@example.com`;

async function approvedPerson(token: string, body: Record<string, unknown>) {
  const res = await create(token, { ...body, sandbox: { outcome: 'approved', ...(body.sandbox as object) } });
  expect(res.status).toBe(201);
  const v = await settled(token, res.body.id);
  expect(v.status).toBe('approved');
  return v;
}

describe('repeat-verification control', () => {
  it('R3: at create, an approval matched on reference_id answers 409 ALREADY_VERIFIED, creates no session and sends verification.already_verified', async () => {
    const account = await server.bootstrap();
    const key = account.keys.sandbox.secret_key;
    const first = await approvedPerson(key, {
      applicant: { reference_id: 'cust-r3' },
      sandbox: { document: doc('R3-DOC-1') },
    });
    const before = (
      await server.sql('select count(*)::int as n from verifications where merchant_id = $1', [account.merchant.id])
    )[0].n;
    const repeat = await create(key, { applicant: { reference_id: 'cust-r3' }, sandbox: { outcome: 'approved' } });
    expect(repeat.status).toBe(409);
    expect(repeat.body.error).toMatchObject({ type: 'invalid_request_error', code: 'ALREADY_VERIFIED' });
    expect(repeat.body.error.detail).toEqual({
      verification_id: first.id,
      status: 'approved',
      verdict: 'approve',
      matched_on: 'reference',
      approval_valid_until: '2032-01-01T23:59:59.000Z',
    });
    const after = (
      await server.sql('select count(*)::int as n from verifications where merchant_id = $1', [account.merchant.id])
    )[0].n;
    expect(after).toBe(before);
    expect(await eventTypes(first.id)).toContain('verification.already_verified');
  });

  it('R2: email matches ignoring case and whitespace, after reference; matching never crosses accounts or environments', async () => {
    const account = await server.bootstrap();
    const key = account.keys.sandbox.secret_key;
    const email = unique('r2');
    await approvedPerson(key, { applicant: { email } });
    const repeat = await create(key, { applicant: { email: `  ${email.toUpperCase()} ` } });
    expect(repeat.body.error).toMatchObject({ code: 'ALREADY_VERIFIED', detail: { matched_on: 'email' } });
    const other = await server.bootstrap();
    expect((await create(other.keys.sandbox.secret_key, { applicant: { email } })).status).toBe(201);
    expect((await create(account.keys.live.secret_key, { applicant: { email } })).status).toBe(201);
  });

  it('R1: by default an approval refuses repeats on the same flow only; widened to any, it refuses on every flow', async () => {
    const account = await server.bootstrap();
    const key = account.keys.sandbox.secret_key;
    const email = unique('r1');
    await approvedPerson(key, { applicant: { email } });
    const flow = await server.request('/v1/flows', {
      token: key,
      body: { name: 'Other flow', steps: [{ type: 'liveness' }] },
    });
    expect(flow.status).toBe(201);
    expect(
      (await create(key, { flow: flow.body.id, applicant: { email }, sandbox: { outcome: 'pending' } })).status,
    ).toBe(201);
    expect((await patchSettings(account, { repeat_verification: { scope: 'any' } })).status).toBe(200);
    const refused = await create(key, { flow: flow.body.id, applicant: { email } });
    expect(refused.body.error.code).toBe('ALREADY_VERIFIED');
  });

  it('R5: a person waiting on manual review answers 409 VERIFICATION_IN_REVIEW with verification_id and matched_on', async () => {
    const account = await server.bootstrap();
    const key = account.keys.sandbox.secret_key;
    const email = unique('r5');
    const res = await create(key, { applicant: { email }, sandbox: { outcome: 'review' } });
    expect((await settled(key, res.body.id)).status).toBe('manual_review');
    const repeat = await create(key, { applicant: { email } });
    expect(repeat.status).toBe(409);
    expect(repeat.body.error).toMatchObject({
      code: 'VERIFICATION_IN_REVIEW',
      detail: { verification_id: res.body.id, matched_on: 'email' },
    });
  });

  it('R6: a retryable rejection never refuses the retry', async () => {
    const account = await server.bootstrap();
    const key = account.keys.sandbox.secret_key;
    const email = unique('r6');
    const res = await create(key, {
      applicant: { email },
      sandbox: { outcome: 'rejected', reason_codes: ['LIVENESS_FAILED'] },
    });
    expect(await settled(key, res.body.id)).toMatchObject({ status: 'rejected' });
    const [row] = await server.sql('select decline_type from verifications where id = $1', [res.body.id]);
    expect(row.decline_type).toBe('retryable');
    expect((await create(key, { applicant: { email } })).status).toBe(201);
  });

  it('R4: a document matching an approval closes the session expired + ALREADY_VERIFIED; a different document with the same national id matches too', async () => {
    const account = await server.bootstrap();
    const key = account.keys.sandbox.secret_key;
    await approvedPerson(key, { sandbox: { document: doc('R4DOC1', { national_id: 'NI-R4' }) } });
    const same = await create(key, { sandbox: { outcome: 'approved', document: doc('R4DOC1') } });
    const closed = await settled(key, same.body.id);
    expect(closed).toMatchObject({ status: 'expired', verdict: null });
    expect(closed.reason_codes).toContain('ALREADY_VERIFIED');
    const types = await eventTypes(same.body.id);
    expect(types).toContain('verification.already_verified');
    expect(types).not.toContain('verification.approved');
    const otherDocument = await create(key, {
      sandbox: { outcome: 'approved', document: doc('R4DOC2', { national_id: 'NI-R4' }) },
    });
    const closed2 = await settled(key, otherDocument.body.id);
    expect(closed2.status).toBe('expired');
    expect(closed2.reason_codes).toContain('ALREADY_VERIFIED');
  });

  it('R7: a document matching a person waiting on review closes the session expired + REVIEW_IN_PROGRESS, without verification.already_verified', async () => {
    const account = await server.bootstrap();
    const key = account.keys.sandbox.secret_key;
    const waiting = await create(key, { sandbox: { outcome: 'review', document: doc('R7DOC') } });
    expect((await settled(key, waiting.body.id)).status).toBe('manual_review');
    const repeat = await create(key, { sandbox: { outcome: 'approved', document: doc('R7DOC') } });
    const closed = await settled(key, repeat.body.id);
    expect(closed.status).toBe('expired');
    expect(closed.reason_codes).toContain('REVIEW_IN_PROGRESS');
    const types = await eventTypes(repeat.body.id);
    expect(types).toEqual(expect.arrayContaining(['verification.completed', 'verification.expired']));
    expect(types).not.toContain('verification.already_verified');
  });

  it('R8: when one verification of a person is approved, their other open cases expire with ALREADY_VERIFIED and no decision; events already_verified (gate superseded), completed, expired', async () => {
    const account = await server.bootstrap();
    const key = account.keys.sandbox.secret_key;
    const email = unique('r8');
    const open = await create(key, { applicant: { email }, sandbox: { outcome: 'pending' } });
    await approvedPerson(key, { applicant: { email } });
    const closed = await waitFor(async () => {
      const v = await status(key, open.body.id);
      return v.status === 'expired' ? v : undefined;
    });
    expect(closed).toMatchObject({ verdict: null, change_reason: 'auto_policy' });
    expect(closed.reason_codes).toContain('ALREADY_VERIFIED');
    const events = await server.sql(
      `select type, payload from events where verification_id = $1 order by (payload->'verification'->>'sequence')::int`,
      [open.body.id],
    );
    const tail = events.slice(-3);
    expect(tail.map((e) => e.type)).toEqual([
      'verification.already_verified',
      'verification.expired',
      'verification.completed',
    ]);
    expect(tail[0].payload.gate).toBe('superseded');
  });

  it('R8 under concurrency: simultaneous approvals of one person leave exactly one approved and the rest expired', async () => {
    const account = await server.bootstrap();
    const key = account.keys.sandbox.secret_key;
    for (let round = 0; round < 2; round++) {
      const email = unique(`race${round}`);
      const created = await Promise.all(
        Array.from({ length: 5 }, () => create(key, { applicant: { email }, sandbox: { outcome: 'approved' } })),
      );
      const ids = created.filter((r) => r.status === 201).map((r) => r.body.id);
      const finals = await Promise.all(ids.map((id: string) => settled(key, id)));
      expect(finals.filter((v) => v.status === 'approved')).toHaveLength(1);
      expect(finals.filter((v) => v.status === 'expired')).toHaveLength(ids.length - 1);
    }
  });

  it('R9: an open reverification grant lets one repeat through and is spent by it; the original approval is unchanged', async () => {
    const account = await server.bootstrap();
    const key = account.keys.sandbox.secret_key;
    const email = unique('r9');
    const original = await approvedPerson(key, { applicant: { email } });
    const grant = await server.request(`/v1/verifications/${original.id}/reverification`, {
      token: key,
      body: { reason: 'document_expiring' },
    });
    expect(grant.status).toBe(200);
    const through = await create(key, { applicant: { email }, sandbox: { outcome: 'pending' } });
    expect(through.status).toBe(201);
    expect((await create(key, { applicant: { email } })).body.error.code).toBe('ALREADY_VERIFIED');
    const [row] = await server.sql('select spent_by_verification_id from reverification_grants where id = $1', [
      grant.body.id,
    ]);
    expect(row.spent_by_verification_id).toBe(through.body.id);
    expect(await status(key, original.id)).toMatchObject({ status: 'approved', verdict: 'approve' });
    const withdraw = await server.request(`/v1/verifications/${original.id}/reverification`, {
      token: key,
      method: 'DELETE',
    });
    expect(withdraw.status).toBe(409);
    expect(withdraw.body.error.code).toBe('GRANT_ALREADY_SPENT');
  });

  it('R9: a repeat let through at create by a grant is not refused again when the same document is read; it reaches its own verdict', async () => {
    const account = await server.bootstrap();
    const key = account.keys.sandbox.secret_key;
    const email = unique('r9same');
    const original = await approvedPerson(key, { applicant: { email }, sandbox: { document: doc('R9-SAME-1') } });
    expect(
      (
        await server.request(`/v1/verifications/${original.id}/reverification`, {
          token: key,
          body: { reason: 'details_changed' },
        })
      ).status,
    ).toBe(200);
    const repeat = await create(key, {
      applicant: { email },
      sandbox: { outcome: 'approved', document: doc('R9-SAME-1') },
    });
    expect(repeat.status).toBe(201);
    const final = await settled(key, repeat.body.id);
    expect(final).toMatchObject({ status: 'approved', verdict: 'approve' });
    expect(final.reason_codes).not.toContain('ALREADY_VERIFIED');
    expect(await eventTypes(repeat.body.id)).not.toContain('verification.already_verified');
  });

  it('R9: a grant lets through a repeat matched only on the document (no reference or email), spent by it; the next one is refused', async () => {
    const account = await server.bootstrap();
    const key = account.keys.sandbox.secret_key;
    const original = await approvedPerson(key, { sandbox: { document: doc('R9-DOC-ONLY') } });
    const grant = await server.request(`/v1/verifications/${original.id}/reverification`, { token: key, body: {} });
    expect(grant.status).toBe(200);
    const through = await settled(
      key,
      (await create(key, { sandbox: { outcome: 'approved', document: doc('R9-DOC-ONLY') } })).body.id,
    );
    expect(through).toMatchObject({ status: 'approved', verdict: 'approve' });
    const [row] = await server.sql('select spent_by_verification_id from reverification_grants where id = $1', [
      grant.body.id,
    ]);
    expect(row.spent_by_verification_id).toBe(through.id);
    const next = await settled(
      key,
      (await create(key, { sandbox: { outcome: 'approved', document: doc('R9-DOC-ONLY') } })).body.id,
    );
    expect(next).toMatchObject({ status: 'expired' });
    expect(next.reason_codes).toContain('ALREADY_VERIFIED');
  });

  it('R9 with R5: an open grant lifts the approval refusal only; a case of the person waiting on review still refuses with VERIFICATION_IN_REVIEW', async () => {
    const account = await server.bootstrap();
    const key = account.keys.sandbox.secret_key;
    const email = unique('r9r5');
    const original = await approvedPerson(key, { applicant: { email } });
    await patchSettings(account, { repeat_verification: { enabled: false } });
    const waiting = await settled(
      key,
      (await create(key, { applicant: { email }, sandbox: { outcome: 'review' } })).body.id,
    );
    expect(waiting.status).toBe('manual_review');
    await patchSettings(account, { repeat_verification: { enabled: true, scope: 'same_flow' } });
    expect(
      (await server.request(`/v1/verifications/${original.id}/reverification`, { token: key, body: {} })).status,
    ).toBe(200);
    const refused = await create(key, { applicant: { email }, sandbox: { outcome: 'pending' } });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({
      code: 'VERIFICATION_IN_REVIEW',
      detail: { verification_id: waiting.id },
    });
  });

  it('R9: simultaneous grant requests on one approval all answer 200 with the same single grant', async () => {
    const account = await server.bootstrap();
    const key = account.keys.sandbox.secret_key;
    const original = await approvedPerson(key, { applicant: { email: unique('r9race') } });
    const answers = await Promise.all(
      Array.from({ length: 8 }, () =>
        server.request(`/v1/verifications/${original.id}/reverification`, { token: key, body: {} }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
    const [row] = await server.sql('select count(*)::int as n from reverification_grants where verification_id = $1', [
      original.id,
    ]);
    expect(row.n).toBe(1);
  });

  it('R9: an approval stops refusing when its document expired or the re-verification period elapsed', async () => {
    const account = await server.bootstrap();
    const key = account.keys.sandbox.secret_key;
    const expiredEmail = unique('r9doc');
    const v = await approvedPerson(key, { applicant: { email: expiredEmail } });
    await server.sql(`update verifications set document_expires_on = current_date - 1 where id = $1`, [v.id]);
    expect((await create(key, { applicant: { email: expiredEmail }, sandbox: { outcome: 'pending' } })).status).toBe(
      201,
    );
    const periodEmail = unique('r9period');
    const p = await approvedPerson(key, { applicant: { email: periodEmail } });
    expect((await create(key, { applicant: { email: periodEmail } })).status).toBe(409);
    await patchSettings(account, { reverification_period_days: 30 });
    await server.sql(`update verifications set decided_at = now() - interval '31 days' where id = $1`, [p.id]);
    expect((await create(key, { applicant: { email: periodEmail }, sandbox: { outcome: 'pending' } })).status).toBe(
      201,
    );
  });

  it('R10: with the control off every create succeeds and approvals leave other open cases in the queue; the change is immediate', async () => {
    const account = await server.bootstrap();
    const key = account.keys.sandbox.secret_key;
    const email = unique('r10');
    await approvedPerson(key, { applicant: { email } });
    expect(
      (await patchSettings(account, { repeat_verification: { enabled: false } })).body.repeat_verification.enabled,
    ).toBe(false);
    const open = await create(key, { applicant: { email }, sandbox: { outcome: 'pending' } });
    expect(open.status).toBe(201);
    await approvedPerson(key, { applicant: { email } });
    await new Promise((r) => setTimeout(r, 500));
    expect((await status(key, open.body.id)).status).toBe('pending');
  });

  it('a flow repeat_policy replaces the account setting for that flow', async () => {
    const account = await server.bootstrap();
    const key = account.keys.sandbox.secret_key;
    const flow = await server.request('/v1/flows', {
      token: key,
      body: {
        name: 'No repeat control',
        steps: [{ type: 'liveness' }],
        repeat_policy: { enabled: false, scope: 'same_flow' },
      },
    });
    const email = unique('flowpolicy');
    await approvedPerson(key, { flow: flow.body.id, applicant: { email } });
    expect(
      (await create(key, { flow: flow.body.id, applicant: { email }, sandbox: { outcome: 'pending' } })).status,
    ).toBe(201);
  });
});

describe('reverification grants', () => {
  it('409 VERIFICATION_NOT_APPROVED; other needs note; expires_in_days default 7, max 30; a second call returns the same grant', async () => {
    const account = await server.bootstrap();
    const key = account.keys.sandbox.secret_key;
    const pending = await create(key, { sandbox: { outcome: 'pending' } });
    const notApproved = await server.request(`/v1/verifications/${pending.body.id}/reverification`, {
      token: key,
      body: {},
    });
    expect(notApproved.status).toBe(409);
    expect(notApproved.body.error.code).toBe('VERIFICATION_NOT_APPROVED');
    const v = await approvedPerson(key, {});
    const path = `/v1/verifications/${v.id}/reverification`;
    expect((await server.request(path, { token: key, body: { reason: 'other' } })).body.error).toMatchObject({
      code: 'PARAMETER_MISSING',
      param: 'note',
    });
    expect((await server.request(path, { token: key, body: { expires_in_days: 31 } })).body.error).toMatchObject({
      code: 'PARAMETER_INVALID',
      param: 'expires_in_days',
    });
    const first = await server.request(path, { token: key, method: 'POST' });
    expect(first.body).toMatchObject({
      object: 'reverification_grant',
      verification: v.id,
      mode: 'sandbox',
      reason: 'merchant_request',
    });
    expect(first.body.id).toMatch(/^rvg_/);
    const days = (Date.parse(first.body.expires_at) - Date.now()) / 86400_000;
    expect(days).toBeGreaterThan(6.99);
    expect(days).toBeLessThanOrEqual(7);
    const second = await server.request(path, { token: key, body: { reason: 'periodic_recheck' } });
    expect(second.status).toBe(200);
    expect(second.body.id).toBe(first.body.id);
    const withdrawn = await server.request(path, { token: key, method: 'DELETE' });
    expect(withdrawn.body).toEqual({
      object: 'reverification_grant',
      id: first.body.id,
      verification: v.id,
      revoked: true,
    });
  });
});

describe('account settings (GET/PATCH /v1/console/settings)', () => {
  it('defaults, versioned updates and 409 STALE_VERSION with current_version and nothing applied', async () => {
    const account = await server.bootstrap();
    const read = await server.request('/v1/console/settings', { token: account.member.session_token });
    expect(read.body).toMatchObject({
      repeat_verification: { enabled: true, scope: 'same_flow' },
      reverification_period_days: null,
      retention_days: 1095,
      review_policy: {
        claim_required: false,
        claim_lease_minutes: 30,
        presence_ttl_ms: 30000,
        presence_heartbeat_ms: 10000,
      },
      version: 1,
    });
    const updated = await patchSettings(account, { retention_days: 400, version: 1 });
    expect(updated.body).toMatchObject({ retention_days: 400, version: 2 });
    const stale = await patchSettings(account, { retention_days: 10, version: 1 });
    expect(stale.status).toBe(409);
    expect(stale.body.error).toMatchObject({
      type: 'invalid_request_error',
      code: 'STALE_VERSION',
      detail: { current_version: 2 },
    });
    expect(
      (await server.request('/v1/console/settings', { token: account.member.session_token })).body.retention_days,
    ).toBe(400);
    expect((await server.request('/v1/console/settings', { token: account.keys.sandbox.secret_key })).status).toBe(401);
  });
});
