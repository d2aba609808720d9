// Session expiry: the expire-due job scheduled at each session's expires_at, shared by the sessions
// expiring in the same second (VERIFICATION_TTL_SECONDS shrunk to seconds), and the bounded
// periodic sweep that catches sessions whose expire job was lost.
import { runChecks } from '../../src/services/checks/index.js';
import { sweepVerifications } from '../../src/jobs/sweep-verifications.job.js';
import { sql } from '../support/db.js';
import { withTestAccount } from '../support/account.js';
import type { TestServer } from '../support/test-server.js';
import { waitFor } from '../support/wait.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const eventsOf = (server: TestServer, id: string) =>
  server.sql<{ type: string; payload: any }>(
    "select type, payload from events where verification_id = $1 order by (payload->'verification'->>'sequence')::int",
    [id],
  );

const statusOf = async (server: TestServer, id: string) =>
  (await server.sql('select status from verifications where id = $1', [id]))[0].status as string;

describe('the expire job (TTL 2 s, jobs running)', () => {
  let server: TestServer;
  let key: string;
  let merchantId: string;
  withTestAccount(
    (t) => {
      ({ server, sandbox: key } = t);
      merchantId = t.account.merchant.id;
    },
    { env: { VERIFICATION_TTL_SECONDS: '2' } },
  );

  const create = async (outcome: string) => {
    const res = await server.request('/v1/verifications', { token: key, body: { sandbox: { outcome } } });
    expect(res.status).toBe(201);
    return res.body;
  };
  const read = async (id: string) => (await server.request(`/v1/verifications/${id}`, { token: key })).body;

  it('a pending session becomes expired after its TTL, with verification.expired then verification.completed, change_reason set and no verdict', async () => {
    const created = await create('pending');
    expect(created.status).toBe('pending');
    const expired = await waitFor(
      async () => {
        const v = await read(created.id);
        return v.status === 'expired' ? v : undefined;
      },
      30_000,
      `${created.id} to expire`,
    );
    expect(expired).toMatchObject({ status: 'expired', verdict: null, change_reason: 'engine' });
    const [row] = await server.sql('select decided_at, expires_at from verifications where id = $1', [created.id]);
    expect(row.decided_at.getTime()).toBeGreaterThanOrEqual(row.expires_at.getTime());

    const events = await eventsOf(server, created.id);
    expect(events.map((e) => e.type)).toEqual([
      'verification.created',
      'verification.pending',
      'verification.expired',
      'verification.completed',
    ]);
    const [expiredEvent, completedEvent] = events.slice(2);
    expect(expiredEvent.payload.verification.sequence).toBeLessThan(completedEvent.payload.verification.sequence);
    for (const e of [expiredEvent, completedEvent]) {
      expect(e.payload.verification).toMatchObject({
        id: created.id,
        status: 'expired',
        verdict: null,
        changeReason: 'engine',
      });
    }
  });

  it('sessions expiring in the same second share one expire job, scheduled within a second after their expires_at', async () => {
    const created = await Promise.all(Array.from({ length: 8 }, () => create('pending')));
    const seconds = new Set(created.map((v) => Math.ceil(Date.parse(v.expires_at) / 1000)));
    const jobs = await server.sql(
      "select data->>'at' as at from agenda_jobs where name = 'verifications.expire-due' and (data->>'at')::timestamptz = any($1::timestamptz[])",
      [[...seconds].map((s) => new Date(s * 1000).toISOString())],
    );
    expect(jobs.map((j) => Date.parse(j.at) / 1000).sort()).toEqual([...seconds].sort());
    expect(jobs.length).toBeLessThan(created.length);
  });

  it('a session is not expired before its expires_at', async () => {
    const created = await create('pending');
    await sleep(800);
    expect((await read(created.id)).status).toBe('pending');
  });

  it('a settled (approved) session is never expired: its expire job runs and changes nothing', async () => {
    const created = await create('approved');
    // Settle it now with the engine itself (the queued run-checks job then finds nothing to do), so a
    // slow job queue cannot let the 2-second TTL pass while the checks are still running.
    await runChecks(server.runtime, { verificationId: created.id, merchantId, mode: 'sandbox' });
    const approved = await read(created.id);
    expect(approved).toMatchObject({ status: 'approved', verdict: 'approve' });
    // Wait until the expire job scheduled for its expires_at has run, at or after expires_at.
    const job = await waitFor(
      async () => {
        const jobs = await sql(
          server.databaseUrl,
          "select last_finished_at from agenda_jobs where name = 'verifications.expire-due' and (data->>'at')::timestamptz >= $1 and (data->>'at')::timestamptz < $1::timestamptz + interval '1 second'",
          [approved.expires_at],
        );
        return jobs.length === 1 && jobs[0].last_finished_at !== null ? jobs[0] : undefined;
      },
      30_000,
      'the expire job to run',
    );
    expect(job.last_finished_at.getTime()).toBeGreaterThanOrEqual(Date.parse(approved.expires_at));
    const after = await read(created.id);
    expect(after).toMatchObject({
      status: 'approved',
      verdict: 'approve',
      change_reason: 'engine',
      updated_at: approved.updated_at,
    });
    expect((await eventsOf(server, created.id)).map((e) => e.type)).not.toContain('verification.expired');
  });
});

describe('the sweep (TTL 1 s, no job worker)', () => {
  let server: TestServer;
  let key: string;
  withTestAccount((t) => ({ server, sandbox: key } = t), { env: { VERIFICATION_TTL_SECONDS: '1' }, workJobs: false });

  const createPending = async () => {
    const res = await server.request('/v1/verifications', { token: key, body: { sandbox: { outcome: 'pending' } } });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };

  it('expires due sessions whose scheduled expire job was lost, and returns how many', async () => {
    const ids = [await createPending(), await createPending(), await createPending()];
    const uncovered = await sql(
      server.databaseUrl,
      `select v.id from verifications v where v.id = any($1) and not exists (select 1 from agenda_jobs j where j.name = 'verifications.expire-due'
         and (j.data->>'at')::timestamptz >= v.expires_at and (j.data->>'at')::timestamptz < v.expires_at + interval '1 second')`,
      [ids],
    );
    expect(uncovered).toEqual([]);
    await server.sql("delete from agenda_jobs where name = 'verifications.expire-due'");

    await sleep(1_500);
    for (const id of ids) expect(await statusOf(server, id)).toBe('pending');

    expect(await sweepVerifications(server.runtime)).toEqual({ expired: 3, requeued: 0 });
    for (const id of ids) {
      const [v] = await server.sql('select status, verdict, change_reason from verifications where id = $1', [id]);
      expect(v).toEqual({ status: 'expired', verdict: null, change_reason: 'engine' });
      expect((await eventsOf(server, id)).map((e) => e.type).slice(-2)).toEqual([
        'verification.expired',
        'verification.completed',
      ]);
    }
    expect(await sweepVerifications(server.runtime)).toEqual({ expired: 0, requeued: 0 });
  });

  it('leaves sessions that are not yet due and sessions already settled alone', async () => {
    const notDue = await createPending();
    await server.sql("update verifications set expires_at = now() + interval '1 hour' where id = $1", [notDue]);
    const settled = await createPending();
    await server.sql(
      "update verifications set status = 'approved', verdict = 'approve', expires_at = now() - interval '1 minute' where id = $1",
      [settled],
    );

    expect(await sweepVerifications(server.runtime)).toEqual({ expired: 0, requeued: 0 });
    expect(await statusOf(server, notDue)).toBe('pending');
    expect(await statusOf(server, settled)).toBe('approved');
  });

  it('re-queues a processing session whose checks stalled for over two minutes', async () => {
    const id = await createPending();
    await server.sql(
      "update verifications set status = 'processing', expires_at = now() + interval '1 hour', updated_at = now() - interval '3 minutes' where id = $1",
      [id],
    );
    expect(await sweepVerifications(server.runtime)).toEqual({ expired: 0, requeued: 1 });
    const jobs = await server.sql(
      "select 1 from agenda_jobs where name = 'verification.run-checks' and data->>'verificationId' = $1",
      [id],
    );
    expect(jobs).toHaveLength(1);
    await server.sql('update verifications set updated_at = now() where id = $1', [id]);
  });

  it('is bounded: one call expires at most 2,000 sessions (10 batches of 200) and the next call continues', async () => {
    const template = await createPending();
    const columns = (
      await server.sql<{ column_name: string }>(
        "select column_name from information_schema.columns where table_name = 'verifications' order by ordinal_position",
      )
    ).map((c) => c.column_name);
    const override: Record<string, string> = {
      id: "'vs_bulk' || lpad(g::text, 17, '0')",
      client_token_hash: 'md5(g::text)',
      expires_at: "now() - interval '1 minute'",
    };
    const select = columns.map((c) => override[c] ?? `v."${c}"`).join(', ');
    await server.sql(
      `insert into verifications (${columns.map((c) => `"${c}"`).join(', ')}) select ${select} from verifications v, generate_series(1, 2000) g where v.id = $1`,
      [template],
    );
    await server.sql("update verifications set expires_at = now() - interval '1 minute' where id = $1", [template]);
    const open = async () =>
      (
        await server.sql(
          "select count(*)::int as n from verifications where status in ('pending', 'processing') and expires_at <= now()",
        )
      )[0].n as number;
    expect(await open()).toBe(2001);

    const first = await sweepVerifications(server.runtime);
    expect(first.expired).toBe(2000);
    expect(await open()).toBe(1);
    const second = await sweepVerifications(server.runtime);
    expect(second.expired).toBe(1);
    expect(await open()).toBe(0);
  }, 300_000);
});
