import { withTestAccount } from '../support/account.js';
import { capturingLogger } from '../support/logs.js';
import type { TestServer } from '../support/test-server.js';
import { waitFor } from '../support/wait.js';

// Issue 19 item 4: every log line is JSON through pino, carries the request id within a
// request, and never holds applicant identity, secrets or tokens.

const captured = capturingLogger('trace');
let server: TestServer;
let sandbox: string;
withTestAccount((t) => ({ server, sandbox } = t), { logger: captured.logger });

const EMAIL = 'ada.lovelace.logtest@example.org';
const DOCUMENT_NUMBER = 'LOGDOC9917';
const NATIONAL_ID = 'NATLOG4417';

const entries = () => captured.lines.map((line) => JSON.parse(line) as Record<string, any>);

describe('logging', () => {
  it('a create with an email and a document leaves neither in the log output, at the most verbose level', async () => {
    const create = await server.request('/v1/verifications', {
      token: sandbox,
      headers: { 'x-request-id': 'log-create-1' },
      body: {
        applicant: { email: EMAIL, reference_id: 'ref-logtest-1' },
        sandbox: {
          outcome: 'approved',
          document: {
            number: DOCUMENT_NUMBER,
            national_id: NATIONAL_ID,
            type: 'passport',
            issuing_country: 'GBR',
            date_of_birth: '1990-01-01',
            expiry_date: '2031-01-01',
            first_name: 'Augusta',
            last_name: 'Byronic',
          },
        },
      },
    });
    expect(create.status).toBe(201);
    // The engine runs the checks in a job: its lines are part of what must stay clean.
    await waitFor(
      async () =>
        (await server.request(`/v1/verifications/${create.body.id}`, { token: sandbox })).body.status === 'approved',
      20_000,
      'approval',
    );
    // The same identity through the other ways in: a filtered list and a lookup.
    expect(
      (await server.request(`/v1/verifications?email=${encodeURIComponent(EMAIL)}`, { token: sandbox })).status,
    ).toBe(200);
    expect(
      (await server.request('/v1/verifications/lookup', { token: sandbox, body: { emails: [EMAIL] } })).status,
    ).toBe(200);

    const text = captured.lines.join('');
    for (const secret of [
      EMAIL,
      DOCUMENT_NUMBER,
      NATIONAL_ID,
      'Augusta',
      'Byronic',
      'ref-logtest-1',
      sandbox,
      create.body.client_token,
    ]) {
      expect(text).not.toContain(secret);
    }
    // Not vacuous: the create was logged, its input with the identity redacted.
    const input = entries().find((e) => e.request_id === 'log-create-1' && e.msg === 'request input');
    expect(input?.body).toMatchObject({
      applicant: '[Redacted]',
      sandbox: { outcome: 'approved', document: '[Redacted]' },
    });
  });

  it('every line is JSON with a level and a time, and each line of a request carries its request id', async () => {
    const res = await server.request('/v1/nowhere', { token: sandbox, headers: { 'x-request-id': 'log-404-1' } });
    expect(res.status).toBe(404);
    for (const entry of entries()) {
      expect(typeof entry.level).toBe('string');
      expect(Number.isNaN(Date.parse(entry.time))).toBe(false);
    }
    const lines = entries().filter((e) => e.request_id === 'log-404-1');
    expect(lines.map((e) => e.msg)).toEqual(['request input', 'request']);
    expect(lines[1]).toMatchObject({ method: 'GET', path: '/v1/nowhere', status: 404 });
  });
});
