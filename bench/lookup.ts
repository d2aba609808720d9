import type pg from 'pg';
import { fingerprintEmails, LOOKUP_SQL, lookupParams } from '../src/services/repeat-control/index.js';
import { loadMasterKey, Vault } from '../src/services/shared/index.js';
import { call } from './api.js';
import { dataDir, measureLoop, openPool } from './database.js';
import type { Measurement } from './load.js';
import { removeSeeded, SEED_ACCOUNT_NAME, seedFingerprints, seedRandom } from './lookup-seed.js';
import type { BenchContext, Comparison, Scenario } from './scenarios.js';

/**
 * Batch lookup: a 1,000-address POST /v1/verifications/lookup against 100,000 stored
 * verifications of the bench account, and the same SQL run directly with `pg` in the same
 * run (the ceiling: no HTTP, authentication, rate limiting, fingerprinting or JSON). The rows
 * belong to an account of their own (SEED_ACCOUNT_NAME), made for this run; the previous
 * runs' seed accounts are emptied before seeding.
 */
const STORED = 100_000;
const ADDRESSES = 1000;
/** Every other looked-up address has one stored verification: 500 found, 500 not. */
const KNOWN = ADDRESSES / 2;

interface Prepared {
  pool: pg.Pool;
  key: string;
  body: string;
  params: unknown[];
  text: string;
}

let prepared: Promise<Prepared> | undefined;

async function prepare(ctx: BenchContext): Promise<Prepared> {
  // The child's master key: the operator's IDENTITY_ENCRYPTION_KEY (inherited) or <DATA_DIR>/identity.key.
  const vault = new Vault(loadMasterKey(process.env.IDENTITY_ENCRYPTION_KEY, dataDir, { warn: ctx.log }));
  const emails = Array.from({ length: ADDRESSES }, (_, i) => `Lookup.Bench.${i}@Example.org`);
  const { perInput } = fingerprintEmails(vault, emails);
  const seed = await ctx.bootstrap(SEED_ACCOUNT_NAME);

  // One real verification to copy (valid flow, snapshot, every not-null column).
  const template = await call(`${ctx.serviceUrl}/v1/verifications`, seed.sandboxKey, 'POST', {
    applicant: { email: 'lookup.template@example.org' },
    sandbox: { outcome: 'pending' },
  });
  if (template.status !== 201)
    throw new Error(
      `lookup bench: creating the template verification answered ${template.status}: ${JSON.stringify(template.body)}`,
    );

  const pool = openPool(ctx);
  try {
    return await seedAndCheck(ctx, pool, seed, template.body.id, emails, perInput);
  } catch (error) {
    await pool.end();
    throw error;
  }
}

async function seedAndCheck(
  ctx: BenchContext,
  pool: pg.Pool,
  seed: { merchantId: string; sandboxKey: string },
  templateId: string,
  emails: string[],
  perInput: string[],
): Promise<Prepared> {
  const client = await pool.connect();
  try {
    const started = Date.now();
    const removed = await removeSeeded(client, seed.merchantId);
    if (removed) ctx.log(`  removed ${removed} verifications seeded by an earlier run`);
    const known = perInput.filter((_, i) => i % 2 === 0);
    let seeded = await seedFingerprints(client, templateId, known);
    for (let batch = 0; seeded < STORED - 1; batch++) {
      seeded += await seedRandom(client, templateId, Math.min(25_000, STORED - 1 - seeded), `r${batch}_`);
    }
    // vacuum too: an earlier run's removed rows would otherwise be vacuumed during the measurement.
    await client.query('vacuum analyze verifications');
    ctx.log(
      `  seeded ${seeded} verifications (+1 template; ${KNOWN} match looked-up addresses) in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
  } finally {
    client.release();
  }

  // Both sides must give the right answer before either is timed.
  const body = JSON.stringify({ emails });
  const check = await call(`${ctx.serviceUrl}/v1/verifications/lookup`, seed.sandboxKey, 'POST', { emails });
  const httpFound = check.status === 200 ? (check.body.data as { found: boolean }[]).filter((r) => r.found).length : -1;
  const text = LOOKUP_SQL;
  const params = lookupParams([...new Set(perInput)], seed.merchantId, 'sandbox');
  const direct = await pool.query(text, params);
  const sqlFound = direct.rows.filter((r: { attempts: number }) => r.attempts > 0).length;
  if (httpFound !== KNOWN || sqlFound !== KNOWN || direct.rowCount !== ADDRESSES) {
    throw new Error(
      `lookup bench: expected ${KNOWN} of ${ADDRESSES} found; HTTP ${check.status} found ${httpFound}, SQL found ${sqlFound} of ${direct.rowCount}`,
    );
  }
  return { pool, key: seed.sandboxKey, body, params, text };
}

const prepareOnce = (ctx: BenchContext) => (prepared ??= prepare(ctx));

/** `connections` clients each running the query back to back for `seconds` (after a warm-up). */
const measureSql = (ctx: BenchContext, p: Prepared): Promise<Measurement> =>
  measureLoop(ctx, async () => {
    const res = await p.pool.query(p.text, p.params);
    if (res.rowCount !== ADDRESSES) throw new Error(`lookup SQL returned ${res.rowCount} rows`);
  });

export const lookupScenarios: Scenario[] = [
  {
    name: 'lookup',
    label: `service POST /v1/verifications/lookup (${ADDRESSES} addresses, ${STORED / 1000}k stored)`,
    run: async (ctx) => {
      const p = await prepareOnce(ctx);
      return ctx.measure({
        url: `${ctx.serviceUrl}/v1/verifications/lookup`,
        method: 'POST',
        headers: { authorization: `Bearer ${p.key}` },
        body: p.body,
      });
    },
  },
  {
    name: 'lookup-sql',
    label: `same lookup SQL directly with pg (ceiling)`,
    run: async (ctx) => {
      const p = await prepareOnce(ctx);
      try {
        return await measureSql(ctx, p);
      } finally {
        // The last lookup scenario: leave no pool open (the bench exits after the report).
        await p.pool.end();
        prepared = undefined;
      }
    },
  },
];

export const lookupComparisons: Comparison[] = [
  // The whole HTTP path (auth, rate limit, fingerprints, transaction, JSON) against the bare query.
  { name: 'lookup/sql-ceiling', numerator: 'lookup', denominator: 'lookup-sql', target: 0.5 },
];
