import { randomBase62 } from '../src/ids.js';
import { call, expectStatus, graphqlTarget, inParallel } from './api.js';
import type { Measurement } from './load.js';
import type { BenchContext, Scenario } from './scenarios.js';

/**
 * A GraphQL page of 50 verifications with nested checks, tags and flow, as the member the
 * bootstrap signed in. No ceiling: the figure watches the per-request DataLoaders (a page must
 * cost a constant number of queries, not one per verification).
 */
const PAGE = 50;

const QUERY = `query BenchVerificationsPage {
  verifications(first: ${PAGE}) {
    nodes { id status checks { type verdict } tags { name } flow { id } }
  }
}`;

interface PageNode {
  id: string;
  checks: unknown[];
  tags: unknown[];
  flow: { id: string } | null;
}

/**
 * Seeds PAGE fresh verifications (the newest, so they are the page), each with its flow's checks
 * and one or two tags; returns their ids.
 */
async function seed(ctx: BenchContext): Promise<Set<string>> {
  const run = randomBase62(8).toLowerCase();
  const url = `${ctx.serviceUrl}/v1/verifications`;
  const ids = await inParallel(PAGE, 8, async (i) => {
    const created = await call(url, ctx.sandboxKey, 'POST', {
      applicant: { email: `bench.page.${run}.${i}@example.org` },
      sandbox: { outcome: 'pending' },
    });
    const id = expectStatus(created, 201, 'POST /v1/verifications (page seed)').body.id as string;
    const names = i % 2 === 0 ? ['bench-vip', 'bench-watch'] : ['bench-vip'];
    expectStatus(
      await call(`${url}/${id}/tags`, ctx.sandboxKey, 'POST', { names }),
      200,
      `POST /v1/verifications/${id}/tags`,
    );
    return id;
  });
  return new Set(ids);
}

/** The page must be the seeded verifications, each carrying checks, tags and its flow, before it is timed. */
async function checkPage(ctx: BenchContext, seeded: Set<string>): Promise<void> {
  const res = expectStatus(
    await call(`${ctx.serviceUrl}/graphql`, ctx.memberToken, 'POST', { query: QUERY }),
    200,
    'POST /graphql',
  );
  if (res.body.errors)
    throw new Error(`GraphQL page answered errors: ${JSON.stringify(res.body.errors).slice(0, 500)}`);
  const nodes = res.body.data.verifications.nodes as PageNode[];
  const complete = nodes.filter((n) => seeded.has(n.id) && n.checks.length > 0 && n.tags.length > 0 && n.flow?.id);
  if (nodes.length !== PAGE || complete.length !== PAGE) {
    throw new Error(
      `GraphQL page: ${nodes.length} nodes, ${complete.length} of them seeded with checks, tags and flow (expected ${PAGE})`,
    );
  }
}

async function page(ctx: BenchContext): Promise<Measurement> {
  const seeded = await seed(ctx);
  await checkPage(ctx, seeded);
  ctx.log(`  seeded ${PAGE} verifications with checks and 1-2 tags`);
  return ctx.measure(graphqlTarget(ctx.serviceUrl, ctx.memberToken, QUERY));
}

/** The same page through REST (`GET /v1/verifications?limit=50`: every field, checks and tags), as an integrator reads it. */
async function restPage(ctx: BenchContext): Promise<Measurement> {
  const seeded = await seed(ctx);
  const url = `${ctx.serviceUrl}/v1/verifications?limit=${PAGE}`;
  const res = expectStatus(await call(url, ctx.sandboxKey, 'GET'), 200, 'GET /v1/verifications');
  const items = res.body.data as PageNode[];
  const complete = items.filter((v) => seeded.has(v.id) && v.checks.length > 0 && v.tags.length > 0);
  if (items.length !== PAGE || complete.length !== PAGE)
    throw new Error(
      `REST page: ${items.length} items, ${complete.length} of them seeded with checks and tags (expected ${PAGE})`,
    );
  ctx.log(`  seeded ${PAGE} verifications with checks and 1-2 tags`);
  return ctx.measure({ url, headers: { authorization: `Bearer ${ctx.sandboxKey}` } });
}

export const graphqlScenarios: Scenario[] = [
  {
    name: 'graphql-verifications',
    label: `GraphQL verifications(first: ${PAGE}) + checks, tags, flow (member)`,
    run: page,
  },
  { name: 'verifications-list', label: `REST GET /v1/verifications?limit=${PAGE} (the same page)`, run: restPage },
];
