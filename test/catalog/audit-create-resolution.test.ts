import type { BootstrapResult } from '../../src/services/access/index.js';
import { jpegBytes } from '../support/fixtures.js';
import { withTestServer } from '../support/account.js';
import type { TestServer } from '../support/test-server.js';
import { waitFor } from '../support/wait.js';

// Spec, Endpoints: Verifications, Create rules 1 and 2, and Flow: "Flows created before a
// session keep their steps in that session as a snapshot".

let server: TestServer;
withTestServer((s) => (server = s));

const create = (token: string, body: Record<string, unknown>) => server.request('/v1/verifications', { token, body });
async function createFlow(token: string, body: Record<string, unknown>) {
  const res = await server.request('/v1/flows', { token, body: { name: 'flow', ...body } });
  expect(res.status).toBe(201);
  return res.body as { id: string; version: number };
}
const updateFlow = (token: string, id: string, body: Record<string, unknown>) =>
  server.request(`/v1/flows/${id}`, { token, body });
const checkTypes = (v: { checks: { type: string }[] }) => v.checks.map((c) => c.type);

let account: BootstrapResult;
let key: string;
beforeEach(async () => {
  account = await server.bootstrap();
  key = account.keys.sandbox.secret_key;
});

describe('Create rule 1: what runs is resolved in this order: inline checks, named flow, default flow, built-in preset', () => {
  it('sending neither flow nor checks runs the flow marked as default, not the preset', async () => {
    const preset = await create(key, {});
    expect(preset.status).toBe(201);
    expect(checkTypes(preset.body)).toEqual(['document', 'liveness', 'face_match']);
    const byDefault = await createFlow(key, { steps: [{ type: 'document' }, { type: 'age' }], is_default: true });
    const res = await create(key, {});
    expect(res.status).toBe(201);
    expect(res.body.flow).toBe(byDefault.id);
    expect(checkTypes(res.body)).toEqual(['document', 'age']);
  });

  it('a named flow wins over the default flow', async () => {
    await createFlow(key, { steps: [{ type: 'document' }], is_default: true });
    const named = await createFlow(key, { steps: [{ type: 'liveness' }, { type: 'aml' }] });
    const res = await create(key, { flow: named.id });
    expect(res.status).toBe(201);
    expect(res.body.flow).toBe(named.id);
    expect(checkTypes(res.body)).toEqual(['liveness', 'aml']);
  });

  it('an inline checks array wins over the default flow and runs exactly the checks sent', async () => {
    const byDefault = await createFlow(key, { steps: [{ type: 'document' }], is_default: true });
    const res = await create(key, { checks: [{ type: 'email' }, { type: 'age', required: false }] });
    expect(res.status).toBe(201);
    expect(res.body.flow).not.toBe(byDefault.id);
    expect(res.body.checks.map((c: { type: string; required: boolean }) => [c.type, c.required])).toEqual([
      ['email', true],
      ['age', false],
    ]);
  });

  it('the default flow is per environment: a live default never runs for a sandbox key', async () => {
    const liveDefault = await createFlow(account.keys.live.secret_key, { steps: [{ type: 'aml' }], is_default: true });
    const res = await create(key, {});
    expect(res.status).toBe(201);
    expect(res.body.flow).not.toBe(liveDefault.id);
    expect(checkTypes(res.body)).toEqual(['document', 'liveness', 'face_match']);
  });
});

describe('Create rule 2: an archived flow (named or default) gives 400 FLOW_ARCHIVED; an unknown flow id gives 400 FLOW_NOT_FOUND', () => {
  it('a named archived flow: 400 FLOW_ARCHIVED, no session made', async () => {
    const flow = await createFlow(key, { steps: [{ type: 'document' }] });
    expect((await updateFlow(key, flow.id, { status: 'archived' })).status).toBe(200);
    const res = await create(key, { flow: flow.id });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code: 'FLOW_ARCHIVED', param: 'flow' });
    const [{ n }] = await server.sql('select count(*)::int as n from verifications where merchant_id = $1', [
      account.merchant.id,
    ]);
    expect(n).toBe(0);
  });

  it('an archived default flow: sending neither flow nor checks gives 400 FLOW_ARCHIVED (never a silent fall back to the preset)', async () => {
    const flow = await createFlow(key, { steps: [{ type: 'document' }], is_default: true });
    expect((await updateFlow(key, flow.id, { status: 'archived' })).body).toMatchObject({ status: 'archived' });
    const res = await create(key, {});
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('FLOW_ARCHIVED');
    // Inline checks do not use the default, so they still run.
    expect((await create(key, { checks: [{ type: 'document' }] })).status).toBe(201);
  });

  it('a flow of the other environment or of another account is an unknown flow id: 400 FLOW_NOT_FOUND', async () => {
    const liveFlow = await createFlow(account.keys.live.secret_key, { steps: [{ type: 'document' }] });
    const other = await server.bootstrap();
    const foreign = await createFlow(other.keys.sandbox.secret_key, { steps: [{ type: 'document' }] });
    for (const id of [liveFlow.id, foreign.id, 'flw_000000000000000000000000', 'not-a-flow']) {
      const res = await create(key, { flow: id });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code: 'FLOW_NOT_FOUND', param: 'flow' });
    }
  });

  it('a deleted flow is an unknown flow id: 400 FLOW_NOT_FOUND', async () => {
    const flow = await createFlow(key, { steps: [{ type: 'document' }] });
    expect((await server.request(`/v1/flows/${flow.id}`, { token: key, method: 'DELETE' })).status).toBe(200);
    expect((await create(key, { flow: flow.id })).body.error.code).toBe('FLOW_NOT_FOUND');
  });
});

describe('a session keeps a snapshot of the steps it started with', () => {
  it('replacing the flow steps after create changes neither the session checks nor which uploads it needs', async () => {
    const flow = await createFlow(key, { steps: [{ type: 'document' }] });
    const created = await create(key, { flow: flow.id, sandbox: { outcome: 'pending' } });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    // The flow now needs a selfie too; the running session must not.
    expect(
      (await updateFlow(key, flow.id, { steps: [{ type: 'document' }, { type: 'liveness' }, { type: 'face_match' }] }))
        .status,
    ).toBe(200);
    const presigned = await server.request(`/v1/verifications/${id}/uploads`, {
      token: key,
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
      token: key,
      method: 'POST',
    });
    expect(completed.status).toBe(200);
    // The document was the last upload the snapshot needs: the session left pending and ran its one check.
    const settled = await waitFor(
      async () => {
        const v = (await server.request(`/v1/verifications/${id}`, { token: key })).body;
        return v.status !== 'pending' && v.status !== 'processing' ? v : undefined;
      },
      15_000,
      'session to settle',
    );
    expect(checkTypes(settled)).toEqual(['document']);
    const [row] = await server.sql(`select flow_snapshot from verifications where id = $1`, [id]);
    expect(row.flow_snapshot.steps.map((s: { type: string }) => s.type)).toEqual(['document']);
    // A new session takes the new steps.
    expect(checkTypes((await create(key, { flow: flow.id })).body)).toEqual(['document', 'liveness', 'face_match']);
  });
});
