import { buildSchema, parse, validate } from 'graphql';
import { limitRules, MAX_ALIASES, MAX_QUERY_COST, MAX_QUERY_DEPTH } from '../../src/graphql/limits.js';
import type { BootstrapResult } from '../../src/services/access/index.js';
import type { TestServer } from '../support/test-server.js';
import { withTestAccount } from '../support/account.js';

let server: TestServer;
let account: BootstrapResult;
withTestAccount((t) => ({ server, account } = t), { env: { GRAPHQL_RATE_LIMIT_PER_MINUTE: '40' } });

const run = (query: string) => server.graphql(account.member.session_token, query);

describe('GraphQL is bounded (issue 18)', () => {
  it('300 aliases are refused before anything runs, with a clear error (5,000 no longer fit the document limits)', async () => {
    const query = `{ ${Array.from({ length: 300 }, (_, i) => `a${i}: viewer { environments }`).join(' ')} }`;
    const started = performance.now();
    const res = await run(query);
    expect(performance.now() - started).toBeLessThan(3000);
    expect(res.status).toBe(400);
    const errors = res.body.errors!;
    expect(errors).toHaveLength(1);
    expect(errors[0].message).toBe(`The query uses more than ${MAX_ALIASES} aliases.`);
    expect(errors[0].extensions).toMatchObject({ code: 'GRAPHQL_VALIDATION_FAILED', limit: MAX_ALIASES });
    expect(JSON.stringify(res.body).length).toBeLessThan(20_000);
  });

  it('a query whose cost exceeds the limit is refused with its computed cost and the limit', async () => {
    // Three pages of 100 verifications with their checks and tags: well over the cost limit.
    const page = (alias: string, environment: string) =>
      `${alias}: verifications(first: 100, filter: { environment: ${environment} }) { nodes { id status checks { id type status verdict } tags { id name } flow { id name } } }`;
    const res = await run(
      `{ ${['a', 'b', 'c', 'd', 'e'].map((alias, i) => page(alias, i % 2 ? 'live' : 'sandbox')).join(' ')} }`,
    );
    expect(res.status).toBe(400);
    const error = res.body.errors![0];
    expect(error.extensions).toMatchObject({
      code: 'QUERY_TOO_COMPLEX',
      limit: MAX_QUERY_COST,
      type: 'invalid_request_error',
    });
    expect(error.extensions.cost).toBeGreaterThan(MAX_QUERY_COST);
    expect(error.message).toContain(String(error.extensions.cost));
  });

  it('the depth rule refuses a selection nested deeper than the cap on a schema with a cycle', () => {
    // Today's schema has no cycle to nest through; the rule Apollo runs is checked on one that does.
    const cyclic = buildSchema('type Node { id: ID child: Node } type Query { node: Node }');
    const nest = (levels: number) => `{ node { ${'child { '.repeat(levels)}id${' }'.repeat(levels)} } }`;
    expect(validate(cyclic, parse(nest(MAX_QUERY_DEPTH - 2)), limitRules)).toEqual([]);
    const errors = validate(cyclic, parse(nest(MAX_QUERY_DEPTH + 1)), limitRules);
    expect(errors.map((e) => e.message).join()).toMatch(new RegExp(`maximum operation depth of ${MAX_QUERY_DEPTH}`));
  });

  it('an ordinary back-office page stays well within the limits', async () => {
    const res = await run(
      '{ verifications(first: 50) { nodes { id status checks { id type verdict } tags { id name } } pageInfo { hasNextPage } } }',
    );
    expect(res.body.errors).toBeUndefined();
  });

  it('each member has a budget of operations per minute, like a key: 429 with Retry-After once spent', async () => {
    const statuses: number[] = [];
    let last;
    for (let i = 0; i < 45; i++) {
      last = await run('{ viewer { environments } }');
      statuses.push(last.status);
    }
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
    expect(last!.status).toBe(429);
    expect(last!.body.errors![0].extensions).toMatchObject({ code: 'RATE_LIMITED', type: 'rate_limit_error' });
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
