import { MAX_JSON_DEPTH, pathOfNulCharacter } from '../../src/http/body.js';
import type { BootstrapResult } from '../../src/services/access/index.js';
import { withConnection } from '../../src/services/shared/index.js';
import { withTestAccount } from '../support/account.js';
import type { TestServer } from '../support/test-server.js';

// Apollo includes stack traces outside NODE_ENV test/production; serve as a developer would run it.
process.env.NODE_ENV = 'development';

let server: TestServer;
let account: BootstrapResult;
let sandbox: string;

withTestAccount((t) => ({ server, account, sandbox } = t));

/** `{"a":{"a":...}}` nested `depth` levels deep. */
const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

const countVerifications = async () =>
  (
    await withConnection(server.runtime.orm, (sql) =>
      sql.query<{ n: number }>('select count(*)::int as n from verifications where merchant_id = $1', [
        account.merchant.id,
      ]),
    )
  )[0]!.n;

describe('bad input is never a 500 (issue 18)', () => {
  it('a body nested deeper than the cap is 400 PARAMETER_INVALID naming the depth, before authentication, on /v1 and /graphql', async () => {
    const deep = nested(100_000);
    for (const path of ['/v1/verifications', '/graphql']) {
      const res = await server.request(path, { rawBody: deep });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code: 'PARAMETER_INVALID', param: 'body' });
      expect(res.body.error.message).toContain(String(MAX_JSON_DEPTH));
    }
    // Just under the cap is parsed and reaches validation as usual.
    const fine = await server.request('/v1/verifications', {
      token: sandbox,
      rawBody: `{"metadata":${nested(MAX_JSON_DEPTH - 1)}}`,
    });
    expect(fine.status).toBe(400);
    expect(fine.body.error.param).toMatch(/^metadata/);
  });

  it('the NUL-character scan walks a deep value without recursion', () => {
    let value: unknown = 'x\u0000';
    for (let i = 0; i < 200_000; i++) value = [value];
    expect(pathOfNulCharacter(value)).toMatch(/^\[0\]/);
    expect(pathOfNulCharacter({ a: [{ b: 'ok' }, { c: 'no\u0000' }] })).toBe('a[1].c');
    expect(pathOfNulCharacter({ ['k\u0000ey']: 1 })).toBe('key');
  });

  it('a write whose body is not JSON is 415 UNSUPPORTED_MEDIA_TYPE and creates nothing; an empty body stays allowed', async () => {
    const before = await countVerifications();
    const form = await server.request('/v1/verifications', {
      token: sandbox,
      rawBody: 'status=approved&bogus=1',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(415);
    expect(form.body.error).toMatchObject({ type: 'invalid_request_error', code: 'UNSUPPORTED_MEDIA_TYPE' });
    const text = await server.request('/v1/verifications', {
      token: sandbox,
      rawBody: '{}',
      headers: { 'content-type': 'text/plain' },
    });
    expect(text.status).toBe(415);
    expect(await countVerifications()).toBe(before);
    const empty = await server.request('/v1/verifications', {
      token: sandbox,
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
    });
    expect(empty.status).toBe(201);
  });

  it('PUT on an existing path is 405 METHOD_NOT_ALLOWED with Allow; an unknown path stays 404', async () => {
    const res = await server.request('/v1/verifications', { token: sandbox, method: 'PUT', body: {} });
    expect(res.status).toBe(405);
    expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code: 'METHOD_NOT_ALLOWED' });
    expect(res.headers.get('allow')).toContain('POST');
    expect(res.headers.get('allow')).toContain('GET');
    const unknown = await server.request('/v1/nothing-here', { token: sandbox, method: 'PUT', body: {} });
    expect(unknown.status).toBe(404);
  });
});

describe('headers on every answer (issue 18)', () => {
  it('nosniff everywhere, no-store on API answers (they may carry tokens, secrets or identity)', async () => {
    const created = await server.request('/v1/verifications', { token: sandbox, body: {} });
    expect(created.body.client_token).toEqual(expect.any(String));
    expect(created.headers.get('cache-control')).toBe('no-store');
    expect(created.headers.get('x-content-type-options')).toBe('nosniff');
    const failed = await server.request('/v1/verifications', { token: 'sk_test_wrong' });
    expect(failed.headers.get('cache-control')).toBe('no-store');
    expect(failed.headers.get('x-content-type-options')).toBe('nosniff');
    const health = await server.request('/healthz');
    expect(health.headers.get('x-content-type-options')).toBe('nosniff');
    expect(health.headers.get('strict-transport-security')).toBeNull();
  });
});

describe('GraphQL answers carry no stack trace (issue 18)', () => {
  it('a syntax error, an unknown field and a failing resolver answer without extensions.stacktrace or server paths', async () => {
    const token = account.member.session_token;
    for (const query of ['{ viewer {', '{ noSuchField }', '{ verification(id: "vs_missing") { id } }']) {
      const res = await server.graphql(token, query);
      const text = JSON.stringify(res.body);
      expect(res.body.errors?.length).toBeGreaterThan(0);
      expect(text).not.toContain('stacktrace');
      expect(text).not.toMatch(/\/work\/|node_modules|\.ts:\d+/);
    }
  });

  it('a malformed after cursor is 400-like PARAMETER_INVALID naming after, as REST answers', async () => {
    const res = await server.graphql(
      account.member.session_token,
      '{ verifications(after: "not-a-cursor") { nodes { id } } }',
    );
    expect(res.body.errors?.[0].extensions).toMatchObject({
      code: 'PARAMETER_INVALID',
      param: 'after',
      type: 'invalid_request_error',
    });
    const rest = await server.request('/v1/verifications?starting_after=not-a-cursor', { token: sandbox });
    expect(rest.status).toBe(400);
    expect(rest.body.error).toMatchObject({ code: 'PARAMETER_INVALID', param: 'starting_after' });
  });
});

describe('tag names (issue 18)', () => {
  it('a name made only of zero-width characters is refused', async () => {
    for (const name of ['\u200b', '\u200b\u200c\u200d', ' \ufeff ']) {
      const res = await server.request('/v1/tags', { token: sandbox, body: { name } });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'PARAMETER_INVALID', param: 'name' });
    }
  });
});
