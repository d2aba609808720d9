import type { BootstrapResult } from '../../src/services/access/index.js';
import { sendDueOutcomeEmails, type OutcomeEmail } from '../../src/services/review/index.js';
import { withTestServer } from '../support/account.js';
import type { TestServer } from '../support/test-server.js';
import { waitFor } from '../support/wait.js';

let server: TestServer;
let account: BootstrapResult;
let sandbox: string;

withTestServer(
  async (s) => {
    // The default hold-back (300 s): nothing is sent while a test looks at the queue.
    server = s;
    account = await server.bootstrap();
    sandbox = account.keys.sandbox.secret_key;
  },
  { env: { RATE_LIMIT_PER_MINUTE: '100000' } },
);
const decide = (id: string, decision: string) =>
  server.request(`/v1/manual-reviews/${id}/decision`, { token: sandbox, body: { decision } });
const notificationsOf = (verificationId: string) =>
  server.sql<{ id: string; decision: string; status: string }>(
    'select id, decision, status from applicant_notifications where verification_id = $1 order by created_at',
    [verificationId],
  );
const statusOf = async (id: string) =>
  (await server.sql('select status from verifications where id = $1', [id]))[0]?.status;

let counter = 0;
const freshEmail = () => `applicant-${Date.now()}-${++counter}@example.com`;

/** A sandbox session settled in manual_review, and its queued review. */
async function reviewCase(email?: string) {
  const created = await server.request('/v1/verifications', {
    token: sandbox,
    body: { ...(email ? { applicant: { email } } : {}), sandbox: { outcome: 'review' } },
  });
  expect(created.status).toBe(201);
  const verificationId: string = created.body.id;
  await waitFor(async () => (await statusOf(verificationId)) === 'manual_review', 15_000, 'manual_review');
  const [review] = await server.sql<{ id: string }>('select id from manual_reviews where verification_id = $1', [
    verificationId,
  ]);
  return { verificationId, reviewId: review!.id };
}

describe('Applicant outcome email (Manual review table: "outcome sent to applicant")', () => {
  it('approve or reject by a reviewer queues one outcome email for the applicant, held back before it is sent', async () => {
    const approved = await reviewCase(freshEmail());
    expect((await decide(approved.reviewId, 'approve')).status).toBe(200);
    expect(await notificationsOf(approved.verificationId)).toEqual([
      expect.objectContaining({ decision: 'approve', status: 'pending' }),
    ]);
    const rejected = await reviewCase(freshEmail());
    expect((await decide(rejected.reviewId, 'reject')).status).toBe(200);
    expect(await notificationsOf(rejected.verificationId)).toEqual([
      expect.objectContaining({ decision: 'reject', status: 'pending' }),
    ]);
  });

  it('review on a queued case is not an outcome: nothing is queued; no address given: nothing is queued', async () => {
    const queued = await reviewCase(freshEmail());
    expect((await decide(queued.reviewId, 'review')).status).toBe(200);
    expect(await notificationsOf(queued.verificationId)).toEqual([]);
    const anonymous = await reviewCase();
    expect((await decide(anonymous.reviewId, 'approve')).status).toBe(200);
    expect(await notificationsOf(anonymous.verificationId)).toEqual([]);
  });

  it('reopen (review on a resolved case): an unsent outcome email for the reversed decision is dropped; the new decision queues its own', async () => {
    const c = await reviewCase(freshEmail());
    expect((await decide(c.reviewId, 'approve')).status).toBe(200);
    expect((await decide(c.reviewId, 'review')).status).toBe(200);
    expect(await notificationsOf(c.verificationId)).toEqual([
      expect.objectContaining({ decision: 'approve', status: 'dropped' }),
    ]);
    expect((await decide(c.reviewId, 'reject')).status).toBe(200);
    expect((await notificationsOf(c.verificationId)).map((n) => [n.decision, n.status])).toEqual([
      ['approve', 'dropped'],
      ['reject', 'pending'],
    ]);
  });

  it('reopen after the email went out leaves it sent (only an unsent one can be dropped)', async () => {
    const c = await reviewCase(freshEmail());
    expect((await decide(c.reviewId, 'reject')).status).toBe(200);
    await server.sql(`update applicant_notifications set status = 'sent', sent_at = now() where verification_id = $1`, [
      c.verificationId,
    ]);
    expect((await decide(c.reviewId, 'review')).status).toBe(200);
    expect(await notificationsOf(c.verificationId)).toEqual([
      expect.objectContaining({ decision: 'reject', status: 'sent' }),
    ]);
  });

  it('R8: a case superseded by the approval of the same person is closed without emailing its applicant', async () => {
    const email = freshEmail();
    const open = await server.request('/v1/verifications', {
      token: sandbox,
      body: { applicant: { email }, sandbox: { outcome: 'pending' } },
    });
    expect(open.status).toBe(201);
    const c = await reviewCase(email);
    expect((await decide(c.reviewId, 'approve')).status).toBe(200);
    expect(await statusOf(open.body.id)).toBe('expired');
    expect(await notificationsOf(open.body.id)).toEqual([]);
    expect(await notificationsOf(c.verificationId)).toHaveLength(1);
  });

  it('a due email is sent once, to the address given at create, and marked sent', async () => {
    const email = freshEmail();
    const c = await reviewCase(email);
    expect((await decide(c.reviewId, 'approve')).status).toBe(200);
    await server.sql(
      `update applicant_notifications set send_after = now() - interval '1 second' where verification_id = $1`,
      [c.verificationId],
    );
    const sent: OutcomeEmail[] = [];
    const transport = async (message: OutcomeEmail) => void sent.push(message);
    await sendDueOutcomeEmails(server.runtime, 200, transport);
    await sendDueOutcomeEmails(server.runtime, 200, transport);
    expect(sent).toEqual([
      expect.objectContaining({ verificationId: c.verificationId, to: email, decision: 'approve' }),
    ]);
    expect(await notificationsOf(c.verificationId)).toEqual([expect.objectContaining({ status: 'sent' })]);
  });
});
