import type pg from 'pg';

/**
 * The lookup scenario seeds under an account of its own with this name (a new one each run);
 * the accounts of earlier runs are found by it and their rows removed, so removal never
 * depends on ids and never touches another account's data.
 */
export const SEED_ACCOUNT_NAME = 'bench lookup seed';

/** Seeded ids: unique per run (an earlier run's rows are removed by account, not by id). */
const SEED_PREFIX = `vs_lkb${Date.now().toString(36)}`;

/** Terminal statuses only: the periodic sweep never touches them, so seeding adds no background work. */
const STATUSES = `array['approved','rejected','expired','rejected']`;

/**
 * (The record is expanded through a lateral join: `(f(...)).*` would call f once per column.)
 * Copies one existing verification (`templateId`, of the target account and environment) with
 * new ids, statuses, creation times and email fingerprints. Copying a real row through jsonb
 * keeps the seed valid whatever columns later migrations add.
 */
function copySql(source: string, fingerprint: string): string {
  return `
insert into verifications
select r.*
from verifications t
cross join ${source}
cross join lateral jsonb_populate_record(null::verifications, to_jsonb(t) || jsonb_build_object(
  'id', '${SEED_PREFIX}' || $2::text || '_' || g,
  'status', (${STATUSES})[1 + g % 4],
  'verdict', case g % 4 when 0 then 'approve' when 2 then null else 'reject' end,
  'email_fingerprint', ${fingerprint},
  'reference_fingerprint', null, 'document_fingerprint', null, 'national_id_fingerprint', null, 'identity', null,
  'created_at', now() - make_interval(mins => g::int),
  'updated_at', now() - make_interval(mins => g::int)
)) r
where t.id = $1`;
}

/** `count` rows whose fingerprints are random 64-hex values (no address maps to them). */
export async function seedRandom(
  client: pg.Client | pg.PoolClient,
  templateId: string,
  count: number,
  batch = 'r',
): Promise<number> {
  const res = await client.query(
    copySql('generate_series(1, $3::int) g', `md5(random()::text) || md5(random()::text)`),
    [templateId, batch, count],
  );
  return res.rowCount ?? 0;
}

/** One row per entry of `fingerprints` (repeat an entry for several attempts of one address). */
export async function seedFingerprints(
  client: pg.Client | pg.PoolClient,
  templateId: string,
  fingerprints: string[],
  batch = 'k',
): Promise<number> {
  const res = await client.query(copySql('unnest($3::text[]) with ordinality as f(fp, g)', 'f.fp'), [
    templateId,
    batch,
    fingerprints,
  ]);
  return res.rowCount ?? 0;
}

/** Every (table, column) with a foreign key to verifications(id), read from the catalog so a later table is covered. */
async function childrenOfVerifications(
  client: pg.Client | pg.PoolClient,
): Promise<{ table: string; column: string }[]> {
  const res = await client.query<{ table: string; column: string }>(`
    select c.conrelid::regclass::text as table, a.attname as column
    from pg_constraint c
    join pg_attribute a on a.attrelid = c.conrelid and a.attnum = c.conkey[1]
    where c.contype = 'f' and c.confrelid = 'verifications'::regclass and array_length(c.conkey, 1) = 1`);
  return res.rows;
}

/**
 * Removes the verifications of earlier runs' seed accounts (the bench data folder is kept
 * between runs), children first (checks, uploads, reviews, tags: whatever references them),
 * then their events, in one transaction. `keep` is this run's seed account.
 */
export async function removeSeeded(client: pg.Client | pg.PoolClient, keep: string): Promise<number> {
  const accounts = (
    await client.query<{ id: string }>(`select id from merchants where name = $1 and id <> $2`, [
      SEED_ACCOUNT_NAME,
      keep,
    ])
  ).rows.map((r) => r.id);
  if (accounts.length === 0) return 0;
  await client.query('begin');
  try {
    const owned = `select id from verifications where merchant_id = any($1::text[])`;
    for (const { table, column } of await childrenOfVerifications(client)) {
      await client.query(`delete from ${table} where ${column} in (${owned})`, [accounts]);
    }
    await client.query(`delete from events where merchant_id = any($1::text[])`, [accounts]);
    const res = await client.query(`delete from verifications where merchant_id = any($1::text[])`, [accounts]);
    await client.query('commit');
    return res.rowCount ?? 0;
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    throw error;
  }
}
