import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import QRCode from 'qrcode';
import { expireDueSessions } from '../../src/jobs/expire-due.job.js';
import type { BootstrapResult } from '../../src/services/access/index.js';
import { CONSENT_VERSION } from '../../src/services/hosted/index.js';
import { withTestAccount } from '../support/account.js';
import { agree, applicantApi, createHostedSession, putBytes, webmBytes } from '../support/hosted.js';
import { pngImage } from '../support/images.js';
import { startMailServer, type MailServer } from '../support/mail.js';
import type { TestServer } from '../support/test-server.js';
import { waitFor } from '../support/wait.js';

let mail: MailServer;
let server: TestServer;
let account: BootstrapResult;
let sandbox: string;

beforeAll(async () => {
  mail = await startMailServer();
});
afterAll(() => mail.close());
withTestAccount(
  (t) => ({ server, account, sandbox } = t),
  () => ({ env: { SMTP_URL: mail.url, RATE_LIMIT_PER_MINUTE: '100000' } }),
);

const png = pngImage(64, 48);
let n = 0;
const address = () => `applicant-${Date.now()}-${++n}@example.com`;

/** Presign, PUT and complete one upload through the applicant API; returns the complete answer. */
async function upload(api: ReturnType<typeof applicantApi>, body: Record<string, unknown>, bytes: Buffer) {
  const created = await api.post('/uploads', body);
  expect(created.status).toBe(201);
  expect(await putBytes(created.body.upload_url, bytes, body.content_type as string)).toBe(200);
  return api.post(`/uploads/${created.body.upload_id}/complete`);
}

async function confirmEmail(api: ReturnType<typeof applicantApi>, email: string) {
  expect((await api.post('/email', { email })).body).toMatchObject({
    object: 'email_step',
    email_sent: true,
    confirmed: false,
  });
  const code = await mail.codeFor(email);
  const confirmed = await api.post('/email/confirm', { code });
  expect(confirmed.body).toMatchObject({ confirmed: true });
}

const statusOf = async (id: string) =>
  (await server.sql<{ status: string }>('select status from verifications where id = $1', [id]))[0]!.status;
const eventsOf = async (id: string) =>
  (
    await server.sql<{ type: string }>('select type from events where verification_id = $1 order by created_at, id', [
      id,
    ])
  ).map((e) => e.type);

describe('the applicant API (client token only)', () => {
  it('walks email, document, selfie and liveness, then submit moves the session to processing and the checks reach a verdict', async () => {
    const v = await createHostedSession(server, account, { locale: 'de-CH' });
    const api = applicantApi(server, v.id, v.client_token!);
    const first = await api.session();
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      object: 'hosted_session',
      state: 'open',
      preview: false,
      language: 'de',
      steps: ['email', 'document', 'selfie', 'liveness'],
    });
    expect(JSON.stringify(first.body)).not.toMatch(/verdict|score|GBR/);

    const email = address();
    expect((await api.post('/email', { email })).body.email_sent).toBe(true);
    const code = await mail.codeFor(email);
    const wrong = code === '000000' ? '111111' : '000000';
    expect((await api.post('/email/confirm', { code: wrong })).body.error).toMatchObject({
      code: 'EMAIL_CODE_INVALID',
      param: 'code',
    });
    expect((await api.post('/email/confirm', { code })).body).toMatchObject({ confirmed: true });
    expect(mail.received.find((m) => m.to.includes(email))!.raw).toMatch(/Content-Language: de/i);

    // Nothing is captured before consent: an upload is 409 CONSENT_REQUIRED, and so is submit.
    const early = await api.post('/uploads', { kind: 'selfie', content_type: 'image/png' });
    expect(early.status).toBe(409);
    expect(early.body.error).toMatchObject({ type: 'invalid_request_error', code: 'CONSENT_REQUIRED' });
    expect((await api.post('/submit')).body.error.code).toBe('CONSENT_REQUIRED');
    expect((await api.session()).body.consent).toEqual({
      state: 'required',
      version: CONSENT_VERSION,
      retention_days: 1095,
    });
    await agree(api);

    const incomplete = await api.post('/submit');
    expect(incomplete.status).toBe(400);
    expect(incomplete.body.error).toMatchObject({
      code: 'STEPS_INCOMPLETE',
      detail: { missing: ['document_front', 'selfie', 'liveness'] },
    });

    expect(
      (
        await upload(
          api,
          { kind: 'document', side: 'front', document_type: 'passport', content_type: 'image/png' },
          png,
        )
      ).body,
    ).toMatchObject({ object: 'hosted_upload', status: 'uploaded' });
    expect((await upload(api, { kind: 'selfie', content_type: 'image/png' }, png)).status).toBe(200);
    // Every upload the checks need is in, but on the hosted page only submit starts them.
    expect(await statusOf(v.id)).toBe('pending');
    expect((await upload(api, { kind: 'video', content_type: 'video/webm' }, webmBytes())).status).toBe(200);
    expect((await api.session()).body.progress).toEqual({
      email_confirmed: true,
      document_type: 'passport',
      document_front: true,
      document_back: false,
      selfie: true,
      liveness: true,
    });

    const submitted = await api.post('/submit');
    expect(submitted.status).toBe(200);
    expect(submitted.body.state).toBe('submitted');
    expect(await eventsOf(v.id)).toEqual(
      expect.arrayContaining(['verification.created', 'verification.pending', 'verification.awaiting_service']),
    );
    const final = await waitFor(
      async () => {
        const read = await server.request(`/v1/verifications/${v.id}`, { token: sandbox });
        return read.body.status === 'approved' && read.body;
      },
      20_000,
      'the verdict',
    );
    expect(final.checks.find((c: any) => c.type === 'email')).toMatchObject({ verdict: 'approve', score: 1 });
    // The consent is on the verification, in the session's language.
    expect(final.consent).toEqual({ version: CONSENT_VERSION, language: 'de', given_at: expect.any(String) });
    expect(Date.parse(final.consent.given_at)).toBeGreaterThan(Date.now() - 60_000);
    // The confirmed address is recorded on the verification (lookup rule 4).
    const lookup = await server.request('/v1/verifications/lookup', {
      token: sandbox,
      body: { emails: [email.toUpperCase()] },
    });
    expect(lookup.body.data[0]).toMatchObject({ found: true, latest: { id: v.id } });
    // The token is used up: it reads the state, and writes nothing more.
    expect((await api.session()).body.state).toBe('submitted');
    expect((await api.post('/uploads', { kind: 'selfie', content_type: 'image/png' })).body.error.code).toBe(
      'SESSION_SUBMITTED',
    );
  });

  it('a document that is not a passport needs its back before submit', async () => {
    const v = await createHostedSession(server, account, { checks: [{ type: 'document' }] });
    const api = applicantApi(server, v.id, v.client_token!);
    expect((await api.session()).body.steps).toEqual(['document']);
    await agree(api);
    await upload(api, { kind: 'document', side: 'front', document_type: 'id_card', content_type: 'image/png' }, png);
    expect((await api.post('/submit')).body.error.detail).toEqual({ missing: ['document_back'] });
    await upload(api, { kind: 'document', side: 'back', document_type: 'id_card', content_type: 'image/png' }, png);
    expect((await api.post('/submit')).body.state).toBe('submitted');
  });

  it('refuses a wrong, missing or replaced token with 401 CLIENT_TOKEN_INVALID, naming no session', async () => {
    const a = await createHostedSession(server, account);
    const b = await createHostedSession(server, account);
    for (const res of [
      await applicantApi(server, a.id, b.client_token!).session(),
      await server.request(`/v1/hosted/verifications/${a.id}`),
      await applicantApi(server, 'vs_doesnotexist000000000000', a.client_token!).session(),
      await applicantApi(server, a.id, sandbox).session(),
    ]) {
      expect(res.status).toBe(401);
      expect(res.body.error).toMatchObject({ type: 'authentication_error', code: 'CLIENT_TOKEN_INVALID' });
    }
  });

  it('an expired session reads as expired and refuses writes with SESSION_EXPIRED', async () => {
    const v = await createHostedSession(server, account);
    await server.sql(`update verifications set expires_at = now() - interval '1 minute' where id = $1`, [v.id]);
    const api = applicantApi(server, v.id, v.client_token!);
    expect((await api.session()).body.state).toBe('expired');
    const refused = await api.post('/email', { email: address() });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('SESSION_EXPIRED');
  });

  it('refuses an unsupported content type and a document type the flow does not accept', async () => {
    const flow = await server.request('/v1/flows', {
      token: sandbox,
      body: { name: `ID cards ${++n}`, steps: [{ type: 'document' }], accepted_document_types: ['id_card'] },
    });
    expect(flow.status).toBe(201);
    const v = await createHostedSession(server, account, { checks: undefined, flow: flow.body.id });
    const api = applicantApi(server, v.id, v.client_token!);
    expect((await api.session()).body.accepted_document_types).toEqual(['id_card']);
    await agree(api);
    const gif = await api.post('/uploads', {
      kind: 'document',
      side: 'front',
      document_type: 'id_card',
      content_type: 'image/gif',
    });
    expect(gif.body.error).toMatchObject({ code: 'UNSUPPORTED_CONTENT_TYPE', param: 'content_type' });
    const passport = await api.post('/uploads', {
      kind: 'document',
      side: 'front',
      document_type: 'passport',
      content_type: 'image/png',
    });
    expect(passport.body.error).toMatchObject({ code: 'DOCUMENT_TYPE_NOT_ACCEPTED', param: 'document_type' });
  });
});

describe('client token renewal (POST /v1/verifications/{id}/client_token)', () => {
  it('issues a new token while pending; the old one stops working; a submitted session answers 409', async () => {
    const v = await createHostedSession(server, account, { checks: [{ type: 'email' }] });
    const renewed = await server.request(`/v1/verifications/${v.id}/client_token`, { token: sandbox, body: {} });
    expect(renewed.status).toBe(200);
    expect(renewed.body).toMatchObject({ object: 'client_token', verification: v.id });
    expect(renewed.body.hosted_verify_url).toBe(
      `${server.config.publicUrl}/verify/${v.id}#token=${renewed.body.client_token}`,
    );
    expect((await applicantApi(server, v.id, v.client_token!).session()).status).toBe(401);
    const api = applicantApi(server, v.id, renewed.body.client_token);
    expect((await api.session()).status).toBe(200);
    await confirmEmail(api, address());
    await agree(api);
    expect((await api.post('/submit')).body.state).toBe('submitted');
    const again = await server.request(`/v1/verifications/${v.id}/client_token`, { token: sandbox, body: {} });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('VERIFICATION_NOT_PENDING');
  });

  it("another environment's session is 404", async () => {
    const v = await createHostedSession(server, account);
    const res = await server.request(`/v1/verifications/${v.id}/client_token`, {
      token: account.keys.live.secret_key,
      body: {},
    });
    expect(res.status).toBe(404);
  });
});

describe('flow preview on the hosted page', () => {
  it('runs the same steps and writes nothing that counts: no upload, no email, no status change, no event', async () => {
    const flow = await server.request('/v1/flows', {
      token: sandbox,
      body: { name: `Preview ${++n}`, steps: [{ type: 'email' }, { type: 'document' }, { type: 'liveness' }] },
    });
    const preview = await server.request(`/v1/flows/${flow.body.id}/preview`, { token: sandbox, body: {} });
    expect(preview.body.url).toBe(
      `${server.config.publicUrl}/verify/${preview.body.id}#token=${preview.body.client_token}`,
    );
    const api = applicantApi(server, preview.body.id, preview.body.client_token);
    expect((await api.session()).body).toMatchObject({
      preview: true,
      steps: ['email', 'document', 'selfie', 'liveness'],
    });
    const sentBefore = mail.received.length;
    expect((await api.post('/email', { email: address() })).body).toMatchObject({ email_sent: false, preview: true });
    expect((await api.post('/email/confirm', { code: '000000' })).body).toMatchObject({
      confirmed: true,
      preview: true,
    });
    const up = await api.post('/uploads', { kind: 'selfie', content_type: 'image/png' });
    expect(up.body).toMatchObject({ upload_url: null, preview: true });
    expect((await api.post(`/uploads/${up.body.upload_id}/complete`)).body.status).toBe('uploaded');
    expect((await api.post('/submit')).body.state).toBe('submitted');
    expect(mail.received.length).toBe(sentBefore);
    expect(await statusOf(preview.body.id)).toBe('pending');
    expect(await server.sql('select id from uploads where verification_id = $1', [preview.body.id])).toEqual([]);
    expect(await eventsOf(preview.body.id)).not.toContain('verification.awaiting_service');
  });
});

describe('the page itself', () => {
  it('is served under a strict Content-Security-Policy with its modules, and never carries the token', async () => {
    const v = await createHostedSession(server, account);
    const page = await server.request(`/verify/${v.id}`);
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toContain(`connect-src 'self' ${new URL(process.env.TEST_S3_ENDPOINT!).origin}`);
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.body).not.toContain(v.client_token);
    const script = await server.request('/verify/assets/app.js');
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect((await server.request('/verify/assets/..%2Fpage.html')).status).toBe(404);
    expect((await server.request('/verify/not-a-session')).status).toBe(404);
  });

  it('the static shell says what the page is before any script runs (not only "Loading…")', async () => {
    const page = await server.request('/verify/vs_anything0000');
    expect(page.body).toContain('<h1>Identity verification</h1>');
    expect(page.body).toContain('photograph your identity document and your face');
    expect(page.body).not.toContain('Loading…');
  });

  it('its words: no French line can start with ; : ? ! (no-break space before them), and a document type mid-sentence is lower case in English', async () => {
    // The page's own module (plain JS, no declarations), read as the browser reads it.
    const i18n = '../../src/hosted/public/i18n.js';
    const { LANGUAGES } = (await import(i18n)) as { LANGUAGES: Record<string, Record<string, string>> };
    const french = Object.values(LANGUAGES.fr!);
    expect(french.filter((text) => / [;:?!]/.test(text))).toEqual([]);
    expect(french.filter((text) => /\u202f[;:?!]/.test(text)).length).toBeGreaterThan(10);
    const en = LANGUAGES.en!;
    expect(en.frontTitle!.replace('{doc}', en['docTitle.id_card']!)).toBe('Front of your identity card');
    // Every language has every key English has.
    for (const [language, words] of Object.entries(LANGUAGES))
      expect({ language, missing: Object.keys(en).filter((key) => !(key in words)) }).toEqual({
        language,
        missing: [],
      });
  });

  it("the page's own JS and CSS stay within 60 KB compressed", () => {
    const dir = path.resolve('src/hosted/public');
    const assets = fs.readdirSync(dir).filter((name) => /\.(js|css)$/.test(name));
    expect(assets).toEqual(
      expect.arrayContaining(['app.js', 'capture.js', 'consent.js', 'handoff.js', 'finish.js', 'i18n.js', 'style.css']),
    );
    // Each file compressed on its own, as a server sends them.
    const compressed = assets.reduce(
      (sum, name) => sum + gzipSync(fs.readFileSync(path.join(dir, name)), { level: 9 }).length,
      0,
    );
    expect(compressed).toBeLessThanOrEqual(60 * 1024);
  });
});

describe('consent before capture (issue 30)', () => {
  it('records consent once as {version, language, given_at} on REST, GraphQL and the export; an outdated text version is refused', async () => {
    const v = await createHostedSession(server, account, { checks: [{ type: 'face_match' }], locale: 'fr-FR' });
    const api = applicantApi(server, v.id, v.client_token!);
    expect((await server.request(`/v1/verifications/${v.id}`, { token: sandbox })).body.consent).toBeNull();
    const outdated = await api.post('/consent', { decision: 'agree', version: '1999-01-01' });
    expect(outdated.status).toBe(400);
    expect(outdated.body.error).toMatchObject({ code: 'PARAMETER_INVALID', param: 'version' });
    expect((await api.post('/consent', { decision: 'agree' })).body.error).toMatchObject({
      code: 'PARAMETER_MISSING',
      param: 'version',
    });
    const given = await agree(api);
    expect(given.consent.state).toBe('given');
    const first = (await server.request(`/v1/verifications/${v.id}`, { token: sandbox })).body.consent;
    expect(first).toEqual({ version: CONSENT_VERSION, language: 'fr', given_at: expect.any(String) });
    // Agreeing again keeps the first record.
    await agree(api);
    expect((await server.request(`/v1/verifications/${v.id}`, { token: sandbox })).body.consent).toEqual(first);
    const listed = await server.request('/v1/verifications?limit=5', { token: sandbox });
    expect(listed.body.data.find((row: any) => row.id === v.id).consent).toEqual(first);

    const gql = await server.graphql(
      account.member.session_token,
      `query($id: ID!) { verification(id: $id, environment: sandbox) { consent { version language givenAt } returnUrl } }`,
      { id: v.id },
    );
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.verification).toEqual({
      consent: { version: CONSENT_VERSION, language: 'fr', givenAt: new Date(first.given_at).toISOString() },
      returnUrl: null,
    });

    const csv = await server.request('/v1/console/exports/verifications', {
      token: account.member.session_token,
      body: {},
    });
    expect(csv.status).toBe(200);
    const [header, ...lines] = String(csv.body).trim().split('\n');
    const columns = header!.split(',');
    const row = lines.find((line) => line.startsWith(v.id))!.split(',');
    expect(row[columns.indexOf('consent_version')]).toBe(CONSENT_VERSION);
    expect(row[columns.indexOf('consent_language')]).toBe('fr');
  });

  it('"I do not agree" ends the applicant\'s part: pending, writes refused, an activity row (surface hosted), and expiry says CONSENT_DECLINED', async () => {
    const v = await createHostedSession(server, account);
    const api = applicantApi(server, v.id, v.client_token!);
    const declined = await api.post('/consent', { decision: 'decline' });
    expect(declined.status).toBe(200);
    expect(declined.body).toMatchObject({ state: 'declined', consent: { state: 'declined' } });
    expect(await statusOf(v.id)).toBe('pending');
    const refusals = [
      (await api.post('/email', { email: address() })).body,
      (await api.post('/uploads', { kind: 'selfie', content_type: 'image/png' })).body,
      await agree(api, 409),
    ];
    expect(refusals.map((body) => body.error.code)).toEqual([
      'CONSENT_DECLINED',
      'CONSENT_DECLINED',
      'CONSENT_DECLINED',
    ]);
    const activity = await server.request('/v1/console/activity', { token: account.member.session_token });
    expect(activity.body.data.find((row: any) => row.target_id === v.id)).toMatchObject({
      action: 'consent.declined',
      surface: 'hosted',
      member_id: null,
      target_type: 'verification',
    });
    expect(JSON.stringify(activity.body)).not.toContain('@');

    await server.sql(`update verifications set expires_at = now() - interval '1 second' where id = $1`, [v.id]);
    await expireDueSessions(server.runtime);
    const expired = (await server.request(`/v1/verifications/${v.id}`, { token: sandbox })).body;
    expect(expired).toMatchObject({ status: 'expired', verdict: null, consent: null });
    expect(expired.reason_codes).toContain('CONSENT_DECLINED');
  });

  it('a session that expires without a decline carries no CONSENT_DECLINED', async () => {
    const v = await createHostedSession(server, account);
    await server.sql(`update verifications set expires_at = now() - interval '1 second' where id = $1`, [v.id]);
    await expireDueSessions(server.runtime);
    expect((await server.request(`/v1/verifications/${v.id}`, { token: sandbox })).body.reason_codes).not.toContain(
      'CONSENT_DECLINED',
    );
  });

  it('the branding carries privacy_url (https only, at most 2,048 characters)', async () => {
    const base = {
      name: `Privacy ${++n}`,
      steps: [{ type: 'document' }],
      brand_name: 'Acme Bank',
      support_url: 'https://acme.example/help',
    };
    for (const privacy_url of [
      'http://acme.example/privacy',
      'ftp://acme.example/privacy',
      `https://acme.example/${'p'.repeat(2048)}`,
    ]) {
      const refused = await server.request('/v1/flows', { token: sandbox, body: { ...base, privacy_url } });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({ type: 'invalid_request_error', param: 'privacy_url' });
    }
    const flow = await server.request('/v1/flows', {
      token: sandbox,
      body: { ...base, privacy_url: 'https://acme.example/privacy' },
    });
    expect(flow.status).toBe(201);
    expect(flow.body.privacy_url).toBe('https://acme.example/privacy');
    const v = await createHostedSession(server, account, { checks: undefined, flow: flow.body.id });
    expect((await applicantApi(server, v.id, v.client_token!).session()).body.branding).toEqual({
      brand_name: 'Acme Bank',
      logo_url: null,
      accent_color: null,
      support_url: 'https://acme.example/help',
      privacy_url: 'https://acme.example/privacy',
    });
    // GraphQL holds the same rule.
    const mutation = `mutation($input: CreateFlowInput!) { createFlow(environment: sandbox, input: $input) { privacyUrl } }`;
    const member = account.member.session_token;
    const refused = await server.graphql(member, mutation, {
      input: { name: `Privacy gql ${++n}`, steps: [{ type: 'document' }], privacyUrl: 'http://acme.example/privacy' },
    });
    expect(refused.body.errors?.[0]?.extensions).toMatchObject({ param: 'privacyUrl' });
    const created = await server.graphql(member, mutation, {
      input: { name: `Privacy gql ${++n}`, steps: [{ type: 'document' }], privacyUrl: 'https://acme.example/privacy' },
    });
    expect(created.body.data.createFlow).toEqual({ privacyUrl: 'https://acme.example/privacy' });
  });
});

describe('return_url on the create body (issue 30)', () => {
  const create = (token: string, body: Record<string, unknown>) => server.request('/v1/verifications', { token, body });

  it('is echoed on the verification and handed to the page', async () => {
    const created = await create(sandbox, {
      return_url: 'https://shop.example/after-kyc?order=42',
      sandbox: { outcome: 'pending' },
    });
    expect(created.status).toBe(201);
    expect(created.body.return_url).toBe('https://shop.example/after-kyc?order=42');
    expect((await server.request(`/v1/verifications/${created.body.id}`, { token: sandbox })).body.return_url).toBe(
      'https://shop.example/after-kyc?order=42',
    );
    expect((await applicantApi(server, created.body.id, created.body.client_token).session()).body.return_url).toBe(
      'https://shop.example/after-kyc?order=42',
    );
    expect((await create(sandbox, { sandbox: { outcome: 'pending' } })).body.return_url).toBeNull();
    const local = await create(sandbox, { return_url: 'http://localhost:3000/done', sandbox: { outcome: 'pending' } });
    expect(local.status).toBe(201);
  });

  it.each([
    ['http outside localhost', 'http://shop.example/done', 'sandbox'],
    ['http on localhost in live', 'http://localhost:3000/done', 'live'],
    ['a script URL', 'javascript:alert(1)', 'sandbox'],
    ['a relative path', '/done', 'sandbox'],
    ['credentials', 'https://user:pass@shop.example/done', 'sandbox'],
    ['more than 2,048 characters', `https://shop.example/${'x'.repeat(2040)}`, 'sandbox'],
  ])('refuses %s with 400 and param return_url', async (_name, url, mode) => {
    const res = await create(mode === 'live' ? account.keys.live.secret_key : sandbox, { return_url: url });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      type: 'invalid_request_error',
      code: 'PARAMETER_INVALID',
      param: 'return_url',
      request_id: expect.any(String),
    });
  });
});

describe('sandbox hosted walk without sandbox.document (issue 30)', () => {
  it('reads the specimen and settles approved (the default outcome), not IMAGE_ANALYSIS_UNAVAILABLE', async () => {
    const created = await server.request('/v1/verifications', {
      token: sandbox,
      body: {
        checks: [{ type: 'document' }, { type: 'face_match' }, { type: 'liveness' }],
        sandbox: { outcome: 'pending' },
      },
    });
    const api = applicantApi(server, created.body.id, created.body.client_token);
    await agree(api);
    await upload(api, { kind: 'document', side: 'front', document_type: 'passport', content_type: 'image/png' }, png);
    await upload(api, { kind: 'selfie', content_type: 'image/png' }, png);
    await upload(api, { kind: 'video', content_type: 'video/webm' }, webmBytes());
    expect((await api.post('/submit')).body.state).toBe('submitted');
    const final = await waitFor(
      async () => {
        const read = await server.request(`/v1/verifications/${created.body.id}`, { token: sandbox });
        return read.body.status !== 'processing' && read.body.status !== 'pending' && read.body;
      },
      20_000,
      'the verdict',
    );
    expect(final).toMatchObject({ status: 'approved', verdict: 'approve', reason_codes: [] });
    expect(JSON.stringify(final.checks)).not.toContain('IMAGE_ANALYSIS_UNAVAILABLE');
  });
});

describe('continuing on a phone (issue 30)', () => {
  it("GET handoff answers an SVG QR code of this session's link with its token", async () => {
    const v = await createHostedSession(server, account);
    const res = await applicantApi(server, v.id, v.client_token!).get('/handoff');
    expect(res.status).toBe(200);
    expect(res.body.object).toBe('handoff');
    expect(res.body.qr_svg).toMatch(/^<svg/);
    const expected = await QRCode.toString(`${server.config.publicUrl}/verify/${v.id}#token=${v.client_token}`, {
      type: 'svg',
      errorCorrectionLevel: 'M',
      margin: 2,
      color: { dark: '#000000', light: '#ffffff' },
    });
    expect(res.body.qr_svg).toBe(expected);
    expect((await server.request(`/v1/hosted/verifications/${v.id}/handoff`)).status).toBe(401);
  });
});
