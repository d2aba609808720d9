import type { BootstrapResult } from '../../src/services/access/index.js';
import { withTestServer } from '../support/account.js';
import type { TestServer } from '../support/test-server.js';
import { waitFor } from '../support/wait.js';

let server: TestServer;
let account: BootstrapResult;
let sandbox: string;
let live: string;

withTestServer(
  async (s) => {
    // The file sends well over 100 requests a minute with one key (the concurrency rounds alone send 60).
    server = s;
    account = await server.bootstrap();
    sandbox = account.keys.sandbox.secret_key;
    live = account.keys.live.secret_key;
  },
  { env: { RATE_LIMIT_PER_MINUTE: '100000' } },
);
const getVerification = async (id: string) =>
  (await server.request(`/v1/verifications/${id}`, { token: sandbox })).body;
const decide = (id: string, body: unknown, token = sandbox) =>
  server.request(`/v1/manual-reviews/${id}/decision`, { token, body });
const list = (query = '', token = sandbox) => server.request(`/v1/manual-reviews${query}`, { token });
const eventsOf = (verificationId: string) =>
  server.sql<{ type: string; payload: any }>(
    "select type, payload from events where verification_id = $1 order by (payload->'verification'->>'sequence')::int",
    [verificationId],
  );

interface ReviewCase {
  verificationId: string;
  reviewId: string;
}

/** A sandbox session that settles in manual_review, and the queued review case it opened. */
async function reviewCase(token = sandbox): Promise<ReviewCase> {
  const created = await server.request('/v1/verifications', { token, body: { sandbox: { outcome: 'review' } } });
  expect(created.status).toBe(201);
  const verificationId: string = created.body.id;
  await waitFor(
    async () =>
      (await server.sql('select status from verifications where id = $1', [verificationId]))[0]?.status ===
      'manual_review',
    15_000,
    'manual_review',
  );
  const [row] = await server.sql<{ id: string }>('select id from manual_reviews where verification_id = $1', [
    verificationId,
  ]);
  return { verificationId, reviewId: row.id };
}

/** A sandbox key holding exactly `permissions`. */
async function keyWith(permissions: string[], extra: Record<string, unknown> = {}): Promise<string> {
  const res = await server.request('/v1/api-keys', {
    token: sandbox,
    body: { name: `scoped ${permissions.join(' ')}`, environment: 'sandbox', permissions, ...extra },
  });
  expect(res.status).toBe(201);
  return res.body.secret_key;
}

const reviewRow = async (id: string) => (await server.sql('select * from manual_reviews where id = $1', [id]))[0];

describe('Manual review presentation and listing', () => {
  it('a review is ids and decisions only: session_id, status, decision null until decided, notes, reviewed_at, created_at', async () => {
    const c = await reviewCase();
    const res = await list();
    expect(res.status).toBe(200);
    const item = res.body.data.find((r: { id: string }) => r.id === c.reviewId);
    expect(item).toEqual({
      id: c.reviewId,
      object: 'manual_review',
      session_id: c.verificationId,
      status: 'queued',
      decision: null,
      notes: null,
      reviewed_at: null,
      created_at: expect.any(String),
    });
    expect(res.body).toMatchObject({ object: 'list', has_more: expect.any(Boolean) });
  });

  it('without status only reviews whose verification still awaits a decision are listed; status=resolved reads decided cases', async () => {
    const open = await reviewCase();
    const decided = await reviewCase();
    expect((await decide(decided.reviewId, { decision: 'reject' })).status).toBe(200);
    const ids = (res: { body: { data: { id: string }[] } }) => res.body.data.map((r) => r.id);
    const byDefault = ids(await list('?limit=100'));
    expect(byDefault).toContain(open.reviewId);
    expect(byDefault).not.toContain(decided.reviewId);
    const resolved = await list('?status=resolved&limit=100');
    expect(ids(resolved)).toContain(decided.reviewId);
    expect(ids(resolved)).not.toContain(open.reviewId);
    expect(resolved.body.data.every((r: { status: string }) => r.status === 'resolved')).toBe(true);
    const queued = ids(await list('?status=queued&limit=100'));
    expect(queued).toContain(open.reviewId);
    expect(queued).not.toContain(decided.reviewId);
  });

  it('status filter reads exactly that status, including legacy in_review and escalated', async () => {
    const legacy = await reviewCase();
    const escalated = await reviewCase();
    await server.sql(`update manual_reviews set status = 'in_review' where id = $1`, [legacy.reviewId]);
    await server.sql(`update manual_reviews set status = 'escalated', escalated_at = now() where id = $1`, [
      escalated.reviewId,
    ]);
    const inReview = (await list('?status=in_review&limit=100')).body.data;
    expect(inReview.map((r: { id: string }) => r.id)).toEqual([legacy.reviewId]);
    const esc = (await list('?status=escalated&limit=100')).body.data;
    expect(esc.map((r: { id: string }) => r.id)).toEqual([escalated.reviewId]);
    const byDefault = (await list('?limit=100')).body.data.map((r: { id: string }) => r.id);
    expect(byDefault).toEqual(expect.arrayContaining([legacy.reviewId, escalated.reviewId]));
    const bad = await list('?status=open');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'PARAMETER_INVALID', param: 'status' });
    expect((await list('?colour=red')).body.error).toMatchObject({ code: 'PARAMETER_UNKNOWN', param: 'colour' });
  });

  it('paginates newest first with limit and starting_after (a UUID)', async () => {
    await reviewCase();
    await reviewCase();
    const first = await list('?limit=1');
    expect(first.body.data).toHaveLength(1);
    expect(first.body.has_more).toBe(true);
    const second = await list(`?limit=1&starting_after=${first.body.next_cursor}`);
    expect(second.body.data).toHaveLength(1);
    expect(second.body.data[0].id).not.toBe(first.body.data[0].id);
    expect(Date.parse(second.body.data[0].created_at)).toBeLessThanOrEqual(Date.parse(first.body.data[0].created_at));
    expect((await list('?starting_after=vs_123')).body.error).toMatchObject({
      code: 'PARAMETER_INVALID',
      param: 'starting_after',
    });
  });
});

describe('Manual review status: queued', () => {
  it('queued + approve -> resolved: reviewed_at stamped; verification moves to approved with change_reason reviewer; outcome events and action.reviewed', async () => {
    const c = await reviewCase();
    const before = await getVerification(c.verificationId);
    const res = await decide(c.reviewId, { decision: 'approve', notes: 'document checked by hand' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: c.reviewId,
      status: 'resolved',
      decision: 'approve',
      notes: 'document checked by hand',
      session_id: c.verificationId,
    });
    expect(Date.parse(res.body.reviewed_at)).toBeGreaterThan(Date.now() - 60_000);
    expect(res.body).not.toHaveProperty('decided_by');
    const after = await getVerification(c.verificationId);
    expect(after).toMatchObject({ status: 'approved', verdict: 'approve', change_reason: 'reviewer' });
    expect(after.reason_codes).toEqual(before.reason_codes);
    expect((await reviewRow(c.reviewId)).decided_by).toBe(`key:${account.keys.sandbox.id}`);
    const types = (await eventsOf(c.verificationId)).map((e) => e.type);
    expect(types.slice(-3)).toEqual(['verification.completed', 'verification.approved', 'action.reviewed']);
    const reviewed = (await eventsOf(c.verificationId)).find((e) => e.type === 'action.reviewed')!;
    expect(reviewed.payload.review).toEqual({ id: c.reviewId, decision: 'approve' });
    expect(reviewed.payload.verification).toMatchObject({ status: 'approved', changeReason: 'reviewer' });
  });

  it('queued + reject -> resolved: verification moves to rejected (change_reason reviewer), verification.rejected', async () => {
    const c = await reviewCase();
    const res = await decide(c.reviewId, { decision: 'reject' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'resolved', decision: 'reject', notes: null });
    expect(res.body.reviewed_at).not.toBeNull();
    expect(await getVerification(c.verificationId)).toMatchObject({
      status: 'rejected',
      verdict: 'reject',
      change_reason: 'reviewer',
    });
    const types = (await eventsOf(c.verificationId)).map((e) => e.type);
    expect(types.slice(-3)).toEqual(['verification.completed', 'verification.rejected', 'action.reviewed']);
  });

  it('queued + review -> queued: reviewed_at stays null, stays in queue, nothing else changes', async () => {
    const c = await reviewCase();
    const eventsBefore = await eventsOf(c.verificationId);
    const verificationBefore = await getVerification(c.verificationId);
    const res = await decide(c.reviewId, { decision: 'review' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: c.reviewId, status: 'queued', decision: null, reviewed_at: null });
    expect(await getVerification(c.verificationId)).toEqual(verificationBefore);
    expect(await eventsOf(c.verificationId)).toHaveLength(eventsBefore.length);
    expect((await reviewRow(c.reviewId)).decided_by).toBeNull();
    expect((await list('?limit=100')).body.data.map((r: { id: string }) => r.id)).toContain(c.reviewId);
  });
});

describe('Manual review status: resolved', () => {
  it('resolved + approve or reject -> unchanged: 409 REVIEW_ALREADY_DECIDED with decision and reviewed_at, the decider not named', async () => {
    const c = await reviewCase();
    const first = await decide(c.reviewId, { decision: 'approve' });
    const eventsBefore = (await eventsOf(c.verificationId)).length;
    for (const decision of ['approve', 'reject']) {
      const again = await decide(c.reviewId, { decision });
      expect(again.status).toBe(409);
      expect(again.body.error).toMatchObject({ type: 'invalid_request_error', code: 'REVIEW_ALREADY_DECIDED' });
      expect(again.body.error.detail).toEqual({ decision: 'approve', reviewed_at: first.body.reviewed_at });
      expect(JSON.stringify(again.body)).not.toContain(account.keys.sandbox.id);
    }
    expect(await getVerification(c.verificationId)).toMatchObject({ status: 'approved', verdict: 'approve' });
    expect((await eventsOf(c.verificationId)).length).toBe(eventsBefore);
  });

  it('a case settled by a colleague (another key) answers 409 REVIEW_ALREADY_DECIDED to the second decider', async () => {
    const colleague = await keyWith(['verification:create', 'verification:read']);
    const c = await reviewCase();
    expect((await decide(c.reviewId, { decision: 'reject' }, colleague)).status).toBe(200);
    const mine = await decide(c.reviewId, { decision: 'approve' });
    expect(mine.status).toBe(409);
    expect(mine.body.error.detail.decision).toBe('reject');
  });

  it('a case settled by the console or the auto-decide policy answers 409 REVIEW_ALREADY_DECIDED with the reached decision', async () => {
    const byConsole = await reviewCase();
    await server.sql(
      `update manual_reviews set status = 'resolved', decision = 'reject', reviewed_at = now(), decided_by = 'member:mem_x' where id = $1`,
      [byConsole.reviewId],
    );
    await server.sql(
      `update verifications set status = 'rejected', verdict = 'reject', change_reason = 'reviewer', decided_at = now() where id = $1`,
      [byConsole.verificationId],
    );
    const a = await decide(byConsole.reviewId, { decision: 'approve' });
    expect(a.status).toBe(409);
    expect(a.body.error.code).toBe('REVIEW_ALREADY_DECIDED');
    expect(a.body.error.detail.decision).toBe('reject');
    expect(a.body.error.detail.reviewed_at).toEqual(expect.any(String));
    expect(JSON.stringify(a.body)).not.toContain('mem_x');

    // A policy that settled the verification without resolving the review still counts as settled.
    const byPolicy = await reviewCase();
    await server.sql(
      `update verifications set status = 'approved', verdict = 'approve', change_reason = 'auto_policy', decided_at = now() where id = $1`,
      [byPolicy.verificationId],
    );
    const b = await decide(byPolicy.reviewId, { decision: 'reject' });
    expect(b.status).toBe(409);
    expect(b.body.error.detail).toEqual({ decision: 'approve', reviewed_at: expect.any(String) });
    expect(await getVerification(byPolicy.verificationId)).toMatchObject({
      status: 'approved',
      change_reason: 'auto_policy',
    });
  });

  it('a case closed by R8 (expired, no decision recorded) answers 409 REVIEW_ALREADY_DECIDED with decision null', async () => {
    for (const reviewStatus of ['resolved', 'queued']) {
      const c = await reviewCase();
      await server.sql(
        `update verifications set status = 'expired', verdict = null, reason_codes = array_append(reason_codes, 'ALREADY_VERIFIED'), decided_at = now() where id = $1`,
        [c.verificationId],
      );
      await server.sql(`update manual_reviews set status = $2 where id = $1`, [c.reviewId, reviewStatus]);
      const res = await decide(c.reviewId, { decision: 'approve' });
      expect(res.status).toBe(409);
      expect(res.body.error).toMatchObject({
        code: 'REVIEW_ALREADY_DECIDED',
        detail: { decision: null, reviewed_at: null },
      });
      // Nor can it be reopened: an expired verification never returns to manual_review.
      const reopen = await decide(c.reviewId, { decision: 'review' });
      expect(reopen.status).toBe(409);
      expect((await getVerification(c.verificationId)).status).toBe('expired');
    }
  });

  it('resolved + review -> queued: needs verification:reopen (403 INSUFFICIENT_PERMISSIONS without it, nothing changes)', async () => {
    const defaults = await keyWith([
      'verification:create',
      'verification:read',
      'settings:read',
      'settings:write',
      'webhook:manage',
    ]);
    const c = await reviewCase();
    await decide(c.reviewId, { decision: 'reject' });
    const before = await reviewRow(c.reviewId);
    const eventsBefore = (await eventsOf(c.verificationId)).length;
    const res = await decide(c.reviewId, { decision: 'review' }, defaults);
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ type: 'permission_error', code: 'INSUFFICIENT_PERMISSIONS' });
    expect(res.body.error.message).toContain('verification:reopen');
    expect(await reviewRow(c.reviewId)).toEqual(before);
    expect(await getVerification(c.verificationId)).toMatchObject({ status: 'rejected', verdict: 'reject' });
    expect((await eventsOf(c.verificationId)).length).toBe(eventsBefore);
  });

  it('resolved + review -> queued: verification returns to manual_review, verdict cleared; the case can be decided again', async () => {
    const reopener = await keyWith(['verification:create', 'verification:read', 'verification:reopen']);
    const c = await reviewCase();
    await decide(c.reviewId, { decision: 'approve', notes: 'looked fine' });
    const res = await decide(c.reviewId, { decision: 'review' }, reopener);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: c.reviewId,
      status: 'queued',
      decision: null,
      reviewed_at: null,
      notes: 'looked fine',
    });
    expect(await getVerification(c.verificationId)).toMatchObject({
      status: 'manual_review',
      verdict: null,
      score: null,
      change_reason: null,
    });
    expect((await reviewRow(c.reviewId)).decided_by).toBeNull();
    const events = await eventsOf(c.verificationId);
    expect(events.slice(-3).map((e) => e.type)).toEqual(['verification.review', 'action.reviewed', 'action.pending']);
    expect(events[events.length - 2].payload.review).toEqual({ id: c.reviewId, decision: 'review' });
    expect(events[events.length - 1].payload.review).toEqual({ id: c.reviewId });
    expect((await list('?limit=100')).body.data.map((r: { id: string }) => r.id)).toContain(c.reviewId);

    const second = await decide(c.reviewId, { decision: 'reject' }, reopener);
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ status: 'resolved', decision: 'reject' });
    expect(await getVerification(c.verificationId)).toMatchObject({
      status: 'rejected',
      verdict: 'reject',
      change_reason: 'reviewer',
    });
  });
});

describe('Manual review status: escalated', () => {
  it('escalated + approve or reject -> resolved: escalation closes with it (escalation restricts nothing)', async () => {
    for (const decision of ['approve', 'reject'] as const) {
      const c = await reviewCase();
      await server.sql(`update manual_reviews set status = 'escalated', escalated_at = now() where id = $1`, [
        c.reviewId,
      ]);
      const res = await decide(c.reviewId, { decision });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'resolved', decision });
      expect((await reviewRow(c.reviewId)).escalated_at).toBeNull();
      expect((await getVerification(c.verificationId)).status).toBe(decision === 'approve' ? 'approved' : 'rejected');
    }
  });

  it('escalated + review stays with the colleague (only an escalation return re-queues it); legacy in_review + approve resolves', async () => {
    const esc = await reviewCase();
    await server.sql(`update manual_reviews set status = 'escalated', escalated_at = now() where id = $1`, [
      esc.reviewId,
    ]);
    const res = await decide(esc.reviewId, { decision: 'review' });
    expect(res.body).toMatchObject({ status: 'escalated', reviewed_at: null });
    expect((await getVerification(esc.verificationId)).status).toBe('manual_review');

    const legacy = await reviewCase();
    await server.sql(`update manual_reviews set status = 'in_review' where id = $1`, [legacy.reviewId]);
    expect((await decide(legacy.reviewId, { decision: 'approve' })).body).toMatchObject({
      status: 'resolved',
      decision: 'approve',
    });
  });
});

describe('POST /v1/manual-reviews/{id}/decision: request and access', () => {
  it('validates the body: decision required (approve, reject, review), notes at most 2000 characters, unknown fields refused', async () => {
    const c = await reviewCase();
    expect((await decide(c.reviewId, {})).body.error).toMatchObject({ code: 'PARAMETER_MISSING', param: 'decision' });
    expect((await decide(c.reviewId, { decision: 'accept' })).body.error).toMatchObject({
      code: 'PARAMETER_INVALID',
      param: 'decision',
    });
    expect((await decide(c.reviewId, { decision: 'approve', notes: 'x'.repeat(2001) })).body.error).toMatchObject({
      code: 'PARAMETER_INVALID',
      param: 'notes',
    });
    expect((await decide(c.reviewId, { decision: 'approve', decided_by: 'me' })).body.error).toMatchObject({
      code: 'PARAMETER_UNKNOWN',
      param: 'decided_by',
    });
    expect((await reviewRow(c.reviewId)).status).toBe('queued');
  });

  it('needs verification:create, not verification:read: a read-only-scope key lists but gets 403 on a decision', async () => {
    const reader = await keyWith(['verification:read']);
    const c = await reviewCase();
    expect((await list('', reader)).status).toBe(200);
    const res = await decide(c.reviewId, { decision: 'approve' }, reader);
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ type: 'permission_error', code: 'INSUFFICIENT_PERMISSIONS' });
    const creator = await keyWith(['verification:create']);
    expect((await list('', creator)).body.error).toMatchObject({ code: 'INSUFFICIENT_PERMISSIONS' });
    const readOnly = await keyWith(['verification:create', 'verification:read'], { access: 'read_only' });
    expect((await decide(c.reviewId, { decision: 'approve' }, readOnly)).body.error).toMatchObject({
      code: 'READ_ONLY_KEY',
    });
    expect((await reviewRow(c.reviewId)).status).toBe('queued');
  });

  it('review ids are UUIDs: malformed or unknown is 404; another account or environment sees 404 and changes nothing', async () => {
    const c = await reviewCase();
    expect((await decide('not-a-uuid', { decision: 'approve' })).status).toBe(404);
    const unknown = await decide('00000000-0000-4000-8000-000000000000', { decision: 'approve' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ type: 'not_found_error' });
    const other = await server.bootstrap();
    expect((await decide(c.reviewId, { decision: 'approve' }, other.keys.sandbox.secret_key)).status).toBe(404);
    expect((await decide(c.reviewId, { decision: 'approve' }, live)).status).toBe(404);
    expect((await list('?limit=100', other.keys.sandbox.secret_key)).body.data).toEqual([]);
    expect((await list('?status=queued&limit=100', live)).body.data.map((r: { id: string }) => r.id)).not.toContain(
      c.reviewId,
    );
    expect((await reviewRow(c.reviewId)).status).toBe('queued');
  });
});

describe('exactly one of simultaneous deciders wins', () => {
  it('12 parallel approve/reject decisions, 5 rounds: one 200, the rest 409 with the winner decision; final state and one set of events', async () => {
    for (let round = 0; round < 5; round++) {
      const c = await reviewCase();
      const [{ created_at: reviewCreatedAt }] = await server.sql(
        'select created_at from manual_reviews where id = $1',
        [c.reviewId],
      );
      const decisions = Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? 'approve' : 'reject'));
      const results = await Promise.all(decisions.map((decision) => decide(c.reviewId, { decision })));
      const winners = results.filter((r) => r.status === 200);
      expect(winners).toHaveLength(1);
      const winner = winners[0].body;
      const losers = results.filter((r) => r.status !== 200);
      expect(losers).toHaveLength(11);
      for (const loser of losers) {
        expect(loser.status).toBe(409);
        expect(loser.body.error.code).toBe('REVIEW_ALREADY_DECIDED');
        expect(loser.body.error.detail).toEqual({ decision: winner.decision, reviewed_at: winner.reviewed_at });
      }
      const v = await getVerification(c.verificationId);
      expect(v.status).toBe(winner.decision === 'approve' ? 'approved' : 'rejected');
      expect(v.verdict).toBe(winner.decision);
      const counts = await server.sql<{ type: string; n: number }>(
        `select type, count(*)::int as n from events where verification_id = $1 and created_at > $2 and type in ('action.reviewed', 'verification.completed', 'verification.approved', 'verification.rejected') group by type`,
        [c.verificationId, reviewCreatedAt],
      );
      const byType = Object.fromEntries(counts.map((r) => [r.type, r.n]));
      const verdictEvent = winner.decision === 'approve' ? 'verification.approved' : 'verification.rejected';
      expect(byType).toEqual({ 'action.reviewed': 1, 'verification.completed': 1, [verdictEvent]: 1 });
    }
  }, 120_000);
});

describe('a reviewer approval and R8', () => {
  /** Two review cases of one person (the second made the same person by its email fingerprint). */
  async function samePersonCases(): Promise<[ReviewCase, ReviewCase]> {
    const a = await reviewCase();
    const b = await reviewCase();
    await server.sql(`update verifications set email_fingerprint = $2 where id = any($1)`, [
      [a.verificationId, b.verificationId],
      `fp-${a.verificationId}`,
    ]);
    return [a, b];
  }

  it("approving one case moves the person's other open case to expired + ALREADY_VERIFIED with no decision recorded", async () => {
    const [a, b] = await samePersonCases();
    expect((await decide(a.reviewId, { decision: 'approve' })).status).toBe(200);
    const other = await getVerification(b.verificationId);
    expect(other.status).toBe('expired');
    expect(other.reason_codes).toContain('ALREADY_VERIFIED');
    const late = await decide(b.reviewId, { decision: 'approve' });
    expect(late.status).toBe(409);
    expect(late.body.error).toMatchObject({
      code: 'REVIEW_ALREADY_DECIDED',
      detail: { decision: null, reviewed_at: null },
    });
  });

  it('two simultaneous approvals of one person leave one approved and the other expired, without a server error', async () => {
    for (let round = 0; round < 3; round++) {
      const [a, b] = await samePersonCases();
      const results = await Promise.all([
        decide(a.reviewId, { decision: 'approve' }),
        decide(b.reviewId, { decision: 'approve' }),
      ]);
      expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
      const statuses = [
        (await getVerification(a.verificationId)).status,
        (await getVerification(b.verificationId)).status,
      ].sort();
      expect(statuses).toEqual(['approved', 'expired']);
    }
  }, 60_000);
});
