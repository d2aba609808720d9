import type { BootstrapResult } from '../../src/services/access/index.js';
import type { TestServer } from '../support/test-server.js';
import { withTestAccount } from '../support/account.js';
import { waitFor } from '../support/wait.js';

let server: TestServer;
let account: BootstrapResult;
let sandbox: string;
withTestAccount((t) => ({ server, account, sandbox } = t));

const create = (body: Record<string, unknown>, token = sandbox) => server.request('/v1/verifications', { token, body });
const list = (query: string, token = sandbox) => server.request(`/v1/verifications${query}`, { token });

describe('GET /v1/verifications', () => {
  it('filters by email exactly, ignoring case and surrounding whitespace, with no partial or domain matching', async () => {
    const target = await create({ applicant: { email: 'Ada.Lovelace@Example.org' }, sandbox: { outcome: 'pending' } });
    await create({ applicant: { email: 'ada@example.org' }, sandbox: { outcome: 'pending' } });
    const exact = await list(`?email=${encodeURIComponent('  ada.lovelace@EXAMPLE.org ')}`);
    expect(exact.status).toBe(200);
    expect(exact.body.data.map((v: { id: string }) => v.id)).toEqual([target.body.id]);
    for (const partial of ['ada', 'example.org', '@example.org', 'lovelace@example.org']) {
      expect((await list(`?email=${encodeURIComponent(partial)}`)).body.data).toEqual([]);
    }
    const tooLong = await list(`?email=${'a'.repeat(255)}`);
    expect(tooLong.body.error).toMatchObject({ code: 'PARAMETER_INVALID', param: 'email' });
  });

  it('filters by status and lists newest first', async () => {
    const approved = await create({ sandbox: { outcome: 'approved' } });
    await waitFor(
      async () =>
        (await server.request(`/v1/verifications/${approved.body.id}`, { token: sandbox })).body.status === 'approved',
    );
    const res = await list('?status=approved');
    expect(res.body.data.length).toBeGreaterThan(0);
    expect(res.body.data.every((v: { status: string }) => v.status === 'approved')).toBe(true);
    const all = await list('?limit=100');
    const created = all.body.data.map((v: { created_at: string }) => Date.parse(v.created_at));
    expect(created).toEqual([...created].sort((a, b) => b - a));
    expect((await list('?status=done')).body.error).toMatchObject({ code: 'PARAMETER_INVALID', param: 'status' });
  });

  it('each item is the same resource GET /v1/verifications/{id} answers: checks in order, tags, every field', async () => {
    const approved = await create({ sandbox: { outcome: 'approved' } });
    const pending = await create({ applicant: { email: 'list-item@example.org' }, sandbox: { outcome: 'pending' } });
    await waitFor(
      async () =>
        (await server.request(`/v1/verifications/${approved.body.id}`, { token: sandbox })).body.status === 'approved',
    );
    const tag = await server.request('/v1/tags', {
      token: sandbox,
      body: { name: `Listed ${Date.now()}`, color: 'blue' },
    });
    expect(tag.status).toBe(201);
    expect(
      (
        await server.request(`/v1/verifications/${approved.body.id}/tags`, {
          token: sandbox,
          body: { tags: [tag.body.id] },
        })
      ).status,
    ).toBe(200);
    const items = (await list('?limit=100')).body.data as { id: string; checks: unknown[]; tags: unknown[] }[];
    for (const id of [approved.body.id, pending.body.id]) {
      const single = await server.request(`/v1/verifications/${id}`, { token: sandbox });
      const item = items.find((v) => v.id === id);
      expect(item).toEqual(single.body);
      // include= answers the same resource plus what it includes.
      const { applicant, ...throughEntity } = (
        await server.request(`/v1/verifications/${id}?include=applicant`, { token: sandbox })
      ).body;
      expect(applicant).toMatchObject({ object: 'applicant_data' });
      expect(single.body).toEqual(throughEntity);
      expect(item!.checks.length).toBeGreaterThan(0);
    }
    expect(items.find((v) => v.id === approved.body.id)!.tags).toEqual([expect.objectContaining({ id: tag.body.id })]);
  });

  it('walks newest first with limit and starting_after; a cursor from another account is ignored (first page)', async () => {
    for (let i = 0; i < 3; i++) await create({ sandbox: { outcome: 'pending' } });
    const all = (await list('?limit=100')).body.data.map((v: { id: string }) => v.id);
    const walked: string[] = [];
    let query = '?limit=2';
    for (;;) {
      const page = await list(query);
      expect(page.status).toBe(200);
      expect(page.body.data.length).toBeLessThanOrEqual(2);
      walked.push(...page.body.data.map((v: { id: string }) => v.id));
      if (!page.body.has_more) {
        expect(page.body.next_cursor).toBeNull();
        break;
      }
      expect(page.body.next_cursor).toBe(walked[walked.length - 1]);
      query = `?limit=2&starting_after=${page.body.next_cursor}`;
    }
    expect(walked).toEqual(all);
    const other = await server.bootstrap();
    const theirs = await server.request('/v1/verifications', {
      token: other.keys.sandbox.secret_key,
      body: { sandbox: { outcome: 'pending' } },
    });
    const first = await list(`?limit=2&starting_after=${theirs.body.id}`);
    expect(first.body.data.map((v: { id: string }) => v.id)).toEqual(all.slice(0, 2));
  });

  it('a verification of the other environment or another account answers 404', async () => {
    const mine = await create({ sandbox: { outcome: 'pending' } });
    for (const id of ['vs_doesnotexist000000000000', 'not-an-id']) {
      const missing = await server.request(`/v1/verifications/${id}`, { token: sandbox });
      expect(missing.status).toBe(404);
      expect(missing.body.error).toMatchObject({ type: 'not_found_error' });
    }
    const liveRes = await server.request(`/v1/verifications/${mine.body.id}`, { token: account.keys.live.secret_key });
    expect(liveRes.status).toBe(404);
    expect(liveRes.body.error.type).toBe('not_found_error');
    const other = await server.bootstrap();
    expect(
      (await server.request(`/v1/verifications/${mine.body.id}`, { token: other.keys.sandbox.secret_key })).status,
    ).toBe(404);
    expect(
      (await list('', account.keys.live.secret_key)).body.data.find((v: { id: string }) => v.id === mine.body.id),
    ).toBeUndefined();
  });
});

describe('GET /v1/verifications/{id}?include=', () => {
  it('include=applicant returns applicant_data (version 1 read from the document) to a key holding applicant:read', async () => {
    const res = await create({
      applicant: { email: 'grace@example.com' },
      sandbox: {
        outcome: 'approved',
        document: {
          number: 'X99',
          first_name: 'Grace',
          last_name: 'Hopper',
          date_of_birth: '1906-12-09',
          type: 'passport',
          issuing_country: 'USA',
          expiry_date: '2035-01-01',
        },
      },
    });
    const read = await server.request(`/v1/verifications/${res.body.id}?include=applicant,unknown`, { token: sandbox });
    expect(read.status).toBe(200);
    expect(read.body.applicant).toEqual({
      object: 'applicant_data',
      version: 1,
      fields: expect.objectContaining({
        first_name: 'Grace',
        last_name: 'Hopper',
        document_number: 'X99',
        date_of_birth: '1906-12-09',
        email: 'grace@example.com',
      }),
    });
    const plain = await server.request(`/v1/verifications/${res.body.id}`, { token: sandbox });
    expect(plain.body).not.toHaveProperty('applicant');
    expect(JSON.stringify(plain.body)).not.toContain('Grace');
  });

  it('include=applicant or include=documents without applicant:read answers 403, never a silent omission', async () => {
    const res = await create({ sandbox: { outcome: 'pending' } });
    const key = await server.request('/v1/api-keys', {
      token: sandbox,
      body: { name: 'default', environment: 'sandbox' },
    });
    for (const include of ['applicant', 'documents', 'documents,applicant']) {
      const read = await server.request(`/v1/verifications/${res.body.id}?include=${include}`, {
        token: key.body.secret_key,
      });
      expect(read.status).toBe(403);
      expect(read.body.error).toMatchObject({ type: 'permission_error', code: 'INSUFFICIENT_PERMISSIONS' });
    }
    const ignored = await server.request(`/v1/verifications/${res.body.id}?include=bogus`, {
      token: key.body.secret_key,
    });
    expect(ignored.status).toBe(200);
  });

  it('include=documents lists uploaded evidence with short-lived presigned download URLs', async () => {
    const res = await create({ sandbox: { outcome: 'pending' } });
    const up = await server.request(`/v1/verifications/${res.body.id}/uploads`, {
      token: sandbox,
      body: { kind: 'document', content_type: 'image/png', side: 'front' },
    });
    const png = Buffer.from(
      '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000a49444154789c6360000000020001e221bc330000000049454e44ae426082',
      'hex',
    );
    const put = await fetch(up.body.upload_url, { method: 'PUT', body: png, headers: { 'content-type': 'image/png' } });
    expect(put.status).toBe(200);
    await server.request(`/v1/verifications/${res.body.id}/uploads/${up.body.upload_id}/complete`, {
      token: sandbox,
      method: 'POST',
    });
    const read = await server.request(`/v1/verifications/${res.body.id}?include=documents`, { token: sandbox });
    expect(read.body.evidence).toEqual([
      expect.objectContaining({
        id: up.body.upload_id,
        object: 'evidence',
        kind: 'document',
        side: 'front',
        url_expires_in: 300,
      }),
    ]);
    const download = await fetch(read.body.evidence[0].url);
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).equals(png)).toBe(true);
  });
});

describe('hosted_verify_url', () => {
  it('serves the hosted page (a static shell under a strict CSP) with no applicant identity in it', async () => {
    const res = await create({ applicant: { email: 'hidden@example.com' }, sandbox: { outcome: 'pending' } });
    const page = await server.request(new URL(res.body.hosted_verify_url).pathname);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.body).toContain('/verify/assets/app.js');
    expect(page.body).not.toContain('hidden@example.com');
  });
});
