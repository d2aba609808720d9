import pg from 'pg';
import { OutboxSignal, outboxSignalFor, dispatchEvents, senderFor } from '../../src/services/webhooks/index.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { withTestServer } from '../support/account.js';
import type { TestServer } from '../support/test-server.js';
import { waitFor } from '../support/wait.js';
import { capturingLogger, testLogger } from '../support/logs.js';

const insertEvent = (client: pg.Client, id: string, merchantId: string) =>
  client.query(
    `insert into events (id, merchant_id, mode, type, payload, test, created_at, updated_at) values ($1, $2, 'sandbox', 'verification.created', '{}', false, now(), now())`,
    [id, merchantId],
  );

// Jobs off: the only dispatcher is the one a test runs.
let server: TestServer;
let merchantId: string;
let token: string;
withTestServer(
  async (s) => {
    server = s;
    const account = await server.bootstrap();
    merchantId = account.merchant.id;
    token = account.keys.sandbox.secret_key;
  },
  { workJobs: false },
);

describe('outbox signal (LISTEN/NOTIFY on events)', () => {
  let signal: OutboxSignal;
  let client: pg.Client;

  beforeAll(async () => {
    signal = new OutboxSignal(server.databaseUrl, testLogger());
    await signal.start();
    client = new pg.Client({ connectionString: server.databaseUrl });
    await client.connect();
  });
  afterAll(async () => {
    await client.end();
    await signal.close();
  });

  it('a committed events insert wakes a waiter; an uncommitted one does not', async () => {
    expect(signal.listening).toBe(true);
    const seen = signal.generation;
    await client.query('begin');
    await insertEvent(client, 'evt_signal_uncommitted_0000001', merchantId);
    await insertEvent(client, 'evt_signal_uncommitted_0000002', merchantId);
    const before = Date.now();
    await signal.wait(seen, 300);
    expect(Date.now() - before).toBeGreaterThanOrEqual(250); // timed out: nothing was delivered before commit
    expect(signal.generation).toBe(seen);

    const woken = signal.wait(seen, 10_000);
    const committedAt = Date.now();
    await client.query('commit');
    await woken;
    expect(Date.now() - committedAt).toBeLessThan(5_000);
    // Two inserts, one transaction: one notification.
    await new Promise((r) => setTimeout(r, 100));
    expect(signal.generation).toBe(seen + 1);
  });

  it('a notification that came before the wait began is not slept through', async () => {
    const seen = signal.generation;
    await insertEvent(client, 'evt_signal_early_000000000001', merchantId);
    await waitFor(async () => signal.generation !== seen, 5_000, 'the notification');
    const before = Date.now();
    await signal.wait(seen, 10_000);
    expect(Date.now() - before).toBeLessThan(1_000);
  });

  it("a webhook endpoint's url, secret, status or deletion change notifies its id; outcome bookkeeping does not", async () => {
    const account = await server.bootstrap();
    const key = account.keys.sandbox.secret_key;
    const created = await server.request('/v1/webhooks', {
      token: key,
      body: { url: 'https://hooks.example.com/a', events: ['verification.created'] },
    });
    expect(created.status).toBe(201);
    const id: string = created.body.id;
    const seen: string[] = [];
    const unsubscribe = signal.onEndpointChange((endpointId) => seen.push(endpointId));
    try {
      const changes: [string, Parameters<TestServer['request']>[1]][] = [
        [`/v1/webhooks/${id}/rotate_secret`, { token: key, method: 'POST' }],
        [`/v1/webhooks/${id}`, { token: key, method: 'PATCH', body: { status: 'disabled' } }],
        [`/v1/webhooks/${id}`, { token: key, method: 'PATCH', body: { url: 'https://hooks.example.com/b' } }],
        [`/v1/webhooks/${id}`, { token: key, method: 'DELETE' }],
      ];
      for (const [path, options] of changes) {
        const before = seen.length;
        expect((await server.request(path, options)).status).toBe(200);
        await waitFor(async () => seen.length > before, 5_000, `the notification of ${options?.method} ${path}`);
        expect(seen[seen.length - 1]).toBe(id);
      }
      const before = seen.length;
      await client.query(`update webhook_endpoints set failing_since = now(), updated_at = now() where id = $1`, [id]);
      await new Promise((r) => setTimeout(r, 300));
      expect(seen.length).toBe(before);
    } finally {
      unsubscribe();
    }
  });

  it('a database it cannot reach leaves it not listening (the dispatcher then polls), logged once, and close ends waits', async () => {
    const { logger, lines } = capturingLogger();
    const unreachable = new OutboxSignal('postgres://nobody:nothing@127.0.0.1:1/none', logger);
    await unreachable.start();
    expect(unreachable.listening).toBe(false);
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!).msg).toMatch(/LISTEN connection lost/);
    const pending = unreachable.wait(unreachable.generation, 60_000);
    await unreachable.close();
    await pending; // resolves at close instead of hanging for a minute
  });
});

describe('dispatcher woken by commits', () => {
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(() => receiver.close());

  it('an event committed while the dispatcher idles is fanned out at once, not at its next sweep', async () => {
    let stop = false;
    try {
      const endpoint = await server.request('/v1/webhooks', {
        token,
        body: { url: `${receiver.url}/woken`, events: ['verification.created'] },
      });
      expect(endpoint.status).toBe(201);
      // No sweep within the run (one a minute): only the commit's notification can wake it, so
      // the bound below holds on a loaded machine and still fails if the wake-up is lost.
      const running = dispatchEvents(server.runtime, 20_000, () => stop, 60_000);
      // Let the run drain what bootstrap left and settle into its wait.
      await new Promise((r) => setTimeout(r, 500));
      // Listening, so the run is not on its 100 ms fallback poll either.
      expect((await outboxSignalFor(server.runtime)).listening).toBe(true);
      const client = new pg.Client({ connectionString: server.databaseUrl });
      await client.connect();
      try {
        await insertEvent(client, 'evt_woken_00000000000000000001', merchantId);
      } finally {
        await client.end();
      }
      const committedAt = Date.now();
      await waitFor(
        async () =>
          (await server.sql(`select 1 from webhook_deliveries where event_id = 'evt_woken_00000000000000000001'`))
            .length > 0,
        10_000,
        'the delivery',
      );
      expect(Date.now() - committedAt).toBeLessThan(10_000);
      stop = true;
      await running;
    } finally {
      stop = true;
    }
  }, 30_000);

  it("the dispatching process's sender hears of endpoint changes: a rotated secret reaches it", async () => {
    await dispatchEvents(server.runtime, 0); // the first run wires the sender to the signal
    const sender = senderFor(server.runtime);
    const heard: string[] = [];
    const original = sender.endpointChanged.bind(sender);
    sender.endpointChanged = (endpointId: string) => {
      heard.push(endpointId);
      original(endpointId);
    };
    try {
      const endpoint = await server.request('/v1/webhooks', {
        token,
        body: { url: `${receiver.url}/rotated`, events: ['verification.created'] },
      });
      expect(
        (await server.request(`/v1/webhooks/${endpoint.body.id}/rotate_secret`, { token, method: 'POST' })).status,
      ).toBe(200);
      await waitFor(async () => heard.includes(endpoint.body.id), 5_000, 'the sender to hear of the rotation');
    } finally {
      sender.endpointChanged = original;
    }
  });
});
