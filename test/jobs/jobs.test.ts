import { startRuntime, type Runtime } from '../../src/runtime.js';
import { testConfig, type TestServer } from '../support/test-server.js';
import { testLogger } from '../support/logs.js';
import { withTestServer } from '../support/account.js';

let server: TestServer;
withTestServer((s) => (server = s));

async function waitFor(check: () => Promise<boolean>, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('timed out');
}

describe('jobs (Agenda on the PostgreSQL job store)', () => {
  it('the session cleanup job deletes sessions expired more than a day ago and keeps live ones', async () => {
    const account = await server.bootstrap();
    await server.sql(`update member_sessions set expires_at = now() - interval '2 days' where member_id = $1`, [
      account.member.id,
    ]);
    const fresh = await server.request('/v1/console/sessions', {
      body: { email: account.member.email, password: account.member.password },
    });
    await server.runtime.jobs.now('member-sessions.cleanup', {});
    await waitFor(
      async () =>
        (
          await server.sql('select count(*)::int as n from member_sessions where member_id = $1', [account.member.id])
        )[0].n === 1,
    );
    const out = await server.request('/v1/console/sessions/current', { token: fresh.body.token, method: 'DELETE' });
    expect(out.status).toBe(200);
  });

  it('several processes share the work: every job runs exactly once across two workers', async () => {
    const runtimes: Runtime[] = [server.runtime];
    const second = await startRuntime(testConfig(server.databaseUrl), {
      logger: testLogger(),
      workJobs: true,
      jobs: { processEvery: 100, lockLifetimeMs: 1000 },
    });
    runtimes.push(second);
    const ran: { worker: number; n: number }[] = [];
    // Registered as the service registers its own jobs (heartbeat included): a bare Agenda
    // definition has no heartbeat, so on a loaded machine a run outliving the 1 s lock would be
    // taken again by the other worker, which is Agenda's behaviour, not the service's.
    runtimes.forEach((runtime, worker) =>
      runtime.jobs.register(runtime, [
        {
          name: 'test.shared-work',
          concurrency: 2,
          handler: async (_runtime, data: { n: number }) => {
            await new Promise((r) => setTimeout(r, 20));
            ran.push({ worker, n: data.n });
          },
        },
      ]),
    );
    try {
      for (let n = 0; n < 30; n++) await server.runtime.jobs.now('test.shared-work', { n });
      await waitFor(async () => ran.length >= 30);
      await new Promise((r) => setTimeout(r, 300));
      expect(ran.map((r) => r.n).sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => i));
      expect(new Set(ran.map((r) => r.worker)).size).toBe(2);
    } finally {
      await second.stop();
    }
  });

  it('a job running longer than its lock lifetime is kept alive by its heartbeat: never cancelled, never run twice', async () => {
    const options = { logger: testLogger(), workJobs: true, jobs: { processEvery: 100, lockLifetimeMs: 400 } };
    const workers = [
      await startRuntime(testConfig(server.databaseUrl), options),
      await startRuntime(testConfig(server.databaseUrl), options),
    ];
    const runs: number[] = [];
    const errors: string[] = [];
    for (const [index, worker] of workers.entries()) {
      worker.jobs.agenda.on('error', (error: Error) => errors.push(error.message));
      worker.jobs.register(worker, [
        {
          name: 'test.slow',
          handler: async () => {
            runs.push(index);
            await new Promise((r) => setTimeout(r, 1_600));
          },
        },
      ]);
    }
    try {
      await workers[0].jobs.now('test.slow', {});
      await waitFor(
        async () =>
          (
            await server.sql(
              `select count(*)::int as n from agenda_jobs where name = 'test.slow' and last_finished_at is not null`,
            )
          )[0].n === 1,
      );
      await new Promise((r) => setTimeout(r, 600));
      expect(runs).toHaveLength(1);
      // (Agenda itself may report "no lockedAt" when its check wakes while it records the finish.)
      expect(errors.filter((m) => m.includes('test.slow') && m.includes('took more than'))).toEqual([]);
      const [row] = await server.sql(`select locked_at, fail_count from agenda_jobs where name = 'test.slow'`);
      expect(row.locked_at).toBeNull();
      expect(row.fail_count ?? 0).toBe(0);
    } finally {
      for (const worker of workers) await worker.stop();
    }
  });
});
