import { loadConfig } from '../../src/config.js';
import type { BootstrapResult } from '../../src/services/access/index.js';
import { OUTCOME_EMAIL_RETRIES, sendDueOutcomeEmails, smtpTransport } from '../../src/services/review/index.js';
import { withTestAccount } from '../support/account.js';
import { startMailServer, type MailServer } from '../support/mail.js';
import type { TestServer } from '../support/test-server.js';
import { waitFor } from '../support/wait.js';

let mail: MailServer;
let server: TestServer;
let account: BootstrapResult;
let sandbox: string;

beforeAll(async () => {
  // Refuses recipients whose address starts with `refuse` (a mailbox that does not exist).
  mail = await startMailServer({ refuse: (address) => address.startsWith('refuse') });
});
afterAll(() => mail.close());
withTestAccount(
  async (t) => {
    ({ server, account, sandbox } = t);
    // The checks still run as jobs; the sender does not: each test sends with sendDueOutcomeEmails
    // itself (through SMTP_URL's server), so it can count attempts without racing the job.
    expect(await server.runtime.jobs.agenda.disable({ name: 'applicant-notifications.send' })).toBe(1);
  },
  () => ({
    env: { SMTP_URL: mail.url, MAIL_FROM: 'Identity checks <verify@idv.example>', RATE_LIMIT_PER_MINUTE: '100000' },
  }),
);
interface NotificationRow {
  id: string;
  status: string;
  attempts: number;
  last_error: string | null;
  retry_in: number;
  failed_at: Date | null;
}
const notificationOf = async (verificationId: string) =>
  (
    await server.sql<NotificationRow>(
      `select id, status, attempts, last_error, failed_at, extract(epoch from send_after - now())::int as retry_in from applicant_notifications where verification_id = $1`,
      [verificationId],
    )
  )[0]!;
const makeDue = (verificationId: string) =>
  server.sql(`update applicant_notifications set send_after = now() - interval '1 second' where verification_id = $1`, [
    verificationId,
  ]);

let counter = 0;
const address = (local = 'applicant') => `${local}-${Date.now()}-${++counter}@example.com`;

/** A sandbox case decided by a reviewer: its outcome email is queued (and made due). */
async function decidedCase(email: string, decision: 'approve' | 'reject', locale?: string) {
  const created = await server.request('/v1/verifications', {
    token: sandbox,
    body: { applicant: { email }, ...(locale ? { locale } : {}), sandbox: { outcome: 'review' } },
  });
  expect(created.status).toBe(201);
  const verificationId: string = created.body.id;
  await waitFor(
    async () =>
      (await server.sql('select 1 from manual_reviews where verification_id = $1', [verificationId])).length > 0,
    15_000,
    'the review',
  );
  const [review] = await server.sql<{ id: string }>('select id from manual_reviews where verification_id = $1', [
    verificationId,
  ]);
  expect(
    (await server.request(`/v1/manual-reviews/${review!.id}/decision`, { token: sandbox, body: { decision } })).status,
  ).toBe(200);
  await makeDue(verificationId);
  return verificationId;
}

describe('outcome emails through SMTP_URL', () => {
  it('a due email goes to the SMTP server, to the address given at create, from MAIL_FROM, and is marked sent once', async () => {
    const email = address();
    const verificationId = await decidedCase(email, 'approve');
    const before = mail.received.length;
    await sendDueOutcomeEmails(server.runtime);
    await sendDueOutcomeEmails(server.runtime);
    const messages = mail.received.slice(before).filter((m) => m.to.includes(email));
    expect(messages).toHaveLength(1);
    expect(messages[0]!.from).toBe('verify@idv.example');
    expect(messages[0]!.headers).toMatch(/^Subject: Your identity verification is complete$/m);
    expect(messages[0]!.headers).toMatch(/^Content-Language: en$/m);
    expect(messages[0]!.text).toContain(`reference ${verificationId}) has been approved`);
    expect(await notificationOf(verificationId)).toMatchObject({ status: 'sent', attempts: 1, last_error: null });
  });

  it("a rejection is written in the verification's language (de-CH reads as de) and names no reason", async () => {
    const email = address();
    const verificationId = await decidedCase(email, 'reject', 'de-CH');
    await sendDueOutcomeEmails(server.runtime);
    const message = mail.received.find((m) => m.to.includes(email))!;
    expect(message.headers).toMatch(/^Content-Language: de$/m);
    expect(message.text).toContain(
      `Ihre Identitätsprüfung (Referenz ${verificationId}) konnte nicht bestätigt werden.`,
    );
    expect(message.text).not.toMatch(/[A-Z]{4,}_[A-Z_]+/); // no reason codes
  });

  it('a refused recipient is retried on the schedule, the stored reason never names the address, and the last refusal fails it', async () => {
    const email = address('refuse');
    const verificationId = await decidedCase(email, 'approve');
    await sendDueOutcomeEmails(server.runtime);
    const first = await notificationOf(verificationId);
    expect(first).toMatchObject({ status: 'pending', attempts: 1, failed_at: null });
    expect(first.last_error).toMatch(/550/);
    expect(first.last_error).not.toContain(email);
    expect(first.last_error).not.toContain('@');
    expect(first.retry_in).toBeGreaterThan(OUTCOME_EMAIL_RETRIES[0]! - 5);
    expect(first.retry_in).toBeLessThanOrEqual(OUTCOME_EMAIL_RETRIES[0]!);

    // Not due yet: another pass leaves it alone.
    await sendDueOutcomeEmails(server.runtime);
    expect((await notificationOf(verificationId)).attempts).toBe(1);

    // Every retry refused: after the last one it is failed, not retried again.
    for (let attempt = 2; attempt <= OUTCOME_EMAIL_RETRIES.length + 1; attempt++) {
      await makeDue(verificationId);
      await sendDueOutcomeEmails(server.runtime);
      expect((await notificationOf(verificationId)).attempts).toBe(attempt);
    }
    const last = await notificationOf(verificationId);
    expect(last.status).toBe('failed');
    expect(last.failed_at).not.toBeNull();
    await makeDue(verificationId);
    await sendDueOutcomeEmails(server.runtime);
    expect((await notificationOf(verificationId)).attempts).toBe(OUTCOME_EMAIL_RETRIES.length + 1);
    expect(mail.received.some((m) => m.to.includes(email))).toBe(false);
  });

  it('a mail server that is down loses nothing: the email stays pending for its retry, then goes out', async () => {
    const email = address();
    const verificationId = await decidedCase(email, 'approve');
    await sendDueOutcomeEmails(server.runtime, 200, smtpTransport('smtp://127.0.0.1:1', 'x@idv.example'));
    expect(await notificationOf(verificationId)).toMatchObject({ status: 'pending', attempts: 1 });
    await makeDue(verificationId);
    await sendDueOutcomeEmails(server.runtime);
    expect(await notificationOf(verificationId)).toMatchObject({ status: 'sent', attempts: 2, last_error: null });
    expect(mail.received.filter((m) => m.to.includes(email))).toHaveLength(1);
  });

  it('an email whose address retention has purged is dropped, not sent', async () => {
    const email = address();
    const verificationId = await decidedCase(email, 'approve');
    await server.sql(`update verifications set identity = null where id = $1`, [verificationId]);
    await sendDueOutcomeEmails(server.runtime);
    expect((await notificationOf(verificationId)).status).toBe('dropped');
    expect(mail.received.some((m) => m.to.includes(email))).toBe(false);
  });
});

describe('SMTP_URL', () => {
  it('must be an smtp: or smtps: URL; a bad value stops the start instead of the first email', () => {
    expect(loadConfig({ SMTP_URL: 'smtps://user:secret@mail.example.com:465' }).smtpUrl).toBe(
      'smtps://user:secret@mail.example.com:465',
    );
    expect(loadConfig({}).smtpUrl).toBeUndefined();
    expect(() => loadConfig({ SMTP_URL: 'http://mail.example.com' })).toThrow(/smtp: or smtps:/);
    expect(() => loadConfig({ SMTP_URL: 'mail.example.com' })).toThrow(/SMTP_URL must be a URL/);
  });
});

describe('applicant_message (console decisions)', () => {
  it("a reviewer's applicant_message reaches the outcome email under the outcome, is stored encrypted, and appears in no event or note", async () => {
    const email = address();
    const created = await server.request('/v1/verifications', {
      token: sandbox,
      body: { applicant: { email }, sandbox: { outcome: 'review' } },
    });
    const verificationId: string = created.body.id;
    await waitFor(
      async () =>
        (await server.sql('select 1 from manual_reviews where verification_id = $1', [verificationId])).length > 0,
      15_000,
      'the review',
    );
    const [review] = await server.sql<{ id: string }>('select id from manual_reviews where verification_id = $1', [
      verificationId,
    ]);
    const text = 'Please bring your passport to the branch on Monday.';
    const tooLong = await server.request(`/v1/console/reviews/${review!.id}/decision`, {
      token: account.member.session_token,
      body: { decision: 'approve', applicant_message: 'x'.repeat(1001) },
    });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error).toMatchObject({ type: 'invalid_request_error', param: 'applicant_message' });
    const decided = await server.request(`/v1/console/reviews/${review!.id}/decision`, {
      token: account.member.session_token,
      body: { decision: 'approve', notes: 'internal', applicant_message: text },
    });
    expect(decided.status).toBe(200);
    expect(decided.body.notes).toBe('internal');
    const [stored] = await server.sql<{ message: string }>(
      'select message from applicant_notifications where verification_id = $1',
      [verificationId],
    );
    expect(stored!.message).toBeTruthy();
    expect(stored!.message).not.toContain('passport');
    const events = await server.sql<{ payload: unknown }>('select payload from events where verification_id = $1', [
      verificationId,
    ]);
    expect(JSON.stringify(events)).not.toContain('passport');
    await makeDue(verificationId);
    await sendDueOutcomeEmails(server.runtime);
    const message = mail.received.find((m) => m.to.includes(email))!;
    const outcomeAt = message.text.indexOf('has been approved');
    expect(outcomeAt).toBeGreaterThan(-1);
    expect(message.text.indexOf(text)).toBeGreaterThan(outcomeAt);
    expect(message.text).toContain('A note from the team that reviewed your verification:');
  });

  it('the key API refuses applicant_message: it is a back-office field', async () => {
    const verificationId = await (async () => {
      const created = await server.request('/v1/verifications', {
        token: sandbox,
        body: { applicant: { email: address() }, sandbox: { outcome: 'review' } },
      });
      await waitFor(
        async () =>
          (await server.sql('select 1 from manual_reviews where verification_id = $1', [created.body.id])).length > 0,
        15_000,
        'the review',
      );
      return created.body.id as string;
    })();
    const [review] = await server.sql<{ id: string }>('select id from manual_reviews where verification_id = $1', [
      verificationId,
    ]);
    const res = await server.request(`/v1/manual-reviews/${review!.id}/decision`, {
      token: sandbox,
      body: { decision: 'approve', applicant_message: 'hello' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe('applicant_message');
  });
});
