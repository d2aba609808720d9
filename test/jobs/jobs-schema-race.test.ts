// Processes that start together (workers, parallel `cli bootstrap` runs) each connect Agenda to
// the same database, and Agenda's Postgres backend creates its table, function and trigger on
// every connect: two at once made one fail with "tuple concurrently updated" (a bench run at
// 17:31 on 2026-11-26 lost an account's bootstrap to it). They now take turns (src/jobs/agenda.ts).
import { loadConfig } from '../../src/config.js';
import { Jobs } from '../../src/jobs/agenda.js';
import { sql } from '../support/db.js';
import { testLogger } from '../support/logs.js';
import { createTestDatabase } from '../support/test-server.js';

const PROCESSES = 8;

it(`${PROCESSES} job stores connecting at once to a database without the job table all connect, and the table works`, async () => {
  const databaseUrl = await createTestDatabase();
  await sql(databaseUrl, 'drop table if exists agenda_jobs cascade');
  const config = loadConfig({ ...process.env, MONGODB_URL: '', DATABASE_URL: databaseUrl });
  const stores = Array.from({ length: PROCESSES }, () => new Jobs(config, databaseUrl, testLogger()));
  try {
    const connected = await Promise.allSettled(stores.map((jobs) => jobs.agenda.ready));
    expect(
      connected.filter((c) => c.status === 'rejected').map((c) => String((c as PromiseRejectedResult).reason)),
    ).toEqual([]);
    await stores[0].schedule(new Date(Date.now() + 60_000), 'test.schema-race', { n: 1 });
    expect(await sql(databaseUrl, `select name, data from agenda_jobs where name = 'test.schema-race'`)).toEqual([
      { name: 'test.schema-race', data: { n: 1 } },
    ]);
  } finally {
    await Promise.all(stores.map((jobs) => jobs.stop()));
  }
});
