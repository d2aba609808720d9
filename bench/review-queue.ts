import { createHash } from 'node:crypto';
import { randomBase62 } from '../src/ids.js';
import { call, expectStatus, graphqlTarget } from './api.js';
import { openPool, reviewTemplate } from './database.js';
import type { Measurement } from './load.js';
import type { BenchContext, Comparison, Scenario } from './scenarios.js';

/**
 * The reviewer's queue: a page of 50 open cases with their claim holders and presence, through
 * REST (`GET /v1/console/reviews?limit=50`) and GraphQL (`reviews(first: 50)`), against 10,000
 * queued cases of the bench account (a third of them claimed by the bench member). The same
 * service reads both; the ratio watches what GraphQL's layer costs on top.
 */
const QUEUED = 10_000;
const PAGE = 50;

const QUERY = `query BenchReviewQueue {
  reviews(first: ${PAGE}) {
    nodes { id status decision notes reviewedAt createdAt environment claimExpiresAt claimedBy { id } beingReviewedBy { member { id } since } }
    pageInfo { hasNextPage endCursor }
  }
}`;

let seeded: Promise<void> | undefined;

/** Seeds the queue once per run: copies of one engine-made case, the newest 50 each claimed or not. */
async function seedQueue(ctx: BenchContext): Promise<void> {
  const pool = openPool(ctx);
  try {
    const templateId = await reviewTemplate(ctx, pool, ctx.sandboxKey, 'review-queue');
    const tokenHash = createHash('sha256').update(ctx.memberToken).digest('hex');
    const { rows } = await pool.query<{ member_id: string }>(
      'select member_id from member_sessions where token_hash = $1',
      [tokenHash],
    );
    const memberId = rows[0]!.member_id;
    const prefix = `vs_rqb${randomBase62(6)}_`;
    await pool.query(
      `insert into verifications
       select r.* from verifications t cross join generate_series(1, $3::int) g
       cross join lateral jsonb_populate_record(null::verifications, to_jsonb(t) || jsonb_build_object(
         'id', $2::text || g, 'created_at', now() - make_interval(secs => g), 'updated_at', now() - make_interval(secs => g),
         'email_fingerprint', null, 'reference_fingerprint', null, 'identity', null)) r
       where t.id = $1`,
      [templateId, prefix, QUEUED],
    );
    await pool.query(
      `insert into manual_reviews (id, merchant_id, mode, verification_id, status, created_at, updated_at, claimed_by, claim_expires_at)
       select gen_random_uuid(), v.merchant_id, v.mode, v.id, 'queued', v.created_at, v.created_at,
              case when g % 3 = 0 then $3 end, case when g % 3 = 0 then now() + interval '6 hours' end
       from generate_series(1, $2::int) g join verifications v on v.id = $1::text || g`,
      [prefix, QUEUED, memberId],
    );
    await pool.query('analyze manual_reviews; analyze verifications');
  } finally {
    await pool.end();
  }
  ctx.log(`  seeded ${QUEUED} queued cases (a third claimed)`);
}

const queue = (ctx: BenchContext) => (seeded ??= seedQueue(ctx));

async function rest(ctx: BenchContext): Promise<Measurement> {
  await queue(ctx);
  const url = `${ctx.serviceUrl}/v1/console/reviews?limit=${PAGE}`;
  const page = expectStatus(await call(url, ctx.memberToken, 'GET'), 200, 'GET /v1/console/reviews');
  const items = page.body.data as { claimed_by: string | null }[];
  if (items.length !== PAGE || !items.some((i) => i.claimed_by))
    throw new Error(`review queue (REST): ${items.length} cases, none claimed`);
  return ctx.measure({ url, headers: { authorization: `Bearer ${ctx.memberToken}` } });
}

async function graphql(ctx: BenchContext): Promise<Measurement> {
  await queue(ctx);
  const res = expectStatus(
    await call(`${ctx.serviceUrl}/graphql`, ctx.memberToken, 'POST', { query: QUERY }),
    200,
    'POST /graphql (reviews)',
  );
  const nodes = res.body.data?.reviews?.nodes as { claimedBy: unknown }[] | undefined;
  if (!nodes || nodes.length !== PAGE || !nodes.some((n) => n.claimedBy))
    throw new Error(`review queue (GraphQL): ${JSON.stringify(res.body).slice(0, 300)}`);
  return ctx.measure(graphqlTarget(ctx.serviceUrl, ctx.memberToken, QUERY));
}

export const reviewQueueScenarios: Scenario[] = [
  { name: 'review-queue-rest', label: `REST GET /v1/console/reviews?limit=${PAGE} (${QUEUED} queued)`, run: rest },
  {
    name: 'review-queue-graphql',
    label: `GraphQL reviews(first: ${PAGE}) + claim holder, presence (${QUEUED} queued)`,
    run: graphql,
  },
];

export const reviewQueueComparisons: Comparison[] = [
  {
    name: 'review-queue graphql/rest',
    numerator: 'review-queue-graphql',
    denominator: 'review-queue-rest',
    target: 0.8,
  },
];
