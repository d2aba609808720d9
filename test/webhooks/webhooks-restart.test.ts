import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { fanOutBatch } from '../../src/services/webhooks/index.js';
import { sql } from '../support/db.js';
import { startReceiver, type Receiver, type ReceivedRequest } from '../support/receiver.js';
import { startTestServer } from '../support/test-server.js';
import { waitFor } from '../support/wait.js';

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

const atPath = (path: string) => (r: ReceivedRequest) => r.path === path;

describe('at least once, never lost', () => {
  it('a worker stopped while a delivery is in flight loses nothing: a new worker on the same database redelivers the same id and body', async () => {
    const first = await startTestServer();
    const account = await first.bootstrap();
    const token = account.keys.sandbox.secret_key;
    const created = await first.request('/v1/webhooks', {
      token,
      body: { url: `${receiver.url}/crash`, events: ['verification.approved'] },
    });
    const secret = created.body.signing_secret as string;
    receiver.queue('/crash', { hang: true }); // the receiver takes the request and never answers it
    await first.request('/v1/verifications', { token, body: { sandbox: { outcome: 'approved' } } });
    const [inFlight] = await receiver.waitFor(1, atPath('/crash'));

    // The worker dies mid-attempt: no drain, the attempt is never recorded.
    await first.runtime.jobs.stop(50);
    await first.close();
    const [row] = await sql(
      first.databaseUrl,
      `select status, attempt_count, lease_until from webhook_deliveries where endpoint_id = $1`,
      [created.body.id],
    );
    expect(row).toMatchObject({ status: 'pending', attempt_count: 0 });

    const second = await startTestServer({ databaseUrl: first.databaseUrl });
    try {
      const requests = await receiver.waitFor(2, atPath('/crash'), 45_000);
      const again = requests[1]!;
      expect(again.headers['webhook-id']).toBe(inFlight!.headers['webhook-id']);
      expect(again.body).toBe(inFlight!.body);
      expect(() => new Webhook(secret).verify(again.body, again.headers)).not.toThrow();
      const delivered = await waitFor(async () => {
        const [d] = await sql(
          second.databaseUrl,
          `select status, attempt_count from webhook_deliveries where endpoint_id = $1`,
          [created.body.id],
        );
        return d?.status === 'delivered' ? d : undefined;
      });
      expect(delivered.attempt_count).toBe(1);
    } finally {
      await second.close();
    }
  }, 90_000);

  it('nothing is delivered for an uncommitted change: fan-out sees an outbox row only once its transaction commits', async () => {
    const server = await startTestServer({ workJobs: false });
    try {
      const account = await server.bootstrap();
      const token = account.keys.sandbox.secret_key;
      await server.request('/v1/webhooks', {
        token,
        body: { url: `${receiver.url}/tx`, events: ['verification.created'] },
      });
      const client = new pg.Client({ connectionString: server.databaseUrl });
      await client.connect();
      try {
        await client.query('begin');
        await client.query(
          `insert into events (id, merchant_id, mode, type, payload, test, created_at, updated_at) values ('evt_uncommitted00000000000000', $1, 'sandbox', 'verification.created', '{}', false, now(), now())`,
          [account.merchant.id],
        );
        expect((await fanOutBatch(server.runtime)).deliveryIds).toEqual([]);
        await client.query('commit');
      } finally {
        await client.end();
      }
      const after = await fanOutBatch(server.runtime);
      expect(after.deliveryIds).toHaveLength(1);
      expect((await fanOutBatch(server.runtime)).events).toBe(0);
    } finally {
      await server.close();
    }
  });
});
