import { buildOpenApiDocument, openApiPath } from '../../src/rest/openapi/document.js';
import { ROUTES } from '../../src/rest/openapi/routes.js';
import { INCLUDE_VALUES } from '../../src/rest/verifications.router.js';
import { flushRequestLog, maskRoute, neutraliseCell } from '../../src/services/logs/index.js';
import type { BootstrapResult } from '../../src/services/access/index.js';
import { createVerification } from '../support/factories.js';
import { capturingLogger } from '../support/logs.js';
import type { TestServer } from '../support/test-server.js';
import { withTestAccount } from '../support/account.js';

let server: TestServer;
let account: BootstrapResult;
let sandbox: string;
const log = capturingLogger('info');
withTestAccount(
  (t) => ({ server, account, sandbox } = t),
  () => ({ logger: log.logger }),
);

const countVerifications = async () =>
  (
    await server.sql<{ n: number }>('select count(*)::int as n from verifications where merchant_id = $1', [
      account.merchant.id,
    ])
  )[0]!.n;

describe('every JSON media type is parsed as JSON (issue 27, item 9)', () => {
  it.each(['application/foo+json', 'application/merge-patch+json', 'application/vnd.api+json; charset=utf-8'])(
    '%s with a form body is 400 INVALID_JSON and creates nothing',
    async (type) => {
      const before = await countVerifications();
      const res = await server.request('/v1/verifications', {
        token: sandbox,
        rawBody: 'status=approved&bogus=1',
        headers: { 'content-type': type },
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code: 'INVALID_JSON' });
      expect(await countVerifications()).toBe(before);
    },
  );

  it('a JSON body sent as application/merge-patch+json is read like application/json', async () => {
    const res = await server.request('/v1/verifications', {
      token: sandbox,
      rawBody: JSON.stringify({ bogus: 1 }),
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'PARAMETER_UNKNOWN', param: 'bogus' });
  });
});

describe('CSV cells are neutralised against formula injection (issue 27, item 12)', () => {
  it.each([
    ['=1+1'],
    ['+1'],
    ['-1'],
    ['@SUM(A1)'],
    ['\t=1'],
    ['\r=1'],
    ['\n=1'],
    [' =HYPERLINK("x")'],
    ['\u00a0=1'],
    ['\u200b=1'],
    ['\ufeff=1'],
    ['\u2060=1'],
    ['\u3000=1'],
    ['\uff1d1+1'],
    ['\uff0b1'],
    ['\uff0d1'],
    ['\uff20SUM(A1)'],
    ['\ufe661'],
    ['\u22121'],
  ])('%j gets a leading apostrophe', (cell) => {
    expect(neutraliseCell(cell)).toBe(`'${cell}`);
  });

  it('ordinary text is left alone', () => {
    for (const cell of ['Ada Lovelace', 'vs_abc', 'approved', 'a=b', '1-2', ''])
      expect(neutraliseCell(cell)).toBe(cell);
  });
});

describe('identifiers that look like secrets or emails are masked in the request log and the access line (issue 27, item 13)', () => {
  const email = 'grace.hopper@example.com';

  it('a refused call with starting_after=<email> and a secret in the path are stored masked', async () => {
    const secret = account.keys.live.secret_key;
    const refused = await server.request(`/v1/verifications?starting_after=${encodeURIComponent(email)}`, {
      token: sandbox,
      headers: { 'x-request-id': 'mask-cursor' },
    });
    expect(refused.status).toBe(400);
    const missing = await server.request(`/v1/verifications/${secret}`, {
      token: sandbox,
      headers: { 'x-request-id': 'mask-secret' },
    });
    expect(missing.status).toBe(404);
    const lowercase = await server.request(`/v1/verifications/sk_test_${'a'.repeat(32)}`, {
      token: sandbox,
      headers: { 'x-request-id': 'mask-lower' },
    });
    expect(lowercase.status).toBe(404);
    await flushRequestLog(server.runtime);
    const rows = await server.sql<{ request_id: string; route: string }>(
      `select request_id, route from request_logs where request_id like 'mask-%' order by request_id`,
    );
    expect(rows).toEqual([
      { request_id: 'mask-cursor', route: '/v1/verifications?starting_after=***' },
      { request_id: 'mask-lower', route: '/v1/verifications/***' },
      { request_id: 'mask-secret', route: '/v1/verifications/***' },
    ]);
    expect(await server.sql(`select id from request_logs where route like '%@%' or route like '%sk\\_%'`)).toEqual([]);
  });

  it('ids, enums and dates stay readable', () => {
    expect(
      maskRoute(
        '/v1/verifications/vs_abcDEF123',
        'include=applicant,documents&starting_after=vs_X1&since=2026-11-01T00:00:00Z&limit=5',
      ),
    ).toBe(
      '/v1/verifications/vs_abcDEF123?include=applicant%2Cdocuments&starting_after=vs_X1&since=2026-11-01T00%3A00%3A00Z&limit=5',
    );
    expect(maskRoute('/v1/webhooks/whe_1/rotate_secret', '')).toBe('/v1/webhooks/whe_1/rotate_secret');
    expect(maskRoute('/v1/x/mst_' + 'A'.repeat(40), 'status=' + encodeURIComponent(email))).toBe(
      '/v1/x/***?status=***',
    );
  });

  it('the stdout access line never carries an email or a secret typed into a path', async () => {
    log.lines.length = 0;
    await server.request(`/v1/verifications/${encodeURIComponent(email)}`, { token: sandbox });
    await server.request(`/v1/console/verifications/${email}`, { token: account.member.session_token });
    await server.request(`/v1/verifications/${account.keys.live.secret_key}`, { token: sandbox });
    const access = log.lines.filter((line) => line.includes('"msg":"request"'));
    expect(access.length).toBeGreaterThanOrEqual(3);
    const text = log.lines.join('\n');
    expect(text).not.toContain('grace.hopper');
    expect(text).not.toContain(account.keys.live.secret_key);
    expect(text).toContain('"path":"/v1/verifications/***"');
  });
});

describe('documented query parameter values are the ones the routes accept (issue 27, item 15)', () => {
  type Param = {
    name: string;
    in: string;
    schema?: { enum?: string[]; items?: { enum?: string[] } };
    description?: string;
  };
  const doc = buildOpenApiDocument() as unknown as {
    paths: Record<string, Record<string, { summary: string; parameters?: Param[] }>>;
  };

  const enumOf = (param: Param) => param.schema?.enum ?? param.schema?.items?.enum;
  /** The values a parameter documents: its enum, or the backticked list after "list of:" in its description. */
  const documentedValues = (param: Param): string[] | undefined => {
    const values = enumOf(param);
    if (values) return values.map(String);
    const list = /list of: (.*)$/.exec(param.description ?? '')?.[1];
    return list ? [...list.matchAll(/`([^`]+)`/g)].map((m) => m[1]!) : undefined;
  };

  const operations = ROUTES.filter((route) => route.method === 'get' && route.auth === 'key').map((route) => ({
    route,
    operation: doc.paths[openApiPath(route.path)]![route.method]!,
  }));

  it('every name=value a summary mentions is a documented value of that query parameter', () => {
    const problems: string[] = [];
    for (const { route, operation } of ROUTES.map((r) => ({
      route: r,
      operation: doc.paths[openApiPath(r.path)]![r.method]!,
    }))) {
      for (const [, name, values] of operation.summary.matchAll(/\b([a-z_]+)=([a-z_,]+)/g)) {
        const param = operation.parameters?.find((p) => p.in === 'query' && p.name === name);
        const documented = param ? documentedValues(param) : undefined;
        for (const value of values!.split(',')) {
          if (!documented?.includes(value))
            problems.push(
              `${route.method.toUpperCase()} ${route.path}: summary names ${name}=${value}, documented: ${documented?.join(',') ?? 'none'}`,
            );
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it("each documented value of a key route's query parameter is accepted; an enum refuses an undocumented one with 400 naming it", async () => {
    const v = await createVerification(server, account);
    const ids: Record<string, string> = { id: v.id };
    const problems: string[] = [];
    let checked = 0;
    for (const { route, operation } of operations) {
      const path = route.path.replace(/:([a-z_]+)/g, (_, name: string) => ids[name] ?? 'unknown');
      if (path.includes('unknown')) continue;
      for (const param of operation.parameters ?? []) {
        if (param.in !== 'query') continue;
        const values = documentedValues(param);
        if (!values) continue;
        for (const value of values) {
          checked++;
          const res = await server.request(`${path}?${param.name}=${encodeURIComponent(value)}`, { token: sandbox });
          if (res.status === 400 && res.body.error?.param === param.name)
            problems.push(`${route.path} refuses documented ${param.name}=${value}: ${res.body.error.message}`);
        }
        // A list like include= ignores what it does not know (verifications-read.test.ts); an enum refuses it.
        if (!enumOf(param)) continue;
        const bogus = await server.request(`${path}?${param.name}=not_a_documented_value`, { token: sandbox });
        if (bogus.status !== 400 || bogus.body.error?.param !== param.name)
          problems.push(`${route.path} accepts undocumented ${param.name}=not_a_documented_value (${bogus.status})`);
      }
    }
    expect(checked).toBeGreaterThan(5);
    // include= lists exactly what the route reads.
    const include = doc.paths['/v1/verifications/{id}']!.get!.parameters!.find((p) => p.name === 'include')!;
    expect(documentedValues(include)).toEqual([...INCLUDE_VALUES]);
    expect(problems).toEqual([]);
  });
});
