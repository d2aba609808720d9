import { Webhook } from 'standardwebhooks';
import type { BootstrapResult } from '../../src/services/access/index.js';
import {
  flushRequestLog,
  purgeRequestLogs,
  RequestLogWriter,
  truncateIp,
  type RequestLogEntry,
} from '../../src/services/logs/index.js';
import {
  AuditTrailDocument,
  DeliveryLogDocument,
  DeliveryLogsDocument,
  DeliveryLogWithBodyDocument,
  ReplayDeliveryDocument,
  RequestLogsDocument,
} from '../graphql/generated.js';
import { gql } from '../support/graphql.js';
import type { TestServer } from '../support/test-server.js';
import { withTestAccount } from '../support/account.js';
import { createVerification } from '../support/factories.js';
import { signedInMember } from '../support/members.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { waitFor } from '../support/wait.js';

let server: TestServer;
let account: BootstrapResult;
let sandbox: string;
let owner: string;
let receiver: Receiver;
withTestAccount(async (t) => {
  ({ server, account, sandbox } = t);
  owner = account.member.session_token;
  receiver = await startReceiver();
});
afterAll(() => receiver?.close());

const requestLogs = async (query: string, token = owner) => {
  await flushRequestLog(server.runtime);
  return server.request(`/v1/console/logs/requests${query}`, { token });
};

describe("request log: every call of the account's keys", () => {
  it('records key name, method, route with ids kept and identity-bearing query values masked, status, duration, request id, and the IP truncated to /24', async () => {
    const call = await server.request('/v1/verifications?email=ada.lovelace@example.com&limit=5', {
      token: sandbox,
      headers: { 'x-request-id': 'trace-masking-1' },
    });
    expect(call.status).toBe(200);
    const res = await requestLogs('?route=/v1/verifications&limit=100');
    expect(res.status).toBe(200);
    const row = res.body.data.find((r: { request_id: string }) => r.request_id === 'trace-masking-1');
    expect(row).toMatchObject({
      object: 'request_log',
      mode: 'sandbox',
      api_key_id: account.keys.sandbox.id,
      key_name: 'Bootstrap sandbox key',
      method: 'GET',
      route: '/v1/verifications?email=***&limit=5',
      status: 200,
      ip: '127.0.0.0/24',
    });
    expect(row.duration_ms).toBeGreaterThan(0);
    // Stored truncated and masked, not only shown so.
    const stored = await server.sql(`select ip, route from request_logs where request_id = 'trace-masking-1'`);
    expect(stored).toEqual([{ ip: '127.0.0.0/24', route: '/v1/verifications?email=***&limit=5' }]);
    expect(await server.sql(`select id from request_logs where route like '%lovelace%' or route like '%@%'`)).toEqual(
      [],
    );
  });

  it('keeps ids in the path, masks a path segment that is not an id, and records failures with their status', async () => {
    const v = await createVerification(server, account);
    await server.request(`/v1/verifications/${v.id}`, { token: sandbox, headers: { 'x-request-id': 'trace-id-kept' } });
    const missing = await server.request('/v1/verifications/ada@example.com', {
      token: sandbox,
      headers: { 'x-request-id': 'trace-path-masked' },
    });
    expect(missing.status).toBe(404);
    const rows = (await requestLogs('?limit=100')).body.data;
    expect(rows.find((r: { request_id: string }) => r.request_id === 'trace-id-kept')).toMatchObject({
      route: `/v1/verifications/${v.id}`,
      status: 200,
    });
    expect(rows.find((r: { request_id: string }) => r.request_id === 'trace-path-masked')).toMatchObject({
      route: '/v1/verifications/***',
      status: 404,
    });
  });

  it('truncates IPv6 to its /48 and IPv4-mapped addresses to the IPv4 /24', () => {
    expect(truncateIp('2001:db8:abcd:12:3456:789a:bcde:f012')).toBe('2001:db8:abcd::/48');
    expect(truncateIp('::ffff:203.0.113.77')).toBe('203.0.113.0/24');
    expect(truncateIp('198.51.100.250')).toBe('198.51.100.0/24');
    expect(truncateIp(undefined)).toBeNull();
  });

  it('filters by key, status class and route, and pages with a cursor without overlap', async () => {
    const minted = await server.request('/v1/api-keys', {
      token: sandbox,
      body: { name: 'Filter me', environment: 'sandbox' },
    });
    expect(minted.status).toBe(201);
    const other = minted.body.secret_key as string;
    for (let i = 0; i < 5; i++) await server.request('/v1/flows', { token: other });
    await server.request('/v1/verifications/vs_doesnotexist0000000000', { token: other });
    const byKey = (await requestLogs(`?key=${minted.body.id}&limit=100`)).body.data;
    expect(byKey).toHaveLength(6);
    expect(
      byKey.every(
        (r: { api_key_id: string; key_name: string }) => r.api_key_id === minted.body.id && r.key_name === 'Filter me',
      ),
    ).toBe(true);
    const failed = (await requestLogs(`?key=${minted.body.id}&status=4xx`)).body.data;
    expect(failed.map((r: { status: number }) => r.status)).toEqual([404]);
    expect((await requestLogs(`?key=${minted.body.id}&route=/v1/flows`)).body.data).toHaveLength(5);

    const seen: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 3; page++) {
      const res = await requestLogs(`?key=${minted.body.id}&limit=2${cursor ? `&starting_after=${cursor}` : ''}`);
      seen.push(...res.body.data.map((r: { id: string }) => r.id));
      expect(res.body.has_more).toBe(page < 2);
      cursor = res.body.next_cursor;
    }
    expect(cursor).toBeNull();
    expect(new Set(seen).size).toBe(6);
    expect(seen).toEqual(byKey.map((r: { id: string }) => r.id));
    const future = new Date(Date.now() + 3_600_000).toISOString();
    expect((await requestLogs(`?key=${minted.body.id}&since=${encodeURIComponent(future)}`)).body.data).toEqual([]);
  });

  it("pages the account's whole log across its keys newest first, ties in one millisecond broken by id, each id carrying its call's time", async () => {
    const fresh = await server.bootstrap();
    const freshToken = fresh.member.session_token;
    const second = await server.request('/v1/api-keys', {
      token: fresh.keys.sandbox.secret_key,
      body: { name: 'Second', environment: 'sandbox' },
    });
    expect(second.status).toBe(201);
    const keys = [fresh.keys.sandbox.id, second.body.id as string, fresh.keys.live.id];
    // 9 calls over 3 keys (one live), interleaved in time, three of them in the same millisecond.
    await server.sql(
      `insert into request_logs (id, merchant_id, mode, api_key_id, key_name, method, route, status, duration_ms, request_id, ip, created_at)
       select request_log_id(t.ts, 'seed' || lpad(g::text, 11, '0')), $1, case when g % 3 = 2 then 'live' else 'sandbox' end, ($2::uuid[])[g % 3 + 1], 'k', 'GET', '/v1/merchant', 200, 1, 'seed-' || g, null, t.ts
         from generate_series(1, 9) g
        cross join lateral (select date_trunc('milliseconds', now()) - make_interval(secs => case when g in (4, 5, 6) then 4 else g end) ts) t`,
      [fresh.merchant.id, keys],
    );
    await flushRequestLog(server.runtime);
    const expected = (
      await server.sql<{ id: string }>(
        `select id from request_logs where merchant_id = $1 order by created_at desc, id desc`,
        [fresh.merchant.id],
      )
    ).map((r) => r.id);
    expect(expected).toHaveLength(10); // the 9 seeded and the call that minted the second key
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await requestLogs(`?limit=2${cursor ? `&starting_after=${cursor}` : ''}`, freshToken);
      expect(res.status).toBe(200);
      seen.push(...res.body.data.map((r: { id: string }) => r.id));
      cursor = res.body.has_more ? res.body.next_cursor : null;
    } while (cursor);
    expect(seen).toEqual(expected);
    const sandboxOnly = (await requestLogs('?mode=sandbox&limit=100', freshToken)).body.data.map(
      (r: { id: string }) => r.id,
    );
    expect(sandboxOnly).toEqual(
      (
        await server.sql<{ id: string }>(
          `select id from request_logs where merchant_id = $1 and mode = 'sandbox' order by created_at desc, id desc`,
          [fresh.merchant.id],
        )
      ).map((r) => r.id),
    );

    // A call through the API: its id's time part is the millisecond stored as created_at.
    await server.request('/v1/merchant', {
      token: fresh.keys.sandbox.secret_key,
      headers: { 'x-request-id': 'trace-id-time' },
    });
    const [row] = (await requestLogs('?limit=1', freshToken)).body.data;
    expect(row.request_id).toBe('trace-id-time');
    expect(parseInt(row.id.slice(4, 13), 36)).toBe(Date.parse(row.created_at));
    const malformed = await requestLogs('?starting_after=rlg_Z', freshToken);
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.param).toBe('starting_after');
  });

  it("writes a busy process's calls in full batches and the remainder on the timer or a flush", async () => {
    const writer = new RequestLogWriter(server.runtime.orm, server.runtime.logger, {
      batchSize: 100,
      flushIntervalMs: 60_000,
    });
    const marker = `batch-${Date.now()}`;
    const count = async () =>
      Number(
        (
          await server.sql<{ n: string }>(`select count(*) n from request_logs where request_id like $1`, [
            `${marker}-%`,
          ])
        )[0]!.n,
      );
    const call = (i: number): RequestLogEntry => ({
      merchantId: account.merchant.id,
      mode: 'sandbox',
      apiKeyId: account.keys.sandbox.id,
      keyName: 'batch',
      method: 'GET',
      route: '/v1/merchant',
      status: 200,
      durationMs: 1,
      requestId: `${marker}-${i}`,
      ip: null,
      createdAt: new Date(),
    });
    for (let i = 0; i < 250; i++) writer.push(call(i));
    await waitFor(async () => (await count()) === 200);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await count()).toBe(200); // two full batches; the 50 left wait for the timer
    await writer.flush();
    expect(await count()).toBe(250);
    // A flush writes what it holds when it starts; calls arriving meanwhile wait for a full batch or the timer.
    for (let i = 1000; i < 1050; i++) writer.push(call(i));
    const flushing = writer.flush();
    await new Promise((resolve) => setImmediate(resolve)); // the flush has begun its insert
    for (let i = 1050; i < 1060; i++) writer.push(call(i));
    await flushing;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await count()).toBe(300);
    await writer.flush();
    expect(await count()).toBe(310);
    const quick = new RequestLogWriter(server.runtime.orm, server.runtime.logger, {
      batchSize: 100,
      flushIntervalMs: 50,
    });
    for (let i = 250; i < 253; i++) quick.push(call(i));
    await waitFor(async () => (await count()) === 313);
    await Promise.all([writer.close(), quick.close()]);
  });

  it("is scoped to the account and the seat's environments, and needs logs.read", async () => {
    await server.request('/v1/merchant', { token: sandbox, headers: { 'x-request-id': 'trace-scope' } });
    const stranger = await server.bootstrap();
    const theirs = (await requestLogs('?limit=100', stranger.member.session_token)).body.data;
    expect(theirs.find((r: { request_id: string }) => r.request_id === 'trace-scope')).toBeUndefined();
    const liveSeat = await signedInMember(server, account, ['logs.read'], ['live']);
    expect(
      (await requestLogs('?limit=100', liveSeat.token)).body.data.every((r: { mode: string }) => r.mode === 'live'),
    ).toBe(true);
    const noLogs = await signedInMember(server, account, ['verifications.reveal']);
    const refused = await requestLogs('', noLogs.token);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('INSUFFICIENT_PERMISSIONS');
    expect((await server.request('/v1/console/logs/requests', { token: sandbox })).status).toBe(401);
    const bad = await requestLogs('?status=2xy');
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('status');
  });

  it('keeps 30 days: the retention purge deletes older rows and leaves recent ones', async () => {
    await server.request('/v1/merchant', { token: sandbox, headers: { 'x-request-id': 'trace-recent' } });
    await flushRequestLog(server.runtime);
    await server.sql(
      `insert into request_logs (id, merchant_id, mode, api_key_id, key_name, method, route, status, duration_ms, request_id, ip, created_at)
       values ('rlg_old000000000000000000000', $1, 'sandbox', $2, 'k', 'GET', '/v1/merchant', 200, 1, 'trace-old', '127.0.0.0/24', now() - interval '31 days')`,
      [account.merchant.id, account.keys.sandbox.id],
    );
    expect(await purgeRequestLogs(server.runtime)).toBeGreaterThanOrEqual(1);
    expect(
      await server.sql(`select request_id from request_logs where request_id in ('trace-old', 'trace-recent')`),
    ).toEqual([{ request_id: 'trace-recent' }]);
  });
});

/** A sandbox endpoint on the receiver; resolves to its id and signing secret. */
async function endpoint(path: string): Promise<{ id: string; signing_secret: string }> {
  const res = await server.request('/v1/webhooks', {
    token: sandbox,
    body: { url: `${receiver.url}${path}`, events: ['verification.completed', 'verification.approved'] },
  });
  expect(res.status).toBe(201);
  return res.body;
}

/** A test event through the real delivery path, delivered; resolves to its delivery id. */
async function deliveredTest(endpointId: string): Promise<string> {
  const sent = await server.request(`/v1/webhooks/${endpointId}/test`, { token: sandbox, body: {} });
  expect(sent.status).toBe(202);
  await waitFor(
    async () =>
      (await server.sql(`select 1 from webhook_deliveries where id = $1 and status = 'delivered'`, [sent.body.id]))
        .length > 0,
    15_000,
    'the delivery',
  );
  return sent.body.id;
}

const audit = async (action: string) =>
  (await server.request('/v1/console/audit?limit=100', { token: owner })).body.data.filter(
    (a: { action: string }) => a.action === action,
  );

describe('delivery log', () => {
  it('lists deliveries of every endpoint with attempts, response code and error, filtered by status and event', async () => {
    const ep = await endpoint('/list');
    const id = await deliveredTest(ep.id);
    const res = await server.request(
      '/v1/console/logs/deliveries?status=delivered&event=verification.completed&limit=100',
      { token: owner },
    );
    expect(res.status).toBe(200);
    const row = res.body.data.find((d: { id: string }) => d.id === id);
    expect(row).toMatchObject({
      object: 'webhook_delivery',
      endpoint_id: ep.id,
      event: 'verification.completed',
      status: 'delivered',
      attempt_count: 1,
      response_code: 200,
      error: null,
      test: true,
    });
    expect(row.attempts).toHaveLength(1);
    expect(row).not.toHaveProperty('body');
    expect(
      (await server.request('/v1/console/logs/deliveries?status=failed', { token: owner })).body.data.find(
        (d: { id: string }) => d.id === id,
      ),
    ).toBeUndefined();
    const stranger = await server.bootstrap();
    expect(
      (await server.request('/v1/console/logs/deliveries', { token: stranger.member.session_token })).body.data,
    ).toEqual([]);
    expect(
      (await server.request(`/v1/console/logs/deliveries/${id}`, { token: stranger.member.session_token })).status,
    ).toBe(404);
  });

  it('leaves the body out (absent, not null) without verifications.reveal, and shows it with it, audited with the verification, never the values', async () => {
    const ep = await endpoint('/detail');
    const v = await createVerification(server, account, 'sandbox', {
      sandbox: { outcome: 'approved' },
      applicant: { email: 'grace.hopper@example.com' },
    });
    const [delivery] = await waitFor(
      async () => {
        const rows = await server.sql<{ id: string }>(
          `select id from webhook_deliveries where endpoint_id = $1 and event_type = 'verification.approved' and status = 'delivered'`,
          [ep.id],
        );
        return rows.length ? rows : undefined;
      },
      20_000,
      'the approved delivery',
    );
    const before = (await audit('delivery.body_viewed')).length;

    const logsOnly = await signedInMember(server, account, ['logs.read']);
    const hidden = await server.request(`/v1/console/logs/deliveries/${delivery!.id}`, { token: logsOnly.token });
    expect(hidden.status).toBe(200);
    expect(Object.keys(hidden.body)).not.toContain('body');
    expect((await audit('delivery.body_viewed')).length).toBe(before);

    const shown = await server.request(`/v1/console/logs/deliveries/${delivery!.id}`, { token: owner });
    expect(shown.body.body).toMatchObject({
      object: 'event',
      type: 'verification.approved',
      data: { verification: { id: v.id } },
    });
    const rows = await audit('delivery.body_viewed');
    expect(rows.length).toBe(before + 1);
    expect(rows[0]).toMatchObject({
      member_id: account.member.id,
      verification_id: v.id,
      field_names: null,
      image_count: null,
      row_count: null,
      mode: 'sandbox',
    });
    expect(JSON.stringify(rows[0])).not.toContain('grace');
  });

  it('replays a delivered delivery on the normal ladder: the receiver gets it again under the same webhook-id with a valid signature', async () => {
    const ep = await endpoint('/replay');
    const id = await deliveredTest(ep.id);
    const first = (await receiver.waitFor(1, (r) => r.path === '/replay'))[0]!;
    const replayed = await server.request(`/v1/console/logs/deliveries/${id}/replay`, { token: owner, method: 'POST' });
    expect(replayed.status).toBe(202);
    expect(replayed.body).toMatchObject({ id, status: 'pending', attempt_count: 0 });
    const [, second] = await receiver.waitFor(2, (r) => r.path === '/replay');
    expect(second!.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(second!.body).toBe(first.body);
    expect(() => new Webhook(ep.signing_secret).verify(second!.body, second!.headers)).not.toThrow();
    const after = await waitFor(
      async () => {
        const res = await server.request(`/v1/console/logs/deliveries/${id}`, { token: owner });
        return res.body.status === 'delivered' ? res.body : undefined;
      },
      15_000,
      'the replayed delivery',
    );
    expect(after.attempt_count).toBe(1);
    expect(after.attempts).toHaveLength(2);
    const [activity] = (await server.request('/v1/console/activity', { token: owner })).body.data;
    expect(activity).toMatchObject({
      action: 'delivery.replayed',
      target_type: 'webhook_delivery',
      target_id: id,
      surface: 'console',
    });
  });

  it('refuses to replay for a disabled endpoint (WEBHOOK_ENDPOINT_DISABLED) or a deleted one (WEBHOOK_ENDPOINT_DELETED), and without logs.read', async () => {
    const ep = await endpoint('/refused');
    const id = await deliveredTest(ep.id);
    expect(
      (await server.request(`/v1/webhooks/${ep.id}`, { token: sandbox, method: 'PATCH', body: { status: 'disabled' } }))
        .status,
    ).toBe(200);
    const disabled = await server.request(`/v1/console/logs/deliveries/${id}/replay`, { token: owner, method: 'POST' });
    expect(disabled.status).toBe(409);
    expect(disabled.body.error).toMatchObject({ type: 'invalid_request_error', code: 'WEBHOOK_ENDPOINT_DISABLED' });
    expect((await server.request(`/v1/webhooks/${ep.id}`, { token: sandbox, method: 'DELETE' })).status).toBe(200);
    const deleted = await server.request(`/v1/console/logs/deliveries/${id}/replay`, {
      token: owner,
      method: 'POST',
      body: {},
    });
    expect(deleted.status).toBe(409);
    expect(deleted.body.error.code).toBe('WEBHOOK_ENDPOINT_DELETED');
    expect((await server.sql(`select status from webhook_deliveries where id = $1`, [id]))[0].status).toBe('delivered');
    const noLogs = await signedInMember(server, account, ['verifications.reveal']);
    expect(
      (await server.request(`/v1/console/logs/deliveries/${id}/replay`, { token: noLogs.token, method: 'POST' }))
        .status,
    ).toBe(403);
    expect(
      (
        await server.request('/v1/console/logs/deliveries/del_unknown000000000000000/replay', {
          token: owner,
          method: 'POST',
        })
      ).status,
    ).toBe(404);
  });
});

describe('GraphQL: the same logs through the same services', () => {
  it('answers requestLogs with the REST rows and filters, and refuses a seat without logs.read', async () => {
    await server.request('/v1/merchant', { token: sandbox, headers: { 'x-request-id': 'trace-graphql' } });
    await flushRequestLog(server.runtime);
    const rest = (
      await server.request(`/v1/console/logs/requests?key=${account.keys.sandbox.id}&status=2xx&limit=5`, {
        token: owner,
      })
    ).body.data;
    const res = await gql(server, owner, RequestLogsDocument, {
      filter: { apiKeyId: account.keys.sandbox.id, statusClass: '2xx' },
      first: 5,
    });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data!.requestLogs.nodes.map((n) => n.id)).toEqual(rest.map((r: { id: string }) => r.id));
    expect(res.body.data!.requestLogs.nodes[0]).toMatchObject({
      environment: 'sandbox',
      route: rest[0].route,
      ip: '127.0.0.0/24',
    });
    const bad = await gql(server, owner, RequestLogsDocument, { filter: { statusClass: 'ok' } });
    expect(bad.body.errors![0]!.extensions.code).toBe('PARAMETER_INVALID');
    const noLogs = await signedInMember(server, account, ['verifications.reveal']);
    const refused = await gql(server, noLogs.token, RequestLogsDocument, {});
    expect(refused.body.errors![0]!.extensions.code).toBe('INSUFFICIENT_PERMISSIONS');
  });

  it('answers deliveryLogs and deliveryLog; the body needs verifications.reveal and its view is audited; replayDelivery re-arms', async () => {
    const ep = await endpoint('/graphql');
    const id = await deliveredTest(ep.id);
    const list = await gql(server, owner, DeliveryLogsDocument, { status: 'delivered', first: 100 });
    expect(list.body.data!.deliveryLogs.nodes.find((n) => n.id === id)).toMatchObject({
      endpointId: ep.id,
      attemptCount: 1,
      responseCode: 200,
      error: null,
    });
    const logsOnly = await signedInMember(server, account, ['logs.read']);
    expect((await gql(server, logsOnly.token, DeliveryLogDocument, { id })).body.data!.deliveryLog).toMatchObject({
      id,
      status: 'delivered',
    });
    const withoutReveal = await gql(server, logsOnly.token, DeliveryLogWithBodyDocument, { id });
    expect(withoutReveal.body.errors![0]!.extensions.code).toBe('INSUFFICIENT_PERMISSIONS');
    const before = (await audit('delivery.body_viewed')).length;
    const shown = await gql(server, owner, DeliveryLogWithBodyDocument, { id });
    expect(shown.body.data!.deliveryLog.body).toMatchObject({ object: 'event', test: true });
    expect((await audit('delivery.body_viewed')).length).toBe(before + 1);
    const trail = (await gql(server, logsOnly.token, AuditTrailDocument, { first: 100 })).body.data!.auditEvents.nodes;
    expect(trail.filter((a) => a.action === 'delivery.body_viewed')).toHaveLength(before + 1);
    expect(trail.find((a) => a.action === 'delivery.body_viewed')).toMatchObject({
      memberId: account.member.id,
      environment: 'sandbox',
      fieldNames: null,
      rowCount: null,
    });
    const replayed = await gql(server, owner, ReplayDeliveryDocument, { id });
    expect(replayed.body.data!.replayDelivery).toMatchObject({ id, status: 'pending', attemptCount: 0 });
    await receiver.waitFor(2, (r) => r.path === '/graphql');
  });
});
