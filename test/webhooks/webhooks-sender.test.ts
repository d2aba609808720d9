import { Webhook } from 'standardwebhooks';
import type { BootstrapResult } from '../../src/services/access/index.js';
import {
  fanOutBatch,
  recoverStaleDeliveries,
  endpointActions,
  recordOutcomes,
  resumeEndpoint,
  type AttemptOutcome,
  DeliverySender,
} from '../../src/services/webhooks/index.js';
import { sql } from '../support/db.js';
import { startReceiver, type Receiver, type ReceivedRequest } from '../support/receiver.js';
import { withTestServer } from '../support/account.js';
import type { TestServer } from '../support/test-server.js';
import { waitFor } from '../support/wait.js';

// No workers: each test drives the fan-out and the sender itself.
let server: TestServer;
let receiver: Receiver;
/** Each test's own account, so its outbox rows fan out to its endpoint only. */
let account: BootstrapResult;

withTestServer((s) => (server = s), { workJobs: false, env: { WEBHOOK_RETRY_SCHEDULE: '0,60' } });
beforeAll(async () => {
  receiver = await startReceiver();
});
beforeEach(async () => {
  account = await server.bootstrap();
});
afterAll(() => receiver.close());

let counter = 0;
const atPath = (path: string) => (r: ReceivedRequest) => r.path === path;

async function endpoint(path: string): Promise<{ id: string; signing_secret: string }> {
  const res = await server.request('/v1/webhooks', {
    token: account.keys.sandbox.secret_key,
    body: { url: `${receiver.url}${path}`, events: ['verification.created'] },
  });
  expect(res.status).toBe(201);
  return res.body;
}

/** Committed outbox rows, as any verification change writes them. */
async function outbox(count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, () => `evt_sender${String(++counter).padStart(18, '0')}`);
  await sql(
    server.databaseUrl,
    `insert into events (id, merchant_id, mode, type, payload, test, created_at, updated_at)
     select unnest($1::text[]), $2, 'sandbox', 'verification.created', '{"verification":{"id":"vs_x"}}', false, now(), now()`,
    [ids, account.merchant.id],
  );
  return ids;
}

const delivery = async (id: string) =>
  (
    await server.sql(
      `select status, attempt_count, lease_until, claim_token, attempts from webhook_deliveries where id = $1`,
      [id],
    )
  )[0];
const deliverJobs = async () =>
  (await server.sql(`select count(*)::int as n from agenda_jobs where name = 'webhooks.deliver'`))[0].n as number;

describe('first attempts sent by the dispatcher (leased fan-out)', () => {
  it('fan-out with a lease inserts the deliveries already claimed, carrying the endpoint url and secret', async () => {
    const ep = await endpoint('/leased');
    await outbox(1);
    const batch = await fanOutBatch(server.runtime, 200, 400);
    expect(batch.leased).toHaveLength(1);
    const [leased] = batch.leased;
    expect(leased).toMatchObject({ url: `${receiver.url}/leased`, secret: ep.signing_secret, endpointId: ep.id });
    const row = await delivery(leased!.id);
    expect(row.claim_token).toBe(leased!.claimToken);
    expect(new Date(row.lease_until).getTime()).toBeGreaterThan(Date.now() + 15_000);
    // Nobody else takes a leased delivery: the stale sweep leaves it alone.
    expect(await recoverStaleDeliveries(server.runtime)).not.toContain(leased!.id);
  });

  it('a batch leases at most its limit; the other deliveries are created unleased for the Agenda delivery job', async () => {
    for (const n of [1, 2, 3]) await endpoint(`/limit-${n}`);
    await outbox(1);
    const batch = await fanOutBatch(server.runtime, 200, 2);
    expect(batch.leased).toHaveLength(2);
    expect(batch.deliveryIds).toHaveLength(1);
    expect(batch.deliveryIds).not.toContain(batch.leased[0]!.id);
    expect(await delivery(batch.deliveryIds[0]!)).toMatchObject({
      status: 'pending',
      lease_until: null,
      claim_token: null,
    });
  });

  it('the sender POSTs each leased delivery once, signed, and writes every attempt without an Agenda job', async () => {
    const ep = await endpoint('/burst');
    const jobsBefore = await deliverJobs();
    await outbox(150);
    const sender = new DeliverySender(server.runtime, { concurrency: 8 });
    const { leased } = await fanOutBatch(server.runtime, 200, 400);
    expect(leased).toHaveLength(150);
    sender.enqueue(leased);
    const requests = await receiver.waitFor(150, atPath('/burst'), 20_000);
    await sender.close();
    expect(new Set(requests.map((r) => r.headers['webhook-id'])).size).toBe(150);
    for (const r of requests) expect(() => new Webhook(ep.signing_secret).verify(r.body, r.headers)).not.toThrow();
    const rows = await server.sql(
      `select status, attempt_count, lease_until, jsonb_array_length(attempts) as logged from webhook_deliveries where endpoint_id = $1`,
      [ep.id],
    );
    expect(rows).toHaveLength(150);
    expect(
      rows.every((r) => r.status === 'delivered' && r.attempt_count === 1 && r.lease_until === null && r.logged === 1),
    ).toBe(true);
    expect(await deliverJobs()).toBe(jobsBefore);
  });

  it('a failed first attempt is logged and its retry scheduled as an Agenda job at the ladder’s delay', async () => {
    const ep = await endpoint('/fails');
    receiver.queue('/fails', { status: 500 });
    await outbox(1);
    const sender = new DeliverySender(server.runtime);
    const { leased } = await fanOutBatch(server.runtime, 200, 400);
    sender.enqueue(leased);
    await sender.close();
    const row = (
      await server.sql(
        `select id, status, attempt_count, next_attempt_at, attempts from webhook_deliveries where endpoint_id = $1`,
        [ep.id],
      )
    )[0];
    expect(row).toMatchObject({ status: 'pending', attempt_count: 1 });
    expect(row.attempts).toEqual([expect.objectContaining({ status_code: 500, error: 'HTTP 500' })]);
    expect(new Date(row.next_attempt_at).getTime()).toBeGreaterThan(Date.now() + 50_000);
    const [job] = await server.sql(
      `select next_run_at from agenda_jobs where name = 'webhooks.deliver' and data->>'deliveryId' = $1`,
      [row.id],
    );
    expect(new Date(job.next_run_at).getTime()).toBe(new Date(row.next_attempt_at).getTime());
  });

  it('a leased delivery that waited past its start-by time is handed back (lease ended) instead of sent, and the sweep re-queues it', async () => {
    await endpoint('/late');
    await outbox(1);
    const { leased } = await fanOutBatch(server.runtime, 200, 400);
    const sender = new DeliverySender(server.runtime);
    sender.enqueue(leased.map((d) => ({ ...d, startBy: Date.now() - 1 })));
    await sender.close();
    const row = await delivery(leased[0]!.id);
    expect(row).toMatchObject({ status: 'pending', attempt_count: 0 });
    expect(new Date(row.lease_until).getTime()).toBeLessThanOrEqual(Date.now());
    expect(receiver.requests.filter(atPath('/late'))).toHaveLength(0);
    expect(await recoverStaleDeliveries(server.runtime)).toContain(leased[0]!.id);
  });

  it("an endpoint's change hands back the first attempts still waiting for it (lease ended); other endpoints' wait on", async () => {
    const changed = await endpoint('/changed');
    const other = await endpoint('/unchanged');
    receiver.queue('/changed', { hang: true });
    await outbox(3);
    const { leased } = await fanOutBatch(server.runtime, 200, 400);
    expect(leased).toHaveLength(6);
    // One attempt at a time, the changed endpoint's first: it hangs, so the rest wait behind it.
    const ordered = [...leased].sort(
      (a, b) => Number(b.endpointId === changed.id) - Number(a.endpointId === changed.id),
    );
    const sender = new DeliverySender(server.runtime, { concurrency: 1 });
    sender.enqueue(ordered);
    await receiver.waitFor(1, atPath('/changed'));
    sender.endpointChanged(changed.id);
    const waitingChanged = ordered
      .slice(1)
      .filter((d) => d.endpointId === changed.id)
      .map((d) => d.id);
    await waitFor(
      async () => {
        for (const id of waitingChanged)
          if (new Date((await delivery(id)).lease_until).getTime() > Date.now()) return false;
        return true;
      },
      5_000,
      "the changed endpoint's waiting attempts handed back",
    );
    expect(await recoverStaleDeliveries(server.runtime)).toEqual(expect.arrayContaining(waitingChanged));
    for (const d of ordered.filter((d) => d.endpointId === other.id)) {
      expect(new Date((await delivery(d.id)).lease_until).getTime()).toBeGreaterThan(Date.now());
    }
    await sender.close(100);
    expect(receiver.requests.filter(atPath('/unchanged'))).toHaveLength(0);
  });

  it('closing while an attempt hangs abandons it to its lease: nothing is written, the delivery stays pending and leased', async () => {
    await endpoint('/hangs');
    receiver.queue('/hangs', { hang: true });
    await outbox(1);
    const { leased } = await fanOutBatch(server.runtime, 200, 400);
    const sender = new DeliverySender(server.runtime);
    sender.enqueue(leased);
    await receiver.waitFor(1, atPath('/hangs'));
    await sender.close(100);
    const row = await delivery(leased[0]!.id);
    expect(row).toMatchObject({
      status: 'pending',
      attempt_count: 0,
      claim_token: leased[0]!.claimToken,
      attempts: [],
    });
    expect(new Date(row.lease_until).getTime()).toBeGreaterThan(Date.now());
    expect(sender.hasRoom).toBe(false);
  });
});

describe('batched attempt records', () => {
  const outcome = (o: Partial<AttemptOutcome> & Pick<AttemptOutcome, 'decision'>): AttemptOutcome => ({
    deliveryId: 'del_x',
    claimToken: 't',
    endpointId: 'we_a',
    finishedAt: 0,
    result: { statusCode: 200, error: null, durationMs: 1, retryAfterSeconds: null },
    ...o,
  });

  it('endpoint consequences replay the batch in finishing order: a failure after a success restarts the failing run; 410 wins; deferrals change nothing', () => {
    const actions = endpointActions([
      outcome({ endpointId: 'a', finishedAt: 3, decision: { kind: 'retry', delaySeconds: 1 } }),
      outcome({ endpointId: 'a', finishedAt: 1, decision: { kind: 'retry', delaySeconds: 1 } }),
      outcome({ endpointId: 'a', finishedAt: 2, decision: { kind: 'delivered' } }),
      outcome({ endpointId: 'b', finishedAt: 1, decision: { kind: 'gone' } }),
      outcome({ endpointId: 'b', finishedAt: 2, decision: { kind: 'delivered' } }),
      outcome({ endpointId: 'c', finishedAt: 1, decision: { kind: 'retry', delaySeconds: 1 } }),
      outcome({ endpointId: 'c', finishedAt: 2, decision: { kind: 'defer', delaySeconds: 1 } }),
      outcome({ endpointId: 'd', finishedAt: 1, decision: { kind: 'defer', delaySeconds: 1 } }),
      outcome({ endpointId: 'e', finishedAt: 1, decision: { kind: 'failed' } }),
      outcome({ endpointId: 'e', finishedAt: 2, decision: { kind: 'delivered' } }),
    ]);
    expect(Object.fromEntries(actions)).toEqual({
      a: { action: 'restart', failures: 1 },
      b: { action: 'gone', failures: 0 },
      c: { action: 'fail', failures: 1 },
      e: { action: 'ok', failures: 0 },
    });
  });

  it('an attempt is written only under the claim it was made with, and five days of failures disable the endpoint', async () => {
    const ep = await endpoint('/records');
    await outbox(1);
    const { leased } = await fanOutBatch(server.runtime, 200, 400);
    const d = leased[0]!;
    const failure = { statusCode: 500, error: 'HTTP 500', durationMs: 3, retryAfterSeconds: null };
    const stale = await recordOutcomes(server.runtime.orm, [
      outcome({
        deliveryId: d.id,
        claimToken: 'someone-else',
        endpointId: ep.id,
        result: failure,
        finishedAt: Date.now(),
        decision: { kind: 'retry', delaySeconds: 5 },
      }),
    ]);
    expect(stale).toEqual({ retries: [], paused: [] });
    expect(await delivery(d.id)).toMatchObject({ attempt_count: 0, attempts: [], claim_token: d.claimToken });

    await server.sql(`update webhook_endpoints set failing_since = now() - interval '6 days' where id = $1`, [ep.id]);
    const { retries } = await recordOutcomes(server.runtime.orm, [
      outcome({
        deliveryId: d.id,
        claimToken: d.claimToken,
        endpointId: ep.id,
        result: failure,
        finishedAt: Date.now(),
        decision: { kind: 'retry', delaySeconds: 5 },
      }),
    ]);
    expect(retries.map((r) => r.deliveryId)).toEqual([d.id]);
    expect(await delivery(d.id)).toMatchObject({
      status: 'pending',
      attempt_count: 1,
      claim_token: null,
      lease_until: null,
    });
    const [endpointRow] = await server.sql(`select status, disabled_reason from webhook_endpoints where id = $1`, [
      ep.id,
    ]);
    expect(endpointRow).toEqual({ status: 'disabled', disabled_reason: 'failing' });
  });
});

describe('one endpoint cannot take every attempt (issue 27)', () => {
  it('the sender keeps at most its per-endpoint cap of attempts in flight for one endpoint; the rest wait their turn', async () => {
    await endpoint('/slow');
    receiver.queue('/slow', ...Array.from({ length: 12 }, () => ({ delayMs: 400 })));
    await outbox(12);
    const sender = new DeliverySender(server.runtime, { concurrency: 64, perEndpoint: 4 });
    const { leased } = await fanOutBatch(server.runtime, 200, 400);
    sender.enqueue(leased);
    const requests = await receiver.waitFor(12, atPath('/slow'), 20_000);
    await sender.close();
    // Each answer takes 400 ms: with 4 in flight, no 300 ms window sees more than 4 arrive.
    const at = requests.map((r) => r.at).sort((a, b) => a - b);
    const busiest = Math.max(...at.map((t) => at.filter((u) => u >= t && u < t + 300).length));
    expect(busiest).toBeLessThanOrEqual(4);
    expect(at[at.length - 1]! - at[0]!).toBeGreaterThanOrEqual(700);
  });

  it('an endpoint failing 10 times in a row is paused (still active): new deliveries for it wait without a lease or a job, and one probe is scheduled', async () => {
    const ep = await endpoint('/down');
    receiver.queue('/down', ...Array.from({ length: 10 }, () => ({ status: 500 })));
    await outbox(10);
    const sender = new DeliverySender(server.runtime);
    sender.enqueue((await fanOutBatch(server.runtime, 200, 400)).leased);
    await sender.close();
    const [row] = await server.sql(
      `select status, consecutive_failures, paused_until from webhook_endpoints where id = $1`,
      [ep.id],
    );
    expect(row).toMatchObject({ status: 'active', consecutive_failures: 10 });
    expect(new Date(row.paused_until).getTime()).toBeGreaterThan(Date.now() + 20_000);
    const [probe] = await server.sql(
      `select next_run_at from agenda_jobs where name = 'webhooks.resume' and data->>'endpointId' = $1`,
      [ep.id],
    );
    expect(new Date(probe.next_run_at).getTime()).toBe(new Date(row.paused_until).getTime());

    const jobsBefore = await deliverJobs();
    await outbox(3);
    const batch = await fanOutBatch(server.runtime, 200, 400);
    expect(batch.leased).toEqual([]);
    expect(batch.deliveryIds).toEqual([]);
    expect(await deliverJobs()).toBe(jobsBefore);
    const parked = await server.sql(
      `select id, next_attempt_at, lease_until from webhook_deliveries where endpoint_id = $1 and attempt_count = 0`,
      [ep.id],
    );
    expect(parked).toHaveLength(3);
    for (const p of parked) expect(new Date(p.next_attempt_at).getTime()).toBe(new Date(row.paused_until).getTime());
    // The stale sweep leaves a paused endpoint's deliveries to its probe.
    await server.sql(
      `update webhook_deliveries set next_attempt_at = now() - interval '2 minutes' where endpoint_id = $1 and attempt_count = 0`,
      [ep.id],
    );
    expect(
      await server.sql(`select 1 from webhook_deliveries where endpoint_id = $1 and id = any($2)`, [
        ep.id,
        await recoverStaleDeliveries(server.runtime),
      ]),
    ).toEqual([]);

    // The pause ends and the receiver answers again: the probe is delivered, the pause cleared, the waiting deliveries queued.
    await server.sql(`update webhook_endpoints set paused_until = now() - interval '1 second' where id = $1`, [ep.id]);
    await resumeEndpoint(server.runtime, ep.id);
    expect(
      (await server.sql(`select consecutive_failures, paused_until from webhook_endpoints where id = $1`, [ep.id]))[0],
    ).toEqual({ consecutive_failures: 0, paused_until: null });
    const states = await server.sql(
      `select d.status, exists (select 1 from agenda_jobs j where j.name = 'webhooks.deliver' and j.data->>'deliveryId' = d.id) as queued from webhook_deliveries d where d.id = any($1)`,
      [parked.map((p) => p.id)],
    );
    expect(states.filter((d) => d.status === 'delivered')).toHaveLength(1);
    expect(states.filter((d) => d.status === 'pending')).toEqual([
      { status: 'pending', queued: true },
      { status: 'pending', queued: true },
    ]);
  });
});
