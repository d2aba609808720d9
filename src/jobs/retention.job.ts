import { inTransaction, withConnection } from '../services/shared/index.js';
import { purgeRequestLogs } from '../services/logs/index.js';
import type { Runtime } from '../runtime.js';
import type { JobDefinition } from './job.js';

export const RETENTION_JOB = 'verifications.retention';
/** decisions.md: retention_days defaults to 1095 when the account has no settings row. */
export const DEFAULT_RETENTION_DAYS = 1095;

export interface RetentionOptions {
  /** Verifications purged per iteration (one transaction each). */
  batchSize?: number;
  /** Iterations per run; what is left waits for the next daily run. */
  maxBatches?: number;
  /** How many storage deletions run at once. */
  storageConcurrency?: number;
}

export interface RetentionResult {
  verifications: number;
  uploads: number;
  batches: number;
  /** Whether due verifications were left for the next run (the per-run bound was reached). */
  more: boolean;
}

interface DueRow {
  id: string;
}

interface UploadRow {
  id: string;
  storage_key: string;
  evidence_key: string | null;
}

/**
 * Due: older than the account's retention_days (default 1095) and not purged yet. Oldest
 * first; skip locked so two runners never purge the same row twice.
 */
const DUE_SQL = `
select v.id
from verifications v
left join account_settings s on s.merchant_id = v.merchant_id
where v.retention_purged_at is null
  and v.created_at < now() - make_interval(days => coalesce(s.retention_days, ${DEFAULT_RETENTION_DAYS}))
order by v.created_at
limit $1
for update of v skip locked`;

/** Identity, images and every fingerprint go; status, verdict, reason codes and checks stay. */
const PURGE_SQL = `
update verifications
set identity = null, email_fingerprint = null, reference_fingerprint = null,
    document_fingerprint = null, national_id_fingerprint = null, retention_purged_at = now()
where id = any($1::text[]) and retention_purged_at is null`;

async function deleteObjects(runtime: Runtime, keys: string[], concurrency: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < keys.length) {
      const key = keys[next++]!;
      try {
        await runtime.storage.delete(key);
      } catch (error) {
        // A missing object is already gone (S3 DeleteObject is idempotent; stores that 404 are tolerated).
        const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
        const name = (error as { name?: string }).name;
        if (status !== 404 && name !== 'NoSuchKey' && name !== 'NotFound') throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, keys.length) }, worker));
}

/**
 * Retention (decisions.md): verifications older than the account's retention_days lose their
 * identity ciphertext, their images and their fingerprints (so lookup and the email filter no
 * longer find them); the record of the outcome stays. Upload rows are deleted together with
 * their stored objects, so include=documents shows nothing rather than dead links.
 *
 * Each batch runs in one transaction holding the due rows locked: objects are deleted from
 * storage first and the rows are purged after, so a storage failure rolls the batch back and
 * the next run retries it (deleting an already deleted object is harmless).
 */
export async function purgeExpiredVerifications(
  runtime: Runtime,
  options: RetentionOptions = {},
): Promise<RetentionResult> {
  const batchSize = options.batchSize ?? 500;
  const maxBatches = options.maxBatches ?? 20;
  const concurrency = options.storageConcurrency ?? 16;
  const result: RetentionResult = { verifications: 0, uploads: 0, batches: 0, more: false };
  for (let batch = 0; batch < maxBatches; batch++) {
    // Across accounts by design: the purge is the system's, each row by its own account's retention_days.
    const purged = await withConnection(runtime.orm, (sql) =>
      inTransaction(sql, async () => {
        const due = await sql.query<DueRow>(DUE_SQL, [batchSize]);
        if (due.length === 0) return { count: 0, uploads: 0 };
        const ids = due.map((row) => row.id);
        const uploads = await sql.query<UploadRow>(
          `select id, storage_key, evidence_key from uploads where verification_id = any($1::text[])`,
          [ids],
        );
        await deleteObjects(
          runtime,
          uploads.flatMap((u) => (u.evidence_key ? [u.storage_key, u.evidence_key] : [u.storage_key])),
          concurrency,
        );
        if (uploads.length) await sql.query(`delete from uploads where verification_id = any($1::text[])`, [ids]);
        // Team edits keep earlier identity versions with their fingerprints: they go with the rest.
        await sql.query(`delete from identity_versions where verification_id = any($1::text[])`, [ids]);
        await sql.query(PURGE_SQL, [ids]);
        // Fraud-network signals are fingerprints of the same identity: they go with it.
        await sql.query('delete from fraud_signals where verification_id = any($1::text[])', [ids]);
        return { count: due.length, uploads: uploads.length };
      }),
    );
    if (purged.count === 0) return result;
    result.batches++;
    result.verifications += purged.count;
    result.uploads += purged.uploads;
    if (purged.count < batchSize) return result;
  }
  result.more = true;
  return result;
}

export const retentionJob: JobDefinition = {
  name: RETENTION_JOB,
  every: '1 day',
  handler: async (runtime) => {
    const result = await purgeExpiredVerifications(runtime);
    if (result.verifications) {
      runtime.logger.info(
        `retention: purged ${result.verifications} verifications and ${result.uploads} uploads${result.more ? ' (more left for the next run)' : ''}`,
      );
    }
    // decisions.md: request logs are kept 30 days.
    const logs = await purgeRequestLogs(runtime);
    if (logs) runtime.logger.info(`retention: deleted ${logs} request-log rows older than 30 days`);
  },
};
