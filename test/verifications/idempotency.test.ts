import { createHash } from 'node:crypto';
import type { TestServer } from '../support/test-server.js';
import { withTestAccount } from '../support/account.js';

let server: TestServer;
let token: string;
withTestAccount((t) => ({ server, sandbox: token } = t));

const create = (body: Record<string, unknown>, key?: string, as = token) =>
  server.request('/v1/verifications', { token: as, body, headers: key ? { 'idempotency-key': key } : {} });
const countWithMetadata = async (tag: string) =>
  (await server.sql(`select count(*)::int as n from verifications where metadata->>'tag' = $1`, [tag]))[0].n;

describe('Idempotency-Key on POST /v1/verifications', () => {
  it('a retry with the same key and body replays the original response with Idempotency-Replayed: true', async () => {
    const body = { metadata: { tag: 'replay' }, sandbox: { outcome: 'pending' } };
    const first = await create(body, 'key-replay-1');
    const second = await create(body, 'key-replay-1');
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(first.headers.get('idempotency-replayed')).toBe('false');
    expect(second.headers.get('idempotency-replayed')).toBe('true');
    expect(second.body).toEqual(first.body);
    expect(await countWithMetadata('replay')).toBe(1);
  });

  it('the key row keeps a keyed HMAC of the body, never a plain SHA-256 a guessed email could be checked against', async () => {
    const body = { applicant: { email: 'guess-me@example.com', reference_id: 'cust-guess' } };
    expect((await create(body, 'key-hmac-1')).status).toBe(201);
    const [row] = await server.sql(`select request_hash from idempotency_keys where key = $1`, ['key-hmac-1']);
    const canonical = JSON.stringify({ applicant: { email: 'guess-me@example.com', reference_id: 'cust-guess' } });
    const plain = createHash('sha256').update(canonical).digest('hex');
    expect(row.request_hash).toMatch(/^h1:[0-9a-f]{64}$/);
    expect(row.request_hash).not.toContain(plain);
    // The keyed digest still recognises the same request, and tells a different one apart.
    expect((await create(body, 'key-hmac-1')).headers.get('idempotency-replayed')).toBe('true');
    expect(
      (await create({ applicant: { email: 'other@example.com', reference_id: 'cust-guess' } }, 'key-hmac-1')).status,
    ).toBe(409);
  });

  it('the same key with a different body answers 409 idempotency_error', async () => {
    await create({ metadata: { tag: 'diff-a' } }, 'key-diff-1');
    const res = await create({ metadata: { tag: 'diff-b' } }, 'key-diff-1');
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ type: 'idempotency_error', code: 'IDEMPOTENCY_KEY_REUSED' });
    expect(await countWithMetadata('diff-b')).toBe(0);
  });

  it('keys are scoped to the API key: another key may reuse the same value', async () => {
    const other = await server.request('/v1/api-keys', { token, body: { name: 'second', environment: 'sandbox' } });
    const a = await create({ metadata: { tag: 'scoped' } }, 'shared-key');
    const b = await create({ metadata: { tag: 'scoped' } }, 'shared-key', other.body.secret_key);
    expect(a.body.id).not.toBe(b.body.id);
    expect(b.headers.get('idempotency-replayed')).toBe('false');
  });

  it('concurrent identical requests create exactly one verification; the others replay it or answer 409 in use', async () => {
    for (let round = 0; round < 3; round++) {
      const tag = `concurrent-${round}`;
      const responses = await Promise.all(
        Array.from({ length: 10 }, () => create({ metadata: { tag }, sandbox: { outcome: 'pending' } }, `key-${tag}`)),
      );
      expect(await countWithMetadata(tag)).toBe(1);
      const created = responses.filter((r) => r.status === 201);
      expect(new Set(created.map((r) => r.body.id)).size).toBe(1);
      for (const r of responses.filter((r) => r.status !== 201)) {
        expect(r.status).toBe(409);
        expect(r.body.error).toMatchObject({ type: 'idempotency_error', code: 'IDEMPOTENCY_KEY_IN_USE' });
      }
      expect(
        responses.filter((r) => r.headers.get('idempotency-replayed') === 'false' && r.status === 201),
      ).toHaveLength(1);
    }
  });

  it('a key longer than 255 characters is refused; a validation failure is replayed, not re-run', async () => {
    const long = await create({}, 'k'.repeat(256));
    expect(long.status).toBe(400);
    expect(long.body.error).toMatchObject({ code: 'PARAMETER_INVALID', param: 'Idempotency-Key' });
    expect((await create({}, 'k'.repeat(255))).status).toBe(201);
    const bad = await create({ locale: 'zz-not-a-locale-x' }, 'key-bad');
    const again = await create({ locale: 'zz-not-a-locale-x' }, 'key-bad');
    expect(bad.status).toBe(400);
    expect(again.status).toBe(400);
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(again.body).toEqual(bad.body);
  });

  it('the stored answer never holds the client_token in clear, and the replay still returns it', async () => {
    const body = { metadata: { tag: 'sealed' }, sandbox: { outcome: 'pending' } };
    const first = await create(body, 'key-sealed-1');
    expect(first.body.client_token).toMatch(/^vct_/);
    const [row] = await server.sql(
      `select response_body::text as body from idempotency_keys where key = 'key-sealed-1'`,
    );
    expect(row.body).not.toContain(first.body.client_token);
    expect(row.body).not.toContain(first.body.id);
    const replay = await create(body, 'key-sealed-1');
    expect(replay.body.client_token).toBe(first.body.client_token);
  });

  it('the cleanup job deletes expired keys and keeps live ones', async () => {
    await create({ metadata: { tag: 'old' }, sandbox: { outcome: 'pending' } }, 'key-old-1');
    await create({ metadata: { tag: 'new' }, sandbox: { outcome: 'pending' } }, 'key-new-1');
    await server.sql(`update idempotency_keys set expires_at = now() - interval '1 minute' where key = 'key-old-1'`);
    await server.runtime.jobs.now('idempotency-keys.cleanup', {});
    const deadline = Date.now() + 15_000;
    let keys: string[] = [];
    while (Date.now() < deadline) {
      keys = (await server.sql(`select key from idempotency_keys where key in ('key-old-1', 'key-new-1')`)).map(
        (r) => r.key,
      );
      if (!keys.includes('key-old-1')) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(keys).toEqual(['key-new-1']);
  });
});
