import { createHash, randomBytes } from 'node:crypto';
import type pg from 'pg';
import { randomBase62 } from '../src/ids.js';

/**
 * The ceiling of POST /v1/verifications: the rows one pending create writes (buildSession/insertSession in
 * verification-lifecycle.ts, recordVerificationEvent in events.service.ts, withIdempotency in
 * idempotency.service.ts) inserted with raw `pg` in one transaction. Values are copied from a
 * verification the service created, so every column holds what the service would write.
 */

/**
 * Ceiling rows carry these prefixes, so they can be removed afterwards (and after a crashed run).
 * Nine characters after the id's own prefix, then 15 random ones (ids keep their usual 24): a
 * service id starts with them once in 62^9 (`vs_bcc` once in 62^3 caught a real verification
 * after a few hundred thousand bench creates, and its delete failed on the checks' foreign key).
 */
const PREFIX = { verification: 'vs_bcceiling', check: 'chk_bcceiling', event: 'evt_bcceiling', key: 'bench-ceiling-' };

export interface CreateTemplate {
  merchantId: string;
  mode: string;
  flowId: string;
  apiKeyId: string;
  flowSnapshot: string;
  locale: string;
  metadata: string;
  sandbox: string | null;
  identity: string | null;
  checks: {
    position: number;
    type: string;
    required: boolean;
    sensitivity: number | null;
    threshold: number | null;
    config: string;
  }[];
  /** The service's 201 body, stored as the idempotency row's response. */
  responseBody: string;
  ttlSeconds: number;
}

/** Reads what the service wrote for `verificationId`, the created response to store beside it. */
export async function readTemplate(
  client: pg.PoolClient,
  verificationId: string,
  responseBody: unknown,
): Promise<CreateTemplate> {
  const v = await client.query(
    `select merchant_id, mode, flow_id, api_key_id, flow_snapshot::text, locale, metadata::text, sandbox::text, identity,
            extract(epoch from expires_at - created_at)::int as ttl
     from verifications where id = $1`,
    [verificationId],
  );
  const row = v.rows[0];
  if (!row) throw new Error(`create ceiling: template verification ${verificationId} not found`);
  const checks = await client.query(
    `select position, type, required, sensitivity, threshold, config::text from checks where verification_id = $1 order by position`,
    [verificationId],
  );
  return {
    merchantId: row.merchant_id,
    mode: row.mode,
    flowId: row.flow_id,
    apiKeyId: row.api_key_id,
    flowSnapshot: row.flow_snapshot,
    locale: row.locale,
    metadata: row.metadata,
    sandbox: row.sandbox,
    identity: row.identity,
    checks: checks.rows,
    responseBody: JSON.stringify(responseBody),
    ttlSeconds: row.ttl,
  };
}

const hex = () => randomBytes(32).toString('hex');

/** `insert ... values ($1..$n), ($n+1..)` for `rows` rows of `width` parameters, with per-column casts. */
function multiRow(head: string, rows: number, casts: string[]): string {
  const groups = Array.from(
    { length: rows },
    (_, r) => `(${casts.map((cast, c) => `$${r * casts.length + c + 1}${cast}`).join(', ')})`,
  );
  return `${head} values ${groups.join(', ')}`;
}

const CHECK_COLUMNS = [
  '',
  '',
  '',
  '',
  '',
  '',
  '::int',
  '',
  '::boolean',
  '::float8',
  '::float8',
  '::jsonb',
  '',
  '',
  '::text[]',
];
const EVENT_COLUMNS = ['', '', '', '', '', '', '', '::uuid', '::jsonb', '::boolean'];

/** The statements of one create, built once for the template's number of checks. */
export function createStatements(t: CreateTemplate) {
  return {
    idempotency: `insert into idempotency_keys (api_key_id, key, request_hash, status, response_status, response_body, created_at, expires_at)
      values ($1, $2, $3, 'completed', 201, $4::jsonb, $5, $5::timestamptz + interval '24 hours')`,
    verification: `insert into verifications (id, merchant_id, created_at, mode, updated_at, status, flow_id, flow_snapshot, reason_codes, identity_version,
      client_token_hash, locale, metadata, expires_at, sequence, sandbox, is_preview, api_key_id, identity, email_fingerprint)
      values ($1, $2, $3, $4, $3, 'pending', $5, $6::jsonb, '{}', 0, $7, $8, $9::jsonb, $10, 2, $11::jsonb, false, $12, $13, $14)`,
    checks: t.checks.length
      ? multiRow(
          `insert into checks (id, merchant_id, created_at, mode, updated_at, verification_id, position, type, required, sensitivity, threshold, config, status, provider_tier, reason_codes)`,
          t.checks.length,
          CHECK_COLUMNS,
        )
      : null,
    events: multiRow(
      `insert into events (id, merchant_id, created_at, mode, updated_at, type, verification_id, api_key_id, payload, test)`,
      2,
      EVENT_COLUMNS,
    ),
  };
}

export type CreateStatements = ReturnType<typeof createStatements>;

const eventPayload = (id: string, flowId: string, sequence: number) =>
  JSON.stringify({
    verification: {
      id,
      status: 'pending',
      verdict: null,
      decline_type: null,
      reason_codes: [],
      changeReason: null,
      flow: flowId,
      sequence,
    },
  });

/** One create: idempotency row, verification, its checks, verification.created and verification.pending. */
export async function insertCreate(client: pg.PoolClient, t: CreateTemplate, sql: CreateStatements): Promise<void> {
  const id = `${PREFIX.verification}${randomBase62(15)}`;
  const now = new Date();
  const { merchantId: m, mode } = t;
  await client.query('begin');
  try {
    await client.query(sql.idempotency, [t.apiKeyId, `${PREFIX.key}${randomBase62(24)}`, hex(), t.responseBody, now]);
    await client.query(sql.verification, [
      id,
      m,
      now,
      mode,
      t.flowId,
      t.flowSnapshot,
      createHash('sha256').update(randomBytes(30)).digest('hex'),
      t.locale,
      t.metadata,
      new Date(now.getTime() + t.ttlSeconds * 1000),
      t.sandbox,
      t.apiKeyId,
      t.identity,
      hex(),
    ]);
    if (sql.checks) {
      const params = t.checks.flatMap((c) => [
        `${PREFIX.check}${randomBase62(15)}`,
        m,
        now,
        mode,
        now,
        id,
        c.position,
        c.type,
        c.required,
        c.sensitivity,
        c.threshold,
        c.config,
        'pending',
        'standard',
        [],
      ]);
      await client.query(sql.checks, params);
    }
    await client.query(sql.events, [
      ...[
        `${PREFIX.event}${randomBase62(15)}`,
        m,
        now,
        mode,
        now,
        'verification.created',
        id,
        t.apiKeyId,
        eventPayload(id, t.flowId, 1),
        false,
      ],
      ...[
        `${PREFIX.event}${randomBase62(15)}`,
        m,
        now,
        mode,
        now,
        'verification.pending',
        id,
        t.apiKeyId,
        eventPayload(id, t.flowId, 2),
        false,
      ],
    ]);
    await client.query('commit');
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    throw error;
  }
}

/** Removes every row a ceiling run inserted (children first); returns the verifications removed. */
export async function removeCeilingRows(client: pg.PoolClient): Promise<number> {
  await client.query(`delete from events where id like '${PREFIX.event}%'`);
  await client.query(`delete from checks where id like '${PREFIX.check}%'`);
  await client.query(`delete from idempotency_keys where key like '${PREFIX.key}%'`);
  const res = await client.query(`delete from verifications where id like '${PREFIX.verification}%'`);
  return res.rowCount ?? 0;
}
