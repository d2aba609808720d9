import type { LogContext } from '@mikro-orm/core';
import { type BootstrapResult } from '../../src/services/access/index.js';
import {
  AssignReviewDocument,
  ClaimReviewDocument,
  DecideReviewDocument,
  EscalateReviewDocument,
  ReturnEscalationDocument,
  LockReviewDocument,
  ReleaseReviewDocument,
  ReviewPolicyDocument,
  ReviewsDocument,
} from '../graphql/generated.js';
import { gql } from '../support/graphql.js';
import { signedInMember } from '../support/members.js';
import type { TestServer } from '../support/test-server.js';
import { withTestAccount } from '../support/account.js';
import { createVerification } from '../support/factories.js';
import { waitFor } from '../support/wait.js';

let server: TestServer;
let account: BootstrapResult;
let owner: string;
withTestAccount((t) => {
  ({ server, account } = t);
  owner = account.member.session_token;
});

const reviewer = () => signedInMember(server, account, []);

async function queuedCases(count: number): Promise<string[]> {
  const created = await Promise.all(
    Array.from({ length: count }, () =>
      createVerification(server, account, 'sandbox', { sandbox: { outcome: 'review' } }),
    ),
  );
  const ids = created.map((v) => v.id);
  return waitFor(
    async () => {
      const rows = await server.sql<{ id: string }>(
        'select id from manual_reviews where verification_id = any($1::text[])',
        [ids],
      );
      return rows.length === count ? rows.map((r) => r.id) : undefined;
    },
    30_000,
    'the manual reviews',
  );
}

/** Every statement the request runs, ORM and hand-written SQL alike (both reach the ORM's query log). */
async function countQueries<T>(run: () => Promise<T>): Promise<{ result: T; queries: string[] }> {
  const logger = server.runtime.orm.config.getLogger();
  const original = logger.logQuery;
  const queries: string[] = [];
  logger.logQuery = (context: { query: string } & LogContext) => void queries.push(context.query);
  try {
    return { result: await run(), queries };
  } finally {
    logger.logQuery = original;
  }
}

describe('GraphQL review workbench (same services as /v1/console/reviews)', () => {
  it('a queue page with verification, checks, claim holder and presence is a constant number of statements whatever its size', async () => {
    const ids = await queuedCases(30);
    const holders = await Promise.all([reviewer(), reviewer(), reviewer()]);
    // Every case claimed and watched by one of three members, so both pages read holders and presence.
    await Promise.all(ids.map((id, i) => gql(server, holders[i % 3]!.token, ClaimReviewDocument, { id })));
    await Promise.all(ids.map((id, i) => gql(server, holders[(i + 1) % 3]!.token, LockReviewDocument, { id })));
    const page = async (first: number) => {
      const { result, queries } = await countQueries(() => gql(server, owner, ReviewsDocument, { first }));
      expect(result.body.errors).toBeUndefined();
      return { nodes: result.body.data!.reviews.nodes, queries };
    };
    await page(1); // warm-up, not counted
    // The ORM's query log is the process's: a background job's statement landing in a request's
    // window adds to its count (never takes away), so each size keeps its fewest of three runs.
    const fewest = async (first: number) => {
      const runs = [await page(first), await page(first), await page(first)];
      return runs.reduce((a, b) => (b.queries.length < a.queries.length ? b : a));
    };
    const small = await fewest(3);
    const large = await fewest(30);
    expect(large.nodes).toHaveLength(30);
    expect(large.nodes.every((n) => n.verification?.checks.length)).toBe(true);
    expect(large.nodes.every((n) => n.claimedBy && n.beingReviewedBy.length === 1)).toBe(true);
    expect(small.nodes.every((n) => n.claimedBy && n.beingReviewedBy.length === 1)).toBe(true);
    expect(large.queries.length).toBe(small.queries.length);
  });

  it('claim is exclusive among simultaneous members; decide is stamped and ends the claim; the policy reads', async () => {
    const [id] = await queuedCases(1);
    const members = await Promise.all(Array.from({ length: 10 }, () => reviewer()));
    const answers = await Promise.all(members.map((m) => gql(server, m.token, ClaimReviewDocument, { id: id! })));
    const winners = answers.filter((a) => !a.body.errors);
    expect(winners).toHaveLength(1);
    expect(
      answers.filter((a) => a.body.errors).every((a) => a.body.errors![0].extensions!.code === 'REVIEW_NOT_CLAIMABLE'),
    ).toBe(true);
    const holder = members.find((m) => m.id === winners[0]!.body.data!.claimReview.claimedBy!.id)!;
    const mine = await gql(server, holder.token, ReviewsDocument, { holdingMine: true });
    expect(mine.body.data!.reviews.nodes.map((n) => n.id)).toEqual([id]);
    const decided = await gql(server, holder.token, DecideReviewDocument, {
      id: id!,
      decision: 'reject',
      notes: 'mismatch',
    });
    expect(decided.body.data!.decideReview).toMatchObject({
      status: 'resolved',
      decision: 'reject',
      notes: 'mismatch',
      claimedBy: null,
    });
    const again = await gql(server, owner, DecideReviewDocument, { id: id!, decision: 'approve' });
    expect(again.body.errors![0].extensions).toMatchObject({ code: 'REVIEW_ALREADY_DECIDED' });
    const released = await gql(server, holder.token, ReleaseReviewDocument, { id: id! });
    expect(released.body.errors).toBeUndefined();
    const policy = await gql(server, owner, ReviewPolicyDocument, {});
    expect(policy.body.data!.reviewPolicy).toMatchObject({
      claimRequired: expect.any(Boolean),
      claimLeaseMinutes: expect.any(Number),
    });
  });

  it('another account cannot claim or decide a case (RESOURCE_NOT_FOUND)', async () => {
    const [id] = await queuedCases(1);
    const other = await server.bootstrap();
    const claim = await gql(server, other.member.session_token, ClaimReviewDocument, { id: id! });
    expect(claim.body.errors![0].extensions).toMatchObject({ type: 'not_found_error' });
    const decide = await gql(server, other.member.session_token, DecideReviewDocument, {
      id: id!,
      decision: 'approve',
    });
    expect(decide.body.errors![0].extensions).toMatchObject({ type: 'not_found_error' });
  });
});

describe('GraphQL escalation, return and assignment', () => {
  it('escalate, return with a note (reviews.resolve_escalation), assign with ASSIGNEE_CANNOT_DECIDE', async () => {
    const [id] = await queuedCases(1);
    const a = await reviewer();
    const escalated = await gql(server, a.token, EscalateReviewDocument, {
      id: id!,
      reason: 'looks edited',
      recommendation: 'reject',
      assessment: { document: 'fail' },
    });
    expect(escalated.body.errors).toBeUndefined();
    expect(escalated.body.data!.escalateReview).toMatchObject({
      status: 'escalated',
      escalation: { reason: 'looks edited', recommendation: 'reject', escalatedBy: a.id },
    });
    const refused = await gql(server, a.token, ReturnEscalationDocument, { id: id!, note: 'no' });
    expect(refused.body.errors![0].extensions).toMatchObject({ code: 'INSUFFICIENT_PERMISSIONS' });
    const returned = await gql(server, owner, ReturnEscalationDocument, { id: id!, note: 'approve it' });
    expect(returned.body.data!.returnEscalation).toMatchObject({
      raisedByMemberId: a.id,
      review: { status: 'queued', escalation: { returnNote: 'approve it' } },
    });
    const other = await server.bootstrap();
    const cannot = await gql(server, owner, AssignReviewDocument, { id: id!, memberId: other.member.id });
    expect(cannot.body.errors![0].extensions).toMatchObject({ code: 'ASSIGNEE_CANNOT_DECIDE' });
    const assigned = await gql(server, owner, AssignReviewDocument, { id: id!, memberId: a.id });
    expect(assigned.body.data!.assignReview.assignedTo).toMatchObject({ id: a.id });
  });
});
