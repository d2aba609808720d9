import type { LogContext } from '@mikro-orm/core';
import type { Mode } from '../../src/config.js';
import { Verification } from '../../src/entities/verification.entity.js';
import { scopedFork } from '../../src/orm.js';
import type { BootstrapResult } from '../../src/services/access/index.js';
import { findPersonMatches } from '../../src/services/repeat-control/index.js';
import { unscopedReason, withConnection, inTransaction } from '../../src/services/shared/index.js';
import { linkApplicantAfterFaceMatch, openCreate } from '../../src/services/verifications/index.js';
import { withTestAccount } from '../support/account.js';
import type { TestServer } from '../support/test-server.js';
import { waitFor } from '../support/wait.js';

let server: TestServer;
let a: BootstrapResult;
let b: BootstrapResult;

withTestAccount(async (t) => {
  ({ server, account: a } = t);
  b = await server.bootstrap();
});

let n = 0;
const unique = (label: string) => `${label}-${Date.now()}-${n++}@example.com`;
const create = (token: string, body: Record<string, unknown>, idempotencyKey?: string) =>
  server.request('/v1/verifications', {
    token,
    body,
    headers: idempotencyKey ? { 'idempotency-key': idempotencyKey } : {},
  });

/** Every hand-written statement `run` sends (hand-written SQL reaches the ORM's query log with its own text). */
async function statementsOf<T>(run: () => Promise<T>): Promise<string[]> {
  const logger = server.runtime.orm.config.getLogger();
  const original = logger.logQuery;
  const queries: string[] = [];
  logger.logQuery = (context: { query: string } & LogContext) => {
    queries.push(context.query);
    return original.call(logger, context);
  };
  try {
    await run();
  } finally {
    logger.logQuery = original;
  }
  return queries;
}

/**
 * A hand-written statement of the create path: it names one of the create's tables, is not the
 * ORM's (which quotes its names) nor rawSqlOf's (positional `?`: the create runs on its own pooled
 * connection, whose log keeps the `$n` text tenantSql checked), and is not the events outbox
 * dispatcher (a system job that spans accounts by design, running alongside in this process).
 */
const CREATE_TABLES =
  /\b(from|into|update|join)\s+(verifications|checks|events|flows|idempotency_keys|reverification_grants|account_settings|identity_versions)\b/;
const isHandWrittenCreateStatement = (q: string) =>
  !q.includes('"') && !q.includes('?') && !q.includes('dispatched_at') && CREATE_TABLES.test(q);

describe('tenancy of the raw request paths: each statement binds the account and environment through tenantSql', () => {
  it("every statement of a create (flow by name, default, inline checks, preset's first use, Idempotency-Key, repeat refusal) is tenant-bound", async () => {
    const fresh = await server.bootstrap();
    const key = fresh.keys.sandbox.secret_key;
    const email = unique('raw-create');
    const statements = await statementsOf(async () => {
      // First use of the preset on this account: the create inserts it in its transaction.
      expect((await create(key, { sandbox: { outcome: 'pending' } })).status).toBe(201);
      const flow = await server.request('/v1/flows', {
        token: key,
        body: { name: 'Raw paths', steps: [{ type: 'document' }] },
      });
      expect(flow.status).toBe(201);
      expect((await create(key, { flow: flow.body.id, sandbox: { outcome: 'pending' } })).status).toBe(201);
      expect((await create(key, { checks: [{ type: 'document' }], sandbox: { outcome: 'pending' } })).status).toBe(201);
      const approved = await create(key, { applicant: { email }, sandbox: { outcome: 'approved' } }, `k-${n++}`);
      expect(approved.status).toBe(201);
      await waitFor(
        async () =>
          (await server.request(`/v1/verifications/${approved.body.id}`, { token: key })).body.status === 'approved' ||
          undefined,
        15_000,
        'the approval',
      );
      const refused = await create(key, { applicant: { email } }, `k-${n++}`);
      expect(refused.body.error?.code).toBe('ALREADY_VERIFIED');
      // A refusal before the claim stores its answer with the key (the idempotency error store).
      expect((await create(key, { flow: 'flw_nope' }, `k-${n++}`)).body.error?.code).toBe('FLOW_NOT_FOUND');
    });
    const own = statements.filter(isHandWrittenCreateStatement);
    const names = [
      'insert into flows',
      'insert into verifications',
      'person_lock',
      'update verifications set sequence',
    ];
    expect(names.filter((part) => !own.some((q) => q.includes(part)))).toEqual([]);
    expect(own.some((q) => q.includes('insert into idempotency_keys') && q.includes("'completed'"))).toBe(true);
    // Each would have been refused by tenantSql had it not bound both (the check tenantSql runs before a statement).
    const unbound = own.filter((q) => unscopedReason(q, ['sandbox']) !== null);
    expect(unbound).toEqual([]);
  });

  it('a create naming a flow of another environment or account answers 400 FLOW_NOT_FOUND (the flow is read by SQL)', async () => {
    const liveFlow = await server.request('/v1/flows', {
      token: a.keys.live.secret_key,
      body: { name: 'Live only', steps: [{ type: 'document' }] },
    });
    const otherFlow = await server.request('/v1/flows', {
      token: b.keys.sandbox.secret_key,
      body: { name: 'Other account', steps: [{ type: 'document' }] },
    });
    for (const id of [liveFlow.body.id, otherFlow.body.id]) {
      const res = await create(a.keys.sandbox.secret_key, { flow: id, sandbox: { outcome: 'pending' } }, `k-${n++}`);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'FLOW_NOT_FOUND', param: 'flow' });
    }
    expect((await create(a.keys.live.secret_key, { flow: liveFlow.body.id })).status).toBe(201);
  });

  it("the create's first statement, called directly for another environment or account, finds neither the flow nor the person", async () => {
    const email = unique('raw-open');
    const flow = await server.request('/v1/flows', {
      token: a.keys.sandbox.secret_key,
      body: { name: 'Sandbox only', steps: [{ type: 'document' }] },
    });
    const approved = await create(a.keys.sandbox.secret_key, {
      applicant: { email },
      sandbox: { outcome: 'approved' },
    });
    const fingerprint = (
      await server.sql<{ email_fingerprint: string }>('select email_fingerprint from verifications where id = $1', [
        approved.body.id,
      ])
    )[0]!.email_fingerprint;
    await waitFor(
      async () =>
        (await server.sql('select 1 from verifications where id = $1 and status = $2', [approved.body.id, 'approved']))
          .length > 0 || undefined,
      15_000,
      'the approval',
    );
    const opened = (merchantId: string, mode: Mode) =>
      withConnection(server.runtime.orm, (sql) =>
        inTransaction(sql, async () => {
          await openCreate(
            sql,
            { merchantId, mode },
            { flowId: flow.body.id },
            { claim: null, fingerprints: { email: null, reference: null, document: null, nationalId: null } },
          );
          return 'opened';
        }).catch((error: { code?: string }) => error.code),
      );
    expect(await opened(a.merchant.id, 'sandbox')).toBe('opened');
    expect(await opened(a.merchant.id, 'live')).toBe('FLOW_NOT_FOUND');
    expect(await opened(b.merchant.id, 'sandbox')).toBe('FLOW_NOT_FOUND');

    const matched = (merchantId: string, mode: Mode) =>
      withConnection(server.runtime.orm, (sql) =>
        findPersonMatches(
          sql,
          { merchantId, mode, flowId: null, reverificationPeriodDays: null },
          { email: fingerprint },
        ),
      );
    expect((await matched(a.merchant.id, 'sandbox')).approval?.id).toBe(approved.body.id);
    expect(await matched(a.merchant.id, 'live')).toEqual({ approval: null, review: null });
    expect(await matched(b.merchant.id, 'sandbox')).toEqual({ approval: null, review: null });
  });

  it('tagging and untagging a verification or applicant of another environment or account answers 404 and changes nothing', async () => {
    const sandbox = a.keys.sandbox.secret_key;
    const v = (await create(sandbox, { sandbox: { outcome: 'pending' } })).body.id as string;
    const tagged = await server.request(`/v1/verifications/${v}/tags`, { token: sandbox, body: { names: ['kept'] } });
    expect(tagged.status).toBe(200);
    const tagId = tagged.body.data?.[0]?.id ?? tagged.body[0]?.id;
    const applicant = await scopedFork(server.runtime.orm, {
      merchantId: a.merchant.id,
      modes: ['sandbox'],
    }).transactional(
      async (tx) => (await linkApplicantAfterFaceMatch(tx, await tx.findOneOrFail(Verification, { id: v }), null))!.id,
    );
    const appTag = await server.request(`/v1/applicants/${applicant}/tags`, {
      token: sandbox,
      body: { names: ['kept'] },
    });
    expect(appTag.status).toBe(200);
    for (const token of [a.keys.live.secret_key, b.keys.sandbox.secret_key, b.keys.live.secret_key]) {
      const calls = [
        server.request(`/v1/verifications/${v}/tags`, { token, body: { names: ['foreign'] } }),
        server.request(`/v1/verifications/${v}/tags/${tagId}`, { token, method: 'DELETE' }),
        server.request(`/v1/applicants/${applicant}/tags`, { token, body: { names: ['foreign'] } }),
        server.request(`/v1/applicants/${applicant}/tags/${tagId}`, { token, method: 'DELETE' }),
      ];
      for (const res of await Promise.all(calls)) {
        expect(res.status).toBe(404);
        expect(res.body.error).toMatchObject({ type: 'not_found_error' });
      }
    }
    expect(await server.sql('select tag_id from verification_tags where verification_id = $1', [v])).toEqual([
      { tag_id: tagId },
    ]);
    expect(await server.sql('select tag_id from applicant_tags where applicant_id = $1', [applicant])).toEqual([
      { tag_id: tagId },
    ]);
  });
});
