import type pg from 'pg';

/** Seeded rows carry this id prefix, so a later run can remove them before seeding again. */
export const SEED_PREFIX = 'vs_lkb';

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
export async function seedRandom(client: pg.Client | pg.PoolClient, templateId: string, count: number, batch = 'r'): Promise<number> {
  const res = await client.query(copySql('generate_series(1, $3::int) g', `md5(random()::text) || md5(random()::text)`), [templateId, batch, count]);
  return res.rowCount ?? 0;
}

/** One row per entry of `fingerprints` (repeat an entry for several attempts of one address). */
export async function seedFingerprints(client: pg.Client | pg.PoolClient, templateId: string, fingerprints: string[], batch = 'k'): Promise<number> {
  const res = await client.query(copySql('unnest($3::text[]) with ordinality as f(fp, g)', 'f.fp'), [templateId, batch, fingerprints]);
  return res.rowCount ?? 0;
}

/** Removes what earlier runs seeded (the bench data folder is kept between runs). */
export async function removeSeeded(client: pg.Client | pg.PoolClient): Promise<number> {
  const res = await client.query(`delete from verifications where id like '${SEED_PREFIX}%'`);
  return res.rowCount ?? 0;
}
