import { type BootstrapResult } from '../../src/services/access/index.js';
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

/** A reviewer of the account (every permission, both environments unless told), signed in. */
const reviewer = (environments: ('sandbox' | 'live')[] = ['sandbox', 'live'], of: BootstrapResult = account) =>
  signedInMember(server, of, [], environments);

/** A sandbox verification the engine sends to manual review; resolves to its review id. */
async function queuedCase(): Promise<string> {
  const v = await createVerification(server, account, 'sandbox', { sandbox: { outcome: 'review' } });
  return waitFor(
    async () => {
      const [row] = await server.sql<{ id: string }>('select id from manual_reviews where verification_id = $1', [
        v.id,
      ]);
      return row?.id;
    },
    15_000,
    'the manual review',
  );
}

const claim = (id: string, token: string) =>
  server.request(`/v1/console/reviews/${id}/claim`, { token, method: 'POST', body: {} });
const release = (id: string, token: string) =>
  server.request(`/v1/console/reviews/${id}/claim`, { token, method: 'DELETE' });
const decide = (id: string, token: string, body: Record<string, unknown>) =>
  server.request(`/v1/console/reviews/${id}/decision`, { token, body });
const setPolicy = (policy: Record<string, unknown>) =>
  server.request('/v1/console/settings', { token: owner, method: 'PATCH', body: { review_policy: policy } });

describe('GET /v1/console/reviews and the policy', () => {
  it('lists open cases newest first with mode; a seat asking for an environment it lacks gets an empty list', async () => {
    const older = await queuedCase();
    const newer = await queuedCase();
    const list = await server.request('/v1/console/reviews?limit=100', { token: owner });
    expect(list.status).toBe(200);
    const ids = list.body.data.map((r: { id: string }) => r.id);
    expect(ids.indexOf(newer)).toBeLessThan(ids.indexOf(older));
    expect(list.body.data[0]).toMatchObject({
      object: 'manual_review',
      mode: 'sandbox',
      claimed_by: null,
      being_reviewed_by: [],
    });
    const liveOnly = await reviewer(['live']);
    expect((await server.request('/v1/console/reviews?mode=sandbox', { token: liveOnly.token })).body.data).toEqual([]);
    expect(
      (await server.request('/v1/console/reviews', { token: liveOnly.token })).body.data.map(
        (r: { id: string }) => r.id,
      ),
    ).not.toContain(newer);
  });

  it('answers the policy with its four fields', async () => {
    const res = await server.request('/v1/console/reviews/policy', { token: owner });
    expect(res.body).toMatchObject({
      object: 'review_policy',
      claim_required: expect.any(Boolean),
      claim_lease_minutes: expect.any(Number),
      presence_ttl_ms: expect.any(Number),
      presence_heartbeat_ms: expect.any(Number),
    });
  });
});

describe('claims', () => {
  it('a claim holds the case for the lease, the holder renews it, another member is refused, releasing one not held is no error', async () => {
    const id = await queuedCase();
    const a = await reviewer();
    const b = await reviewer();
    const first = await claim(id, a.token);
    expect(first.status).toBe(200);
    expect(first.body.claimed_by).toBe(a.id);
    const lease = Date.parse(first.body.claim_expires_at) - Date.now();
    expect(lease).toBeGreaterThan(25 * 60_000);
    expect(lease).toBeLessThanOrEqual(30 * 60_000 + 1000);
    const renewed = await claim(id, a.token);
    expect(renewed.status).toBe(200);
    expect(Date.parse(renewed.body.claim_expires_at)).toBeGreaterThanOrEqual(Date.parse(first.body.claim_expires_at));
    const refused = await claim(id, b.token);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ type: 'permission_error', code: 'REVIEW_NOT_CLAIMABLE' });
    expect(
      (await server.request('/v1/console/reviews?holding=mine', { token: a.token })).body.data.map(
        (r: { id: string }) => r.id,
      ),
    ).toContain(id);
    expect(
      (await server.request('/v1/console/reviews?holding=mine', { token: b.token })).body.data.map(
        (r: { id: string }) => r.id,
      ),
    ).not.toContain(id);
    const notHeld = await release(id, b.token);
    expect(notHeld.status).toBe(200);
    expect(notHeld.body.claimed_by).toBe(a.id);
    expect((await release(id, a.token)).body.claimed_by).toBeNull();
    expect((await claim(id, b.token)).body.claimed_by).toBe(b.id);
  });

  it('10 simultaneous claims by different members leave exactly one holder (three rounds)', async () => {
    const members = await Promise.all(Array.from({ length: 10 }, () => reviewer()));
    for (let round = 0; round < 3; round++) {
      const id = await queuedCase();
      const answers = await Promise.all(members.map((m) => claim(id, m.token)));
      const winners = answers.filter((r) => r.status === 200);
      expect(winners).toHaveLength(1);
      expect(answers.filter((r) => r.status === 403).every((r) => r.body.error.code === 'REVIEW_NOT_CLAIMABLE')).toBe(
        true,
      );
      const [row] = await server.sql<{ claimed_by: string }>('select claimed_by from manual_reviews where id = $1', [
        id,
      ]);
      expect(row!.claimed_by).toBe(winners[0]!.body.claimed_by);
    }
  });

  it('a lapsed lease frees the case by itself, with no job run', async () => {
    const id = await queuedCase();
    const a = await reviewer();
    const b = await reviewer();
    await claim(id, a.token);
    await server.sql(`update manual_reviews set claim_expires_at = now() - interval '1 second' where id = $1`, [id]);
    const list = await server.request('/v1/console/reviews?limit=100', { token: owner });
    expect(list.body.data.find((r: { id: string }) => r.id === id)).toMatchObject({
      claimed_by: null,
      claim_expires_at: null,
    });
    expect((await claim(id, b.token)).body.claimed_by).toBe(b.id);
  });

  it('a decided case cannot be claimed; another account id is 404', async () => {
    const id = await queuedCase();
    const a = await reviewer();
    expect((await decide(id, owner, { decision: 'approve' })).status).toBe(200);
    const refused = await claim(id, a.token);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('REVIEW_NOT_CLAIMABLE');
    const other = await server.bootstrap();
    expect((await claim(id, other.member.session_token)).status).toBe(404);
    expect((await decide(id, other.member.session_token, { decision: 'reject' })).status).toBe(404);
  });
});

describe('decisions', () => {
  afterEach(async () => {
    await setPolicy({ claim_required: false });
  });

  it('with claim_required, deciding an unheld case is 403 REVIEW_NOT_HELD; the holder decides, stamped with the member, and the claim ends', async () => {
    expect((await setPolicy({ claim_required: true })).status).toBe(200);
    const id = await queuedCase();
    const a = await reviewer();
    const refused = await decide(id, a.token, { decision: 'approve' });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ type: 'permission_error', code: 'REVIEW_NOT_HELD' });
    await claim(id, a.token);
    const decided = await decide(id, a.token, { decision: 'approve', notes: 'document checked by hand' });
    expect(decided.status).toBe(200);
    expect(decided.body).toMatchObject({
      status: 'resolved',
      decision: 'approve',
      claimed_by: null,
      notes: 'document checked by hand',
    });
    const [row] = await server.sql<{ decided_by: string }>('select decided_by from manual_reviews where id = $1', [id]);
    expect(row!.decided_by).toBe(`member:${a.id}`);
  });

  it('a console decision racing the key API decision ends with exactly one outcome and one action.reviewed event', async () => {
    for (let round = 0; round < 3; round++) {
      const id = await queuedCase();
      const [consoleAnswer, keyAnswer] = await Promise.all([
        decide(id, owner, { decision: 'approve' }),
        server.request(`/v1/manual-reviews/${id}/decision`, {
          token: account.keys.sandbox.secret_key,
          body: { decision: 'reject' },
        }),
      ]);
      expect([consoleAnswer.status, keyAnswer.status].sort()).toEqual([200, 409]);
      const loser = consoleAnswer.status === 409 ? consoleAnswer : keyAnswer;
      expect(loser.body.error.code).toBe('REVIEW_ALREADY_DECIDED');
      const [review] = await server.sql<{ verification_id: string }>(
        'select verification_id from manual_reviews where id = $1',
        [id],
      );
      const events = await server.sql(
        `select type from events where verification_id = $1 and type in ('action.reviewed', 'verification.approved', 'verification.rejected')`,
        [review!.verification_id],
      );
      expect(events).toHaveLength(2);
    }
  });

  it('a decision racing a claim: one outcome; the claim either lands first (then is cleared) or is refused', async () => {
    const id = await queuedCase();
    const a = await reviewer();
    const [claimed, decided] = await Promise.all([claim(id, a.token), decide(id, owner, { decision: 'reject' })]);
    expect(decided.status).toBe(200);
    expect([200, 403]).toContain(claimed.status);
    const [row] = await server.sql<{ status: string; claimed_by: string | null }>(
      'select status, claimed_by from manual_reviews where id = $1',
      [id],
    );
    expect(row).toEqual({ status: 'resolved', claimed_by: null });
  });
});

describe('presence markers', () => {
  it('lock shows the member in being_reviewed_by for presence_ttl_ms; several at once; it lapses by itself and unlock removes it', async () => {
    const id = await queuedCase();
    const a = await reviewer();
    const b = await reviewer();
    const lockA = await server.request(`/v1/console/reviews/${id}/lock`, { token: a.token, method: 'POST', body: {} });
    expect(lockA.status).toBe(200);
    expect(lockA.body).toMatchObject({ object: 'review_lock', member_id: a.id });
    await server.request(`/v1/console/reviews/${id}/lock`, { token: b.token, method: 'POST', body: {} });
    const row = async () =>
      (await server.request('/v1/console/reviews?limit=100', { token: owner })).body.data.find(
        (r: { id: string }) => r.id === id,
      );
    expect((await row()).being_reviewed_by.map((p: { member_id: string }) => p.member_id).sort()).toEqual(
      [a.id, b.id].sort(),
    );
    // Presence never blocks: b can still claim while a looks.
    expect((await claim(id, b.token)).status).toBe(200);
    await server.request(`/v1/console/reviews/${id}/lock`, { token: b.token, method: 'DELETE' });
    await server.sql(
      `update review_presence set expires_at = now() - interval '1 millisecond' where review_id = $1 and member_id = $2`,
      [id, a.id],
    );
    expect((await row()).being_reviewed_by).toEqual([]);
  });
});

describe('escalation, return and assignment', () => {
  const escalate = (id: string, token: string, body: Record<string, unknown>) =>
    server.request(`/v1/console/reviews/${id}/escalation`, { token, body });
  const events = async (id: string, type: string) => {
    const [review] = await server.sql<{ verification_id: string }>(
      'select verification_id from manual_reviews where id = $1',
      [id],
    );
    return server.sql<{ payload: Record<string, unknown> }>(
      `select payload from events where verification_id = $1 and type = $2 order by created_at`,
      [review!.verification_id, type],
    );
  };

  it('a case entering manual review emits action.pending with ids only', async () => {
    const id = await queuedCase();
    const pending = await events(id, 'action.pending');
    expect(pending).toHaveLength(1);
    expect(pending[0]!.payload).toMatchObject({ review: { id } });
  });

  it('escalates with reason, recommendation and marks (checks that did not run dropped); action.on_hold carries none of them', async () => {
    const id = await queuedCase();
    const a = await reviewer();
    const res = await escalate(id, a.token, {
      reason: 'Photo looks edited',
      recommendation: 'reject',
      assessment: { document: 'fail', liveness: 'unsure' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'escalated',
      escalation: { reason: 'Photo looks edited', recommendation: 'reject', escalated_by: a.id, returned_by: null },
    });
    const [review] = await server.sql<{ verification_id: string }>(
      'select verification_id from manual_reviews where id = $1',
      [id],
    );
    const ran = (
      await server.sql<{ type: string }>(
        `select type from checks where verification_id = $1 and status in ('completed', 'errored')`,
        [review!.verification_id],
      )
    ).map((c) => c.type);
    expect(Object.keys(res.body.escalation.assessment).sort()).toEqual(
      ['document', 'liveness'].filter((t) => ran.includes(t)).sort(),
    );
    const onHold = await events(id, 'action.on_hold');
    expect(onHold).toHaveLength(1);
    expect(JSON.stringify(onHold[0]!.payload)).not.toMatch(/Photo looks edited|reject"|assessment|recommendation/);
    const again = await escalate(id, a.token, { reason: 'twice' });
    expect(again.status).toBe(403);
    expect(again.body.error.code).toBe('REVIEW_NOT_ESCALATABLE');
    const missing = await escalate(await queuedCase(), a.token, {});
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: 'PARAMETER_MISSING', param: 'reason' });
  });

  it('an escalated case can be decided and the escalation closes; a decided case cannot be escalated', async () => {
    const id = await queuedCase();
    await escalate(id, owner, { reason: 'second opinion' });
    const decided = await decide(id, owner, { decision: 'approve' });
    expect(decided.body).toMatchObject({ status: 'resolved', decision: 'approve' });
    const late = await escalate(id, owner, { reason: 'too late' });
    expect(late.status).toBe(403);
    expect(late.body.error.code).toBe('REVIEW_NOT_ESCALATABLE');
  });

  it('an escalation racing a decision: exactly one outcome, never both applied as separate outcomes', async () => {
    for (let round = 0; round < 3; round++) {
      const id = await queuedCase();
      const [escalated, decided] = await Promise.all([
        escalate(id, owner, { reason: 'race' }),
        decide(id, owner, { decision: 'reject' }),
      ]);
      expect(decided.status).toBe(200);
      expect([200, 403]).toContain(escalated.status);
      const [row] = await server.sql<{ status: string; decision: string }>(
        'select status, decision from manual_reviews where id = $1',
        [id],
      );
      expect(row).toEqual({ status: 'resolved', decision: 'reject' });
      expect(await events(id, 'action.reviewed')).toHaveLength(1);
    }
  });

  it('with claim_required an unheld case cannot be escalated', async () => {
    await setPolicy({ claim_required: true });
    try {
      const id = await queuedCase();
      const a = await reviewer();
      expect((await escalate(id, a.token, { reason: 'x' })).body.error.code).toBe('REVIEW_NOT_ESCALATABLE');
      await claim(id, a.token);
      expect((await escalate(id, a.token, { reason: 'x' })).status).toBe(200);
    } finally {
      await setPolicy({ claim_required: false });
    }
  });

  it('return needs reviews.resolve_escalation, re-queues undecided with the note for the reviewer who raised it, and emits action.pending', async () => {
    const id = await queuedCase();
    const a = await reviewer();
    await claim(id, a.token);
    await escalate(id, a.token, { reason: 'need a lead' });
    const refused = await server.request(`/v1/console/reviews/${id}/escalation/return`, {
      token: a.token,
      body: { note: 'no' },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('INSUFFICIENT_PERMISSIONS');
    const returned = await server.request(`/v1/console/reviews/${id}/escalation/return`, {
      token: owner,
      body: { note: 'Fine, approve it' },
    });
    expect(returned.status).toBe(200);
    expect(returned.body).toMatchObject({
      status: 'queued',
      decision: null,
      claimed_by: null,
      raised_by_member_id: a.id,
      escalation: { returned_by: account.member.id, return_note: 'Fine, approve it' },
    });
    expect(await events(id, 'action.pending')).toHaveLength(2);
  });

  it('assignment needs reviews.assign; the assignee must hold the environment (400 ASSIGNEE_CANNOT_DECIDE); only the assignee may claim', async () => {
    const id = await queuedCase();
    const a = await reviewer();
    const b = await reviewer();
    const liveOnly = await reviewer(['live']);
    const assign = (token: string, memberId: string | null) =>
      server.request(`/v1/console/reviews/${id}/assignment`, { token, method: 'PUT', body: { member_id: memberId } });
    expect((await assign(a.token, a.id)).body.error.code).toBe('INSUFFICIENT_PERMISSIONS');
    const cannot = await assign(owner, liveOnly.id);
    expect(cannot.status).toBe(400);
    expect(cannot.body.error).toMatchObject({
      type: 'invalid_request_error',
      code: 'ASSIGNEE_CANNOT_DECIDE',
      param: 'member_id',
    });
    const foreign = await server.bootstrap();
    expect((await assign(owner, foreign.member.id)).body.error.code).toBe('ASSIGNEE_CANNOT_DECIDE');
    expect((await assign(owner, a.id)).body.assigned_to).toBe(a.id);
    const other = await claim(id, b.token);
    expect(other.status).toBe(403);
    expect(other.body.error.code).toBe('REVIEW_NOT_CLAIMABLE');
    expect((await claim(id, a.token)).status).toBe(200);
    expect((await assign(owner, null)).body.assigned_to).toBeNull();
  });
});

describe('team activity (GET /v1/console/activity)', () => {
  it('every workbench write leaves one row with its surface (console, graphql, api), and no applicant details', async () => {
    const id = await queuedCase();
    const a = await reviewer();
    await claim(id, a.token);
    await release(id, a.token);
    await server.graphql(a.token, `mutation { claimReview(id: "${id}") { id } }`);
    await server.request(`/v1/console/reviews/${id}/escalation`, { token: a.token, body: { reason: 'needs a lead' } });
    await server.request(`/v1/console/reviews/${id}/escalation/return`, { token: owner, body: {} });
    await server.request(`/v1/console/reviews/${id}/assignment`, {
      token: owner,
      method: 'PUT',
      body: { member_id: a.id },
    });
    // A key cannot decide a case assigned to a member (issue 27): back to the shared pool first.
    expect(
      (
        await server.request(`/v1/manual-reviews/${id}/decision`, {
          token: account.keys.sandbox.secret_key,
          body: { decision: 'approve' },
        })
      ).status,
    ).toBe(403);
    await server.request(`/v1/console/reviews/${id}/assignment`, {
      token: owner,
      method: 'PUT',
      body: { member_id: null },
    });
    const keyDecision = await server.request(`/v1/manual-reviews/${id}/decision`, {
      token: account.keys.sandbox.secret_key,
      body: { decision: 'approve' },
    });
    expect(keyDecision.status).toBe(200);
    const res = await server.request('/v1/console/activity?limit=100', { token: a.token });
    expect(res.status).toBe(200);
    const rows = res.body.data.filter((r: { target_id: string }) => r.target_id === id).reverse();
    expect(
      rows.map((r: { action: string; surface: string; member_id: string | null }) => [
        r.action,
        r.surface,
        r.member_id,
      ]),
    ).toEqual([
      ['review.claimed', 'console', a.id],
      ['review.released', 'console', a.id],
      ['review.claimed', 'graphql', a.id],
      ['review.escalated', 'console', a.id],
      ['review.escalation_returned', 'console', account.member.id],
      ['review.assigned', 'console', account.member.id],
      ['review.unassigned', 'console', account.member.id],
      ['review.approved', 'api', null],
    ]);
    expect(rows[0]).toMatchObject({ object: 'activity', target_type: 'manual_review', mode: 'sandbox' });
    expect(Object.keys(rows[0]).sort()).toEqual([
      'action',
      'created_at',
      'detail',
      'id',
      'member_id',
      'mode',
      'object',
      'surface',
      'target_id',
      'target_type',
    ]);
    expect(rows[0].detail).toBeNull();
  });
});
