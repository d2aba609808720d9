import type { Mode } from '../../src/config.js';
import { Verification } from '../../src/entities/verification.entity.js';
import { scopedFork } from '../../src/orm.js';
import type { BootstrapResult } from '../../src/services/access/index.js';
import { recordUsage } from '../../src/services/reporting/index.js';
import { withTestServer } from '../support/account.js';
import type { TestServer } from '../support/test-server.js';
import { createVerification } from '../support/factories.js';

let server: TestServer;

withTestServer((s) => (server = s));

/** Meters check runs the way the engine does: recordUsage inside a transaction. */
async function meter(owner: BootstrapResult, mode: Mode, checkTypes: string[]): Promise<string> {
  const merchantId = owner.merchant.id;
  const { id } = await createVerification(server, owner, mode);
  await scopedFork(server.runtime.orm, { merchantId, modes: [mode] }).transactional(async (tx) => {
    const v = await tx.findOneOrFail(Verification, { id });
    for (const type of checkTypes) recordUsage(tx, v, type);
  });
  return id;
}

const usage = (token: string, query = '') => server.request(`/v1/usage${query}`, { token });

describe('GET /v1/usage', () => {
  let account: BootstrapResult;
  let oldVerification: string;
  beforeAll(async () => {
    account = await server.bootstrap();
    oldVerification = await meter(account, 'sandbox', ['document', 'liveness']);
    await server.sql(`update usage_records set created_at = '2026-01-01T00:00:00Z' where verification_id = $1`, [
      oldVerification,
    ]);
    await meter(account, 'sandbox', ['document', 'liveness', 'face_match']);
    await meter(account, 'sandbox', ['document']);
    await meter(account, 'live', ['document', 'aml']);
    const other = await server.bootstrap();
    await meter(other, 'sandbox', ['document', 'document', 'age']);
  });

  it('needs analytics:read, which is not in the default set (403 INSUFFICIENT_PERMISSIONS)', async () => {
    const key = await server.request('/v1/api-keys', {
      token: account.keys.sandbox.secret_key,
      body: { name: 'default', environment: 'sandbox' },
    });
    expect(key.body.permissions).not.toContain('analytics:read');
    const res = await usage(key.body.secret_key);
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ type: 'permission_error', code: 'INSUFFICIENT_PERMISSIONS' });
  });

  it('summarises everything on record for the key environment only, by check type; sandbox runs are never billable', async () => {
    const res = await usage(account.keys.sandbox.secret_key);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      object: 'usage_summary',
      since: null,
      total: 6,
      billable: 0,
      by_check_type: [
        { check_type: 'document', count: 3, billable: 0 },
        { check_type: 'face_match', count: 1, billable: 0 },
        { check_type: 'liveness', count: 2, billable: 0 },
      ],
    });
  });

  it('counts live runs as billable', async () => {
    const res = await usage(account.keys.live.secret_key);
    expect(res.body).toMatchObject({
      total: 2,
      billable: 2,
      by_check_type: [
        { check_type: 'aml', count: 1, billable: 1 },
        { check_type: 'document', count: 1, billable: 1 },
      ],
    });
  });

  it('takes since as a lower bound and echoes it', async () => {
    const since = '2026-06-01T00:00:00.000Z';
    const res = await usage(account.keys.sandbox.secret_key, `?since=${encodeURIComponent(since)}`);
    expect(res.body).toMatchObject({ since, total: 4, billable: 0 });
    expect(res.body.by_check_type).toEqual([
      { check_type: 'document', count: 2, billable: 0 },
      { check_type: 'face_match', count: 1, billable: 0 },
      { check_type: 'liveness', count: 1, billable: 0 },
    ]);
    const future = await usage(
      account.keys.sandbox.secret_key,
      `?since=${encodeURIComponent('2999-01-01T00:00:00+02:00')}`,
    );
    expect(future.body).toMatchObject({ total: 0, billable: 0, by_check_type: [] });
  });

  it('refuses an invalid since with 400 PARAMETER_INVALID (param since)', async () => {
    for (const bad of ['yesterday', '2026-13-01T00:00:00Z', '2026-06-01']) {
      const res = await usage(account.keys.sandbox.secret_key, `?since=${encodeURIComponent(bad)}`);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({
        type: 'invalid_request_error',
        code: 'PARAMETER_INVALID',
        param: 'since',
      });
    }
  });
});
