import { purgeExpiredVerifications, retentionJob } from '../../src/jobs/retention.job.js';
import { JOBS } from '../../src/jobs/index.js';
import type { BootstrapResult } from '../../src/services/access/index.js';
import { jpegBytes } from '../support/fixtures.js';
import { withTestServer } from '../support/account.js';
import type { TestServer } from '../support/test-server.js';

let server: TestServer;
let account: BootstrapResult;
let sandbox: string;
withTestServer(
  async (s) => {
    // Jobs are not worked here: the test runs the purge itself, so the daily run cannot race it.
    server = s;
    account = await server.bootstrap();
    sandbox = account.keys.sandbox.secret_key;
  },
  { workJobs: false },
);

const unique = (name: string) => `${name}.${Math.random().toString(36).slice(2, 10)}@example.org`;
const lookup = (emails: string[], token = sandbox) =>
  server.request('/v1/verifications/lookup', { token, body: { emails } });
const read = (id: string, query = '', token = sandbox) => server.request(`/v1/verifications/${id}${query}`, { token });

const DOCUMENT = {
  number: 'RT123456',
  national_id: 'NID-778',
  first_name: 'Rita',
  last_name: 'Tension',
  date_of_birth: '1980-02-03',
  type: 'passport',
  issuing_country: 'UTO',
  expiry_date: '2035-01-01',
};

async function createWithEvidence(email: string, token = sandbox) {
  const res = await server.request('/v1/verifications', {
    token,
    body: {
      applicant: { email, reference_id: `ref-${email}` },
      sandbox: {
        outcome: 'pending',
        document: { ...DOCUMENT, number: `RT${Math.random().toString(36).slice(2, 8).toUpperCase()}` },
      },
    },
  });
  expect(res.status).toBe(201);
  const id = res.body.id as string;
  const presigned = await server.request(`/v1/verifications/${id}/uploads`, {
    token,
    body: { kind: 'document', content_type: 'image/jpeg', side: 'front' },
  });
  expect(presigned.status).toBe(201);
  const put = await fetch(presigned.body.upload_url, {
    method: 'PUT',
    body: new Uint8Array(jpegBytes()),
    headers: { 'content-type': 'image/jpeg', connection: 'close' },
  });
  expect(put.status).toBe(200);
  const completed = await server.request(`/v1/verifications/${id}/uploads/${presigned.body.upload_id}/complete`, {
    method: 'POST',
    token,
  });
  expect(completed.body.status).toBe('uploaded');
  return id;
}

const backdate = (id: string, days: number) =>
  server.sql(`update verifications set created_at = now() - make_interval(days => $2) where id = $1`, [id, days]);

const fingerprints = async (id: string) =>
  (
    await server.sql(
      `select identity, email_fingerprint, reference_fingerprint, document_fingerprint, national_id_fingerprint, retention_purged_at, status, verdict, reason_codes from verifications where id = $1`,
      [id],
    )
  )[0];

describe('verifications.retention', () => {
  it('is registered as a daily job', () => {
    expect(retentionJob).toMatchObject({ name: 'verifications.retention', every: '1 day' });
    expect(JOBS).toContain(retentionJob);
  });

  it('removes identity, images and fingerprints past retention_days; outcomes stay; nothing else is touched', async () => {
    const oldEmail = unique('old');
    const recentEmail = unique('recent');
    const old = await createWithEvidence(oldEmail);
    const recent = await createWithEvidence(recentEmail);
    // A settled outcome on the old one: rejected through the sandbox path would need a new
    // session, so write the outcome as the engine would have (status, verdict, reason codes).
    await server.sql(
      `update verifications set status = 'rejected', verdict = 'reject', reason_codes = '{DOCUMENT_EXPIRED}' where id = $1`,
      [old],
    );
    await backdate(old, 3);
    await backdate(recent, 0);
    await server.sql(
      `insert into account_settings (merchant_id, repeat_verification, review_policy, retention_days, updated_at) values ($1, '{"enabled":true,"scope":"same_flow"}', '{}', 1, now()) on conflict (merchant_id) do update set retention_days = 1`,
      [account.merchant.id],
    );

    // Another account without settings: the default (1095 days) keeps a 3-day-old verification.
    const other = await server.bootstrap();
    const otherOld = await createWithEvidence(oldEmail, other.keys.sandbox.secret_key);
    await backdate(otherOld, 3);
    // ...but not one older than 1095 days.
    const otherAncient = await createWithEvidence(unique('ancient'), other.keys.sandbox.secret_key);
    await backdate(otherAncient, 1100);

    // The evidence is the sealed copy complete made (the upload key is emptied at complete).
    const [oldUpload] = await server.sql(
      `select id, storage_key, evidence_key from uploads where verification_id = $1`,
      [old],
    );
    expect(await server.runtime.storage.head(oldUpload.evidence_key)).not.toBeNull();
    expect((await lookup([oldEmail])).body.data[0].found).toBe(true);
    const before = await read(old);

    const result = await purgeExpiredVerifications(server.runtime);
    expect(result).toMatchObject({ verifications: 2, uploads: 2, more: false });

    // Stored: identity and every fingerprint gone, purge stamped, outcome kept.
    expect(await fingerprints(old)).toMatchObject({
      identity: null,
      email_fingerprint: null,
      reference_fingerprint: null,
      document_fingerprint: null,
      national_id_fingerprint: null,
      status: 'rejected',
      verdict: 'reject',
      reason_codes: ['DOCUMENT_EXPIRED'],
    });
    expect((await fingerprints(old)).retention_purged_at).toBeInstanceOf(Date);
    expect((await fingerprints(otherAncient)).retention_purged_at).toBeInstanceOf(Date);
    for (const kept of [recent, otherOld]) {
      const row = await fingerprints(kept);
      expect(row.retention_purged_at).toBeNull();
      expect(row.identity).not.toBeNull();
      expect(row.email_fingerprint).not.toBeNull();
    }
    // Images: the object and its upload row are gone; the recent one keeps its own.
    expect(await server.runtime.storage.head(oldUpload.evidence_key)).toBeNull();
    expect(await server.sql(`select 1 from uploads where verification_id = $1`, [old])).toEqual([]);
    expect(await server.sql(`select 1 from uploads where verification_id = $1`, [recent])).toHaveLength(1);

    // Not found by lookup nor by the email filter; still readable with its outcome and checks.
    expect((await lookup([oldEmail, recentEmail])).body.data.map((r: { found: boolean }) => r.found)).toEqual([
      false,
      true,
    ]);
    expect(
      (await server.request(`/v1/verifications?email=${encodeURIComponent(oldEmail)}`, { token: sandbox })).body.data,
    ).toEqual([]);
    const after = await read(old);
    expect(after.status).toBe(200);
    expect(after.body).toMatchObject({ status: 'rejected', verdict: 'reject', reason_codes: ['DOCUMENT_EXPIRED'] });
    expect(after.body.checks).toEqual(before.body.checks);
    const withApplicant = await read(old, '?include=applicant,documents');
    expect(withApplicant.status).toBe(200);
    expect(withApplicant.body.applicant.fields).toBeNull();
    expect(withApplicant.body.evidence).toEqual([]);
    // The other account still finds its own verification of the same address.
    expect((await lookup([oldEmail], other.keys.sandbox.secret_key)).body.data[0]).toMatchObject({
      found: true,
      attempts: 1,
    });

    // A second run finds nothing more to do.
    expect(await purgeExpiredVerifications(server.runtime)).toMatchObject({ verifications: 0, uploads: 0 });
  });

  it('works in bounded batches and stops after maxBatches, leaving the rest for the next run', async () => {
    const fresh = await server.bootstrap();
    await server.sql(
      `insert into account_settings (merchant_id, repeat_verification, review_policy, retention_days, updated_at) values ($1, '{}', '{}', 1, now())`,
      [fresh.merchant.id],
    );
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await server.request('/v1/verifications', {
        token: fresh.keys.sandbox.secret_key,
        body: { applicant: { email: unique(`b${i}`) }, sandbox: { outcome: 'pending' } },
      });
      ids.push(res.body.id);
      await backdate(res.body.id, 2);
    }
    const first = await purgeExpiredVerifications(server.runtime, { batchSize: 2, maxBatches: 2 });
    expect(first).toEqual({ verifications: 4, uploads: 0, batches: 2, more: true });
    const second = await purgeExpiredVerifications(server.runtime, { batchSize: 2, maxBatches: 2 });
    expect(second).toMatchObject({ verifications: 1, more: false });
    const purged = await server.sql(
      `select count(*)::int as n from verifications where id = any($1) and retention_purged_at is not null and email_fingerprint is null`,
      [ids],
    );
    expect(purged[0].n).toBe(5);
  });
});
