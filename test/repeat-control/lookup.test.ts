import { createHash } from 'node:crypto';
import pg from 'pg';
import { seedRandom } from '../../bench/lookup-seed.js';
import type { BootstrapResult } from '../../src/services/access/index.js';
import { LOOKUP_SQL, lookupParams, pgTextArray } from '../../src/services/repeat-control/index.js';
import { rawSqlOf } from '../../src/services/shared/index.js';
import type { TestServer } from '../support/test-server.js';
import { withTestAccount } from '../support/account.js';
import { waitFor } from '../support/wait.js';

let server: TestServer;
let account: BootstrapResult;
let sandbox: string;
withTestAccount((t) => ({ server, account, sandbox } = t), { env: { RATE_LIMIT_PER_MINUTE: '100' } });

const lookup = (emails: unknown, token = sandbox) =>
  server.request('/v1/verifications/lookup', { token, body: { emails } });
const create = (body: Record<string, unknown>, token = sandbox) => server.request('/v1/verifications', { token, body });
const read = (id: string, token = sandbox) => server.request(`/v1/verifications/${id}`, { token });

/** Creates a sandbox verification and waits until it reaches `status`. */
async function createSettled(email: string, outcome: 'approved' | 'rejected' | 'pending', token = sandbox) {
  const res = await create({ applicant: { email }, sandbox: { outcome } }, token);
  expect(res.status).toBe(201);
  const status = outcome === 'pending' ? 'pending' : outcome;
  return waitFor(
    async () => {
      const v = await read(res.body.id, token);
      return v.body.status === status ? v.body : undefined;
    },
    15_000,
    `${res.body.id} ${status}`,
  );
}

const unique = (name: string) => `${name}.${Math.random().toString(36).slice(2, 10)}@example.org`;

describe('POST /v1/verifications/lookup', () => {
  let ada: string;
  let bob: string;
  let adaRejected: any;
  let adaApproved: any;
  let bobFirst: any;
  let bobSecond: any;

  beforeAll(async () => {
    ada = unique('Ada');
    bob = unique('bob');
    adaRejected = await createSettled(ada, 'rejected');
    adaApproved = await createSettled(ada.toUpperCase(), 'approved');
    bobFirst = await createSettled(bob, 'pending');
    bobSecond = await createSettled(bob.toUpperCase(), 'pending');
  });

  it('answers one row per input in input order, echoed verbatim, ignoring case and surrounding whitespace', async () => {
    const inputs = [`  ${ada.toUpperCase()} `, 'nobody@example.org', bob, ada, `  ${ada.toUpperCase()} `];
    const res = await lookup(inputs);
    expect(res.status).toBe(200);
    expect(res.body.object).toBe('list');
    expect(res.body.mode).toBe('sandbox');
    expect(res.body.data.map((r: { email: string }) => r.email)).toEqual(inputs);
    const [adaRow, nobody, bobRow, adaAgain, duplicate] = res.body.data;
    expect(adaRow).toEqual({
      object: 'verification_lookup',
      email: inputs[0],
      found: true,
      attempts: 2,
      ever_approved: true,
      first_attempt_at: adaRejected.created_at,
      latest: {
        id: adaApproved.id,
        status: 'approved',
        verdict: adaApproved.verdict,
        score: adaApproved.score,
        reason_codes: adaApproved.reason_codes,
        flow: adaApproved.flow,
        mode: 'sandbox',
        created_at: adaApproved.created_at,
        updated_at: (await read(adaApproved.id)).body.updated_at,
        expires_at: adaApproved.expires_at ?? null,
      },
    });
    expect(duplicate).toEqual(adaRow);
    expect({ ...adaAgain, email: inputs[0] }).toEqual(adaRow);
    expect(nobody).toEqual({
      object: 'verification_lookup',
      email: 'nobody@example.org',
      found: false,
      attempts: 0,
      ever_approved: false,
      first_attempt_at: null,
      latest: null,
    });
    expect(bobRow).toMatchObject({
      found: true,
      attempts: 2,
      ever_approved: false,
      first_attempt_at: bobFirst.created_at,
    });
    expect(bobRow.latest.id).toBe(bobSecond.id);
    // No identity anywhere in the answer beyond the echoed inputs.
    const withoutEchoes = JSON.stringify(
      res.body.data.map((r: Record<string, unknown>) => ({ ...r, email: undefined })),
    );
    expect(withoutEchoes.toLowerCase()).not.toContain('example.org');
    expect(withoutEchoes).not.toMatch(/applicant|identity|fingerprint/);
  });

  it('does not match partial addresses or domains', async () => {
    const [local, domain] = ada.split('@');
    const res = await lookup([local, `@${domain}`, domain, ada.slice(1)]);
    expect(res.body.data.every((r: { found: boolean }) => !r.found)).toBe(true);
  });

  it("counts only the calling key's environment and account", async () => {
    const other = await server.bootstrap();
    await createSettled(ada, 'approved', other.keys.sandbox.secret_key);
    await createSettled(bob, 'pending', other.keys.sandbox.secret_key);
    const live = await create({ applicant: { email: bob } }, account.keys.live.secret_key);
    expect(live.status).toBe(201);

    const mine = await lookup([ada, bob]);
    expect(mine.body.data.map((r: { attempts: number }) => r.attempts)).toEqual([2, 2]);
    expect(mine.body.data[1].latest.id).toBe(bobSecond.id);

    const liveRes = await lookup([ada, bob], account.keys.live.secret_key);
    expect(liveRes.status).toBe(200);
    expect(liveRes.body.mode).toBe('live');
    expect(liveRes.body.data[0]).toMatchObject({ found: false, attempts: 0, latest: null });
    expect(liveRes.body.data[1]).toMatchObject({ found: true, attempts: 1, ever_approved: false });
    expect(liveRes.body.data[1].latest).toMatchObject({ id: live.body.id, mode: 'live' });

    const theirs = await lookup([ada, bob], other.keys.sandbox.secret_key);
    expect(theirs.body.data.map((r: { attempts: number }) => r.attempts)).toEqual([1, 1]);
    expect(theirs.body.data[0].ever_approved).toBe(true);
    expect(theirs.body.data[0].latest.id).not.toBe(adaApproved.id);
  });

  it('a verification whose fingerprint was removed by retention is not found', async () => {
    const email = unique('purged');
    const v = await createSettled(email, 'pending');
    expect((await lookup([email])).body.data[0].found).toBe(true);
    await server.sql(
      `update verifications set email_fingerprint = null, identity = null, retention_purged_at = now() where id = $1`,
      [v.id],
    );
    expect((await lookup([email])).body.data[0]).toMatchObject({ found: false, attempts: 0, latest: null });
  });

  it('answers 1,000 addresses in input order', async () => {
    const fresh = await server.bootstrap();
    const key = fresh.keys.sandbox.secret_key;
    const knownEmail = unique('known');
    const known = await createSettled(knownEmail, 'pending', key);
    const emails = Array.from({ length: 1000 }, (_, i) => `person${i}@example.net`);
    emails[0] = knownEmail;
    emails[500] = knownEmail.toUpperCase();
    emails[999] = ` ${knownEmail}`;
    const res = await lookup(emails, key);
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(1000);
    expect(res.body.data.map((r: { email: string }) => r.email)).toEqual(emails);
    const found = res.body.data.flatMap((r: { found: boolean }, i: number) => (r.found ? [i] : []));
    expect(found).toEqual([0, 500, 999]);
    expect(res.body.data[999].latest.id).toBe(known.id);
  });

  it('read-only keys holding verification:read may call it; keys without it get 403', async () => {
    const ro = await server.request('/v1/api-keys', {
      token: sandbox,
      body: { name: 'ro', environment: 'sandbox', access: 'read_only', permissions: ['verification:read'] },
    });
    expect(ro.status).toBe(201);
    const res = await lookup([ada], ro.body.secret_key);
    expect(res.status).toBe(200);
    expect(res.body.data[0].found).toBe(true);
    const noRead = await server.request('/v1/api-keys', {
      token: sandbox,
      body: { name: 'nr', environment: 'sandbox', permissions: ['settings:read'] },
    });
    expect(noRead.status).toBe(201);
    const refused = await lookup([ada], noRead.body.secret_key);
    expect(refused.status).toBe(403);
    expect(refused.body.error.type).toBe('permission_error');
  });

  it('validates emails: 1 to 1,000 strings of at most 1,000 characters; a longer-than-an-address entry still gets its row, found false', async () => {
    const fresh = (await server.bootstrap()).keys.sandbox.secret_key;
    const cases: [unknown, string, string][] = [
      [[], 'PARAMETER_INVALID', 'emails'],
      [Array.from({ length: 1001 }, (_, i) => `a${i}@example.org`), 'PARAMETER_INVALID', 'emails'],
      [['a@example.org', 'b@example.org', 42], 'PARAMETER_INVALID', 'emails[2]'],
      [['a@example.org', null], 'PARAMETER_INVALID', 'emails[1]'],
      [[`${'a'.repeat(1000)}@x.io`], 'PARAMETER_INVALID', 'emails[0]'],
      ['a@example.org', 'PARAMETER_INVALID', 'emails'],
    ];
    for (const [emails, code, param] of cases) {
      const res = await lookup(emails, fresh);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code, param });
    }
    const long = `${'a'.repeat(250)}@x.io`;
    const rows = await lookup(['a@example.org', long], fresh);
    expect(rows.status).toBe(200);
    expect(rows.body.data.map((r: { email: string; found: boolean }) => [r.email, r.found])).toEqual([
      ['a@example.org', false],
      [long, false],
    ]);
    const missing = await server.request('/v1/verifications/lookup', { token: fresh, body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: 'PARAMETER_MISSING', param: 'emails' });
    const unknown = await server.request('/v1/verifications/lookup', {
      token: fresh,
      body: { emails: ['a@b.c'], extra: 1 },
    });
    expect(unknown.body.error).toMatchObject({ code: 'PARAMETER_UNKNOWN', param: 'extra' });
    expect((await lookup([`${'a'.repeat(242)}@example.org`], fresh)).status).toBe(200);
  });

  it('costs 1 token per 50 addresses, rounded up (RateLimit-Remaining)', async () => {
    const key = (await server.bootstrap()).keys.sandbox.secret_key;
    const remaining = (res: { headers: Headers }) => Number(res.headers.get('ratelimit-remaining'));
    const first = await lookup(['a@example.org'], key);
    expect(first.headers.get('ratelimit-limit')).toBe('100');
    const start = remaining(first);
    expect(start).toBe(99);
    // The bucket refills 100 tokens a minute, so a slow machine gets some back between calls:
    // each call's drop is its cost less at most what refilled while it ran (ceil, per started token).
    let before = start;
    for (const [count, cost] of [
      [1000, 20],
      [51, 2],
      [50, 1],
    ] as const) {
      const sent = Date.now();
      const res = await lookup(
        Array.from({ length: count }, (_, i) => `c${count}-${i}@example.org`),
        key,
      );
      expect(res.status).toBe(200);
      const refilled = Math.ceil(((Date.now() - sent) * 100) / 60_000);
      const drop = before - remaining(res);
      expect(drop).toBeLessThanOrEqual(cost);
      expect(drop).toBeGreaterThanOrEqual(cost - refilled);
      before = remaining(res);
    }
  });
});

describe('the batch SQL', () => {
  it('takes the fingerprints as one text[] literal, not a list expanded by the driver', async () => {
    const fps = ['ab', 'cd', 'ab'];
    expect(pgTextArray(fps)).toBe('{ab,cd,ab}');
    expect(() => pgTextArray(["x',y"])).toThrow();
    const rows = await rawSqlOf(server.runtime.orm.em).query<{ fp: string; attempts: number }>(
      LOOKUP_SQL,
      lookupParams(fps, account.merchant.id, 'sandbox'),
    );
    expect(rows.map((r: { fp: string }) => r.fp)).toEqual(fps);
    expect(rows.every((r: { attempts: number }) => r.attempts === 0)).toBe(true);
  });

  it('uses the (merchant_id, mode, email_fingerprint) index once the account holds many verifications', async () => {
    const fresh = await server.bootstrap();
    const template = await createSettled(unique('template'), 'pending', fresh.keys.sandbox.secret_key);
    const client = new pg.Client({ connectionString: server.databaseUrl });
    await client.connect();
    try {
      expect(await seedRandom(client, template.id, 5000)).toBe(5000);
      await client.query('analyze verifications');
      const text = LOOKUP_SQL;
      const fps = Array.from({ length: 1000 }, (_, i) => createHash('sha256').update(String(i)).digest('hex'));
      const plan = await client.query(`explain ${text}`, lookupParams(fps, fresh.merchant.id, 'sandbox'));
      expect(plan.rows.map((r) => r['QUERY PLAN']).join('\n')).toMatch(/email_fingerprint_index/);
    } finally {
      await client.end();
    }
  });
});

describe('503 LOOKUP_UNAVAILABLE', () => {
  it('answers 503 when the database cannot answer, never an empty result', async () => {
    const email = unique('down');
    await createSettled(email, 'pending');
    await server.sql('alter table verifications rename to verifications_away');
    let res;
    try {
      res = await lookup([email]);
    } finally {
      await server.sql('alter table verifications_away rename to verifications');
    }
    expect(res.status).toBe(503);
    expect(res.body.error).toMatchObject({ type: 'api_error', code: 'LOOKUP_UNAVAILABLE' });
    expect(res.body).not.toHaveProperty('data');
    expect((await lookup([email])).body.data[0].found).toBe(true);
  });

  it('answers 503 when the statement times out (a lock held on verifications)', async () => {
    const client = new pg.Client({ connectionString: server.databaseUrl });
    await client.connect();
    let res;
    const started = Date.now();
    try {
      await client.query('begin');
      await client.query('lock table verifications in access exclusive mode');
      res = await lookup(['late@example.org']);
    } finally {
      await client.query('rollback');
      await client.end();
    }
    expect(Date.now() - started).toBeLessThan(9000);
    expect(res.status).toBe(503);
    expect(res.body.error).toMatchObject({ type: 'api_error', code: 'LOOKUP_UNAVAILABLE' });
    expect((await lookup(['late@example.org'])).status).toBe(200);
  }, 20_000);
});
