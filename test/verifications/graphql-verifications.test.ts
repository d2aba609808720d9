import type { LogContext } from '@mikro-orm/core';
import type { BootstrapResult } from '../../src/services/access/index.js';
import {
  VerificationDocument,
  VerificationIdsDocument,
  VerificationsDocument,
  VerificationTypeFieldsDocument,
} from '../graphql/generated.js';
import { gql } from '../support/graphql.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { waitFor } from '../support/wait.js';

let server: TestServer;
/** A second app on the same database that works no jobs: every SQL statement it runs is a request's. */
let reader: TestServer;
let account: BootstrapResult;
let other: BootstrapResult;
let token: string;

const OUTCOMES = ['approved', 'rejected', 'review'] as const;
const SANDBOX_COUNT = 50;
const sandboxIds: string[] = [];
const liveIds: string[] = [];
let emailId: string;
let otherId: string;

const create = (key: string, body: Record<string, unknown>) =>
  server.request('/v1/verifications', { token: key, body });

async function createSandboxVerifications(): Promise<void> {
  const key = account.keys.sandbox.secret_key;
  for (let i = 0; i < SANDBOX_COUNT; i++) {
    const res = await create(key, { sandbox: { outcome: OUTCOMES[i % OUTCOMES.length] }, metadata: { n: String(i) } });
    expect(res.status).toBe(201);
    sandboxIds.push(res.body.id);
  }
}

async function tagSome(): Promise<void> {
  const key = account.keys.sandbox.secret_key;
  for (const [i, id] of sandboxIds.entries()) {
    const names = [...(i % 3 === 0 ? ['VIP'] : []), ...(i % 5 === 0 ? ['Fraud watch'] : [])];
    if (names.length)
      expect((await server.request(`/v1/verifications/${id}/tags`, { token: key, body: { names } })).status).toBe(200);
  }
}

beforeAll(async () => {
  server = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '10000' } });
  reader = await startTestServer({ databaseUrl: server.databaseUrl, workJobs: false });
  account = await server.bootstrap();
  other = await server.bootstrap();
  token = account.member.session_token;
  await createSandboxVerifications();
  for (let i = 0; i < 2; i++) liveIds.push((await create(account.keys.live.secret_key, {})).body.id);
  emailId = (await create(account.keys.live.secret_key, { applicant: { email: 'Jane.Doe@Example.com' } })).body.id;
  liveIds.push(emailId);
  otherId = (await create(other.keys.sandbox.secret_key, { sandbox: { outcome: 'approved' } })).body.id;
  await waitFor(
    async () => {
      const [row] = await server.sql(
        `select count(*)::int as n from verifications where mode = 'sandbox' and status in ('pending', 'processing')`,
      );
      return row.n === 0;
    },
    60_000,
    'sandbox verifications to settle',
  );
  await tagSome();
}, 400_000);
afterAll(async () => {
  await reader?.close();
  await server?.close();
});

/** Counts the SQL statements the reader's ORM sends while `run` is under way. */
async function countQueries<T>(run: () => Promise<T>): Promise<{ result: T; queries: string[] }> {
  const logger = reader.runtime.orm.config.getLogger();
  const original = logger.logQuery;
  const queries: string[] = [];
  logger.logQuery = (context: { query: string } & LogContext) => void queries.push(context.query);
  try {
    return { result: await run(), queries };
  } finally {
    logger.logQuery = original;
  }
}

const newestFirst = (nodes: { createdAt: string; id: string }[]) =>
  [...nodes]
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || (b.id < a.id ? -1 : b.id > a.id ? 1 : 0))
    .map((n) => n.id);

describe('verifications query', () => {
  it('a member sees every environment its seat holds by default, newest first, and no other account', async () => {
    const res = await gql(server, token, VerificationsDocument, { first: 100 });
    expect(res.body.errors).toBeUndefined();
    const nodes = res.body.data!.verifications.nodes;
    expect(nodes.map((n) => n.id).sort()).toEqual([...sandboxIds, ...liveIds].sort());
    expect(nodes.map((n) => n.id)).toEqual(newestFirst(nodes));
    expect(new Set(nodes.map((n) => n.mode))).toEqual(new Set(['sandbox', 'live']));
    expect(nodes.map((n) => n.id)).not.toContain(otherId);
    expect(res.body.data!.verifications.pageInfo).toEqual({ hasNextPage: false, endCursor: null });
  });

  it('filters by environment, status and email (exact, ignoring case and surrounding whitespace)', async () => {
    const ids = async (filter: Record<string, unknown>) =>
      (await gql(server, token, VerificationIdsDocument, { filter, first: 100 })).body.data!.verifications.nodes;
    expect((await ids({ environment: 'live' })).map((n) => n.id).sort()).toEqual([...liveIds].sort());
    const sandbox = await ids({ environment: 'sandbox' });
    expect(sandbox).toHaveLength(SANDBOX_COUNT);
    expect(sandbox.every((n) => n.mode === 'sandbox')).toBe(true);
    const approved = await ids({ status: 'approved' });
    expect(approved.length).toBe(Math.ceil(SANDBOX_COUNT / 3));
    expect(approved.every((n) => n.status === 'approved' && n.mode === 'sandbox')).toBe(true);
    expect(await ids({ status: 'approved', environment: 'live' })).toEqual([]);
    expect((await ids({ status: 'pending' })).map((n) => n.id).sort()).toEqual([...liveIds].sort());
    expect((await ids({ email: '  jane.doe@EXAMPLE.com ' })).map((n) => n.id)).toEqual([emailId]);
    expect(await ids({ email: 'example.com' })).toEqual([]);
    expect(await ids({ email: 'jane.doe@example.com', environment: 'sandbox' })).toEqual([]);
    const long = await gql(server, token, VerificationIdsDocument, { filter: { email: `${'a'.repeat(250)}@b.co` } });
    expect(long.body.errors?.[0].extensions).toMatchObject({ code: 'PARAMETER_INVALID', param: 'email' });
  });

  it('pages with first/after: no gaps, no repeats, hasNextPage false on the last page', async () => {
    const all = (
      await gql(server, token, VerificationIdsDocument, { filter: { environment: 'sandbox' }, first: 100 })
    ).body.data!.verifications.nodes.map((n) => n.id);
    const seen: string[] = [];
    let after: string | null | undefined;
    const sizes: number[] = [];
    for (;;) {
      const page = (
        await gql(server, token, VerificationIdsDocument, { filter: { environment: 'sandbox' }, first: 20, after })
      ).body.data!.verifications;
      seen.push(...page.nodes.map((n) => n.id));
      sizes.push(page.nodes.length);
      if (!page.pageInfo.hasNextPage) {
        expect(page.pageInfo.endCursor).toBeNull();
        break;
      }
      after = page.pageInfo.endCursor;
    }
    expect(sizes).toEqual([20, 20, 10]);
    expect(seen).toEqual(all);
    const bad = await gql(server, token, VerificationIdsDocument, { first: 101 });
    expect(bad.body.errors?.[0].extensions).toMatchObject({ code: 'PARAMETER_INVALID', param: 'first' });
  });
});

describe('verification query', () => {
  it('returns the Verification with checks, tags, flow and applicant matching the REST resource', async () => {
    const id = sandboxIds[0]; // approved, tagged VIP and Fraud watch
    const res = await gql(server, token, VerificationDocument, { id });
    expect(res.body.errors).toBeUndefined();
    const v = res.body.data!.verification;
    const rest = (await server.request(`/v1/verifications/${id}`, { token: account.keys.sandbox.secret_key })).body;
    expect(v).toMatchObject({
      id,
      status: rest.status,
      mode: 'sandbox',
      verdict: rest.verdict,
      score: rest.score,
      reasonCodes: rest.reason_codes,
      changeReason: rest.change_reason,
      identityVersion: 0,
      identityEditedAt: null,
      locale: 'en',
      metadata: { n: '0' },
      expiresAt: rest.expires_at,
      createdAt: rest.created_at,
      hostedVerifyUrl: rest.hosted_verify_url,
    });
    expect(
      v.checks.map((c) => ({
        id: c.id,
        type: c.type,
        verdict: c.verdict,
        providerTier: c.providerTier,
        reasonCodes: c.reasonCodes,
      })),
    ).toEqual(
      rest.checks.map((c: any) => ({
        id: c.id,
        type: c.type,
        verdict: c.verdict,
        providerTier: c.provider_tier,
        reasonCodes: c.reason_codes,
      })),
    );
    expect(v.tags.map((t) => t.name).sort()).toEqual(['Fraud watch', 'VIP']);
    expect(v.tags).toEqual(rest.tags);
    expect(v.flow).toMatchObject({ id: rest.flow, status: 'active' });
    expect(v.applicant).toMatchObject({ id: expect.stringMatching(/^app_/) });
  });

  it('applicant is null before a face has been matched', async () => {
    const v = (await gql(server, token, VerificationDocument, { id: liveIds[0] })).body.data!.verification;
    expect(v).toMatchObject({ status: 'pending', mode: 'live', verdict: null, applicant: null, tags: [] });
    expect(v.checks.every((c) => c.status === 'pending')).toBe(true);
  });

  it("another account's id, an unknown id, or an environment not matching answers RESOURCE_NOT_FOUND", async () => {
    for (const variables of [
      { id: otherId },
      { id: 'vs_doesnotexist00000000000' },
      { id: 'not-an-id' },
      { id: sandboxIds[0], environment: 'live' as const },
    ]) {
      const res = await gql(server, token, VerificationDocument, variables);
      expect(res.body.data).toBeNull();
      expect(res.body.errors?.[0].extensions).toMatchObject({ code: 'RESOURCE_NOT_FOUND' });
    }
    const found = await gql(server, token, VerificationDocument, { id: sandboxIds[0], environment: 'sandbox' });
    expect(found.body.data?.verification.id).toBe(sandboxIds[0]);
  });

  it('needs a signed-in member', async () => {
    const res = await gql(server, account.keys.sandbox.secret_key, VerificationIdsDocument, {});
    expect(res.status).toBe(401);
    expect(res.body.data).toBeUndefined();
  });
});

describe('no identity in the schema', () => {
  it('Verification, Check and Applicant expose no email, identity fields, fingerprints or client token', async () => {
    const res = await gql(server, token, VerificationTypeFieldsDocument);
    const names = ['verification', 'check', 'applicant'].flatMap((type) =>
      (res.body.data as any)[type].fields.map((f: { name: string }) => `${type}.${f.name}`),
    );
    expect(names).toContain('verification.identityVersion');
    const leaks = names.filter((n) =>
      /email|fingerprint|token|\.identity$|\.fields$|evidence|document|name$|birth|config/i.test(n),
    );
    expect(leaks).toEqual([]);
  });
});

describe('N+1', () => {
  it('a page of 50 verifications with nested checks, tags, flow and applicant costs the same number of SQL statements as a page of 5', async () => {
    const readerToken = token;
    const page = async (first: number) => {
      const { result, queries } = await countQueries(() =>
        gql(reader, readerToken, VerificationsDocument, { filter: { environment: 'sandbox' }, first }),
      );
      expect(result.body.errors).toBeUndefined();
      return { nodes: result.body.data!.verifications.nodes, queries };
    };
    await page(1); // warm-up: metadata and prepared paths, not counted
    const five = await page(5);
    const fifty = await page(50);
    expect(five.nodes).toHaveLength(5);
    expect(fifty.nodes).toHaveLength(50);
    // The nested data really was read.
    expect(fifty.nodes.every((n) => n.checks.length === 3 && n.flow?.id)).toBe(true);
    expect(fifty.nodes.filter((n) => n.tags.length > 0).length).toBe(
      sandboxIds.filter((_, i) => i % 3 === 0 || i % 5 === 0).length,
    );
    expect(fifty.nodes.filter((n) => n.applicant).length).toBeGreaterThan(0);
    if (process.env.SHOW_QUERIES)
      console.log(`5 -> ${five.queries.length}, 50 -> ${fifty.queries.length}\n${fifty.queries.join('\n')}`);
    expect(five.queries.length).toBeGreaterThan(0);
    expect(fifty.queries.length).toBe(five.queries.length);
    expect(fifty.queries.length).toBeLessThanOrEqual(10);
    // Each nested relation is one statement for the whole page.
    expect(fifty.queries.filter((q) => /from "checks"/.test(q)).length).toBeLessThanOrEqual(2);
    expect(fifty.queries.filter((q) => /from verification_tags/.test(q))).toHaveLength(1);
    expect(fifty.queries.filter((q) => /from "flows"/.test(q))).toHaveLength(1);
    expect(fifty.queries.filter((q) => /from "applicants"/.test(q))).toHaveLength(1);
  });
});
