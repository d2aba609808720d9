import type { BootstrapResult } from '../../src/services/access/index.js';
import { withTestServer } from '../support/account.js';
import type { TestServer } from '../support/test-server.js';
import { waitFor } from '../support/wait.js';

// Spec, States and transitions: Repeat-verification rules R8 and R9, Reverification grant.

let server: TestServer;
let account: BootstrapResult;
let key: string;
withTestServer(
  async (s) => {
    // The racing creates alone spend most of the default 100/minute budget of the one key.
    server = s;
    account = await server.bootstrap();
    key = account.keys.sandbox.secret_key;
  },
  { env: { RATE_LIMIT_PER_MINUTE: '100000' } },
);
const create = (body: Record<string, unknown>) => server.request('/v1/verifications', { token: key, body });
const read = async (id: string) => (await server.request(`/v1/verifications/${id}`, { token: key })).body;
const decide = (reviewId: string, decision: string) =>
  server.request(`/v1/manual-reviews/${reviewId}/decision`, { token: key, body: { decision } });
const eventTypes = async (id: string) =>
  (
    await server.sql<{ type: string }>('select type from events where verification_id = $1 order by created_at', [id])
  ).map((e) => e.type);
const settled = (id: string) =>
  waitFor(
    async () => {
      const v = await read(id);
      return ['approved', 'rejected', 'manual_review', 'expired'].includes(v.status) ? v : undefined;
    },
    20_000,
    `${id} to settle`,
  );

let n = 0;
const unique = (label: string) => `${label}-${Date.now()}-${n++}`;

/** A sandbox session that settles in manual_review, and its queued review. */
async function reviewCase(): Promise<{ verificationId: string; reviewId: string }> {
  const created = await create({ sandbox: { outcome: 'review' } });
  expect(created.status).toBe(201);
  const v = await settled(created.body.id);
  expect(v.status).toBe('manual_review');
  const [row] = await server.sql<{ id: string }>('select id from manual_reviews where verification_id = $1', [v.id]);
  return { verificationId: v.id, reviewId: row.id };
}

async function approved(reference: string): Promise<string> {
  const res = await create({ applicant: { reference_id: reference }, sandbox: { outcome: 'approved' } });
  expect(res.status).toBe(201);
  expect((await settled(res.body.id)).status).toBe('approved');
  return res.body.id;
}

describe('R8: a case escalated to a colleague is left alone', () => {
  it("approving one of the person's cases expires the open one but leaves the escalated one in manual_review, its review escalated, with no verification.already_verified", async () => {
    const approving = await reviewCase();
    const open = await reviewCase();
    const escalated = await reviewCase();
    const person = `fp-${approving.verificationId}`;
    await server.sql('update verifications set email_fingerprint = $2 where id = any($1)', [
      [approving.verificationId, open.verificationId, escalated.verificationId],
      person,
    ]);
    await server.sql(`update manual_reviews set status = 'escalated', escalated_at = now() where id = $1`, [
      escalated.reviewId,
    ]);

    expect((await decide(approving.reviewId, 'approve')).status).toBe(200);

    const openAfter = await read(open.verificationId);
    expect(openAfter.status).toBe('expired');
    expect(openAfter.reason_codes).toContain('ALREADY_VERIFIED');
    const escalatedAfter = await read(escalated.verificationId);
    expect(escalatedAfter).toMatchObject({ status: 'manual_review', verdict: 'review' });
    expect(escalatedAfter.reason_codes).not.toContain('ALREADY_VERIFIED');
    expect((await server.sql('select status from manual_reviews where id = $1', [escalated.reviewId]))[0].status).toBe(
      'escalated',
    );
    expect(await eventTypes(escalated.verificationId)).not.toContain('verification.already_verified');
    // Still open: escalation restricts nothing on the key-authenticated API, so it can be decided.
    expect((await decide(escalated.reviewId, 'reject')).status).toBe(200);
  });
});

describe('concurrency: creates racing an approval of the same person', () => {
  it('never leave an open case beside the approval: each create is refused (409 ALREADY_VERIFIED) or its session is expired by R8', async () => {
    for (let round = 0; round < 3; round++) {
      const reference = unique('race');
      const first = await create({ applicant: { reference_id: reference }, sandbox: { outcome: 'approved' } });
      expect(first.status).toBe(201);
      const answers: { status: number; body: any }[] = [];
      // Keep creating the same person while the first session is being approved by the engine.
      for (let wave = 0; wave < 40; wave++) {
        answers.push(
          ...(await Promise.all(
            Array.from({ length: 4 }, () =>
              create({ applicant: { reference_id: reference }, sandbox: { outcome: 'pending' } }),
            ),
          )),
        );
        if (answers.some((a) => a.status === 409)) break;
      }
      expect((await settled(first.body.id)).status).toBe('approved');
      for (const answer of answers) {
        if (answer.status === 409) {
          expect(answer.body.error).toMatchObject({
            code: 'ALREADY_VERIFIED',
            detail: { verification_id: first.body.id, matched_on: 'reference' },
          });
          continue;
        }
        expect(answer.status).toBe(201);
        const closed = await waitFor(
          async () => {
            const v = await read(answer.body.id);
            return v.status === 'expired' ? v : undefined;
          },
          10_000,
          `${answer.body.id} to be superseded`,
        );
        expect(closed.reason_codes).toContain('ALREADY_VERIFIED');
      }
      const open = await server.sql<{ n: number }>(
        `select count(*)::int as n from verifications where merchant_id = $1 and reference_fingerprint = (select reference_fingerprint from verifications where id = $2) and status in ('pending', 'processing', 'manual_review')`,
        [account.merchant.id, first.body.id],
      );
      expect(open[0].n).toBe(0);
    }
  }, 120_000);
});

describe('Reverification grant: an open grant lapses at expires_at', () => {
  it('a lapsed grant lets nothing through, cannot be withdrawn (404), and a new request opens a new grant', async () => {
    const reference = unique('lapse');
    const approval = await approved(reference);
    const grant = await server.request(`/v1/verifications/${approval}/reverification`, {
      token: key,
      body: { expires_in_days: 1 },
    });
    expect(grant.status).toBe(200);
    await server.sql(`update reverification_grants set expires_at = now() - interval '1 second' where id = $1`, [
      grant.body.id,
    ]);

    const refused = await create({ applicant: { reference_id: reference } });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('ALREADY_VERIFIED');
    expect(
      (await server.sql('select spent_at from reverification_grants where id = $1', [grant.body.id]))[0].spent_at,
    ).toBeNull();

    const withdraw = await server.request(`/v1/verifications/${approval}/reverification`, {
      token: key,
      method: 'DELETE',
    });
    expect(withdraw.status).toBe(404);

    const renewed = await server.request(`/v1/verifications/${approval}/reverification`, { token: key, body: {} });
    expect(renewed.status).toBe(200);
    expect(renewed.body.id).not.toBe(grant.body.id);
    expect(renewed.body.reason).toBe('merchant_request');
    const through = await create({ applicant: { reference_id: reference } });
    expect(through.status).toBe(201);
    // The original approval is never changed by a grant.
    expect(await read(approval)).toMatchObject({ status: 'approved', verdict: 'approve' });
  });

  it('expires_in_days sets expires_at that many days ahead (default 7); 0, 31 and a fraction are refused', async () => {
    const approval = await approved(unique('days'));
    for (const bad of [0, 31, 1.5]) {
      const res = await server.request(`/v1/verifications/${approval}/reverification`, {
        token: key,
        body: { expires_in_days: bad },
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'PARAMETER_INVALID', param: 'expires_in_days' });
    }
    const res = await server.request(`/v1/verifications/${approval}/reverification`, {
      token: key,
      body: { expires_in_days: 30, reason: 'periodic_recheck' },
    });
    expect(res.status).toBe(200);
    const days = (Date.parse(res.body.expires_at) - Date.now()) / 86400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThanOrEqual(30);
  });
});
