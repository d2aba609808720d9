import type { BootstrapResult } from '../../src/services/access/index.js';
import { presetFlowId } from '../../src/services/catalog/index.js';
import {
  ArchiveFlowDocument,
  CreateFlowDocument,
  DeleteFlowDocument,
  FlowDocument,
  FlowsDocument,
  UpdateFlowDocument,
} from '../graphql/generated.js';
import { gql } from '../support/graphql.js';
import type { TestServer } from '../support/test-server.js';
import { withTestAccount } from '../support/account.js';
import { createVerification } from '../support/factories.js';
import { signedInMember } from '../support/members.js';

let server: TestServer;
let account: BootstrapResult;
let sandbox: string;
let live: string;

withTestAccount((t) => ({ server, account, sandbox, live } = t));

const STEPS = [
  { type: 'document', required: true },
  { type: 'liveness', required: false, sensitivity: 0.4, threshold: 0.8 },
];

const post = (path: string, token: string, body: unknown = {}) => server.request(path, { token, body });
const get = (path: string, token: string) => server.request(path, { token });
const del = (path: string, token: string) => server.request(path, { token, method: 'DELETE' });
const createFlow = async (token: string, body: Record<string, unknown> = {}) => {
  const res = await post('/v1/flows', token, { name: 'KYC', steps: STEPS, ...body });
  expect(res.status).toBe(201);
  return res.body;
};

describe('POST /v1/flows and GET /v1/flows/{id}', () => {
  it('creates a flow (201) with every field presented, and reads it back', async () => {
    const ageConfig = { ageRules: [{ fromAge: 0, toAge: 17, action: 'reject' }], ageRuleFallback: 'pass' };
    const body = {
      name: 'Full',
      steps: [{ type: 'age', config: ageConfig }, ...STEPS],
      status: 'active',
      sensitivity: 0.6,
      brand_name: 'Acme',
      logo_url: 'https://cdn.acme.test/logo.png',
      accent_color: '#1a2b3c',
      support_url: 'http://help.acme.test',
      languages: ['en', 'de-CH'],
      default_email_locale: 'de-CH',
      country_policy: {
        allow: ['DE', 'fra'],
        block: ['PRK'],
        review: [],
        gate_before_start: true,
        blocked_mode: 'run_and_decide',
        blocked_disposition: 'reject',
      },
      network_policy: { enabled: true, on_proxy: 'ignore', on_ip_change: 'review', exempt_countries: ['CH'] },
      expiry_policy: { default: 'reject', rules: [{ country: 'DEU', document_type: '*', disposition: 'review' }] },
      policy_tree: {
        sensitivity: 0.5,
        sensitivity_by_check: { document: 0.7 },
        findings: { INCOMPLETE_DOCUMENT: { disposition: 'pass', note: 'waived', expires_at: '2030-01-01T00:00:00Z' } },
        by_country: { DEU: { by_document_type: { id_card: { sensitivity: 0.9 } }, sensitivity: 0.3 } },
        legacy_by_document_type: {
          passport: { findings: { EXPIRY_UNREADABLE: { disposition: 'review', threshold: 0.2 } } },
        },
      },
      accepted_document_types: ['passport', 'id_card'],
      repeat_policy: { enabled: true, scope: 'any' },
    };
    const res = await post('/v1/flows', sandbox, body);
    expect(res.body.error).toBeUndefined();
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      object: 'flow',
      name: 'Full',
      is_default: false,
      status: 'active',
      accent_color: '#1A2B3C',
      country_policy: { allow: ['DE', 'FRA'] },
      repeat_policy: { enabled: true, scope: 'any' },
      accepted_document_types: ['passport', 'id_card'],
      version: 1,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(res.body.id).toMatch(/^flw_[0-9A-Za-z]{24}$/);
    expect(res.body.steps[0]).toEqual({
      type: 'age',
      required: true,
      sensitivity: null,
      threshold: null,
      config: ageConfig,
    });
    expect(res.body.steps[2]).toEqual({
      type: 'liveness',
      required: false,
      sensitivity: 0.4,
      threshold: 0.8,
      config: {},
    });
    const read = await get(`/v1/flows/${res.body.id}`, sandbox);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(res.body);
  });

  it('presents unset optionals as null (name and steps are the only required fields)', async () => {
    const res = await post('/v1/flows', sandbox, { name: 'Bare', steps: [{ type: 'document' }] });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      steps: [{ type: 'document', required: true }],
      sensitivity: null,
      brand_name: null,
      logo_url: null,
      accent_color: null,
      support_url: null,
      languages: [],
      default_email_locale: null,
      country_policy: null,
      network_policy: null,
      expiry_policy: null,
      policy_tree: null,
      accepted_document_types: [],
      repeat_policy: null,
    });
  });
});

describe('GET /v1/flows', () => {
  it('lists the flows of the key environment, newest first, archived included, deleted excluded, with cursor pagination', async () => {
    const other = await server.bootstrap();
    const token = other.keys.sandbox.secret_key;
    const preset = presetFlowId(other.merchant.id, 'sandbox');
    expect((await get('/v1/flows', token)).body.data.map((f: { id: string }) => f.id)).toEqual([preset]);
    const a = await createFlow(token, { name: 'a' });
    const b = await createFlow(token, { name: 'b', status: 'archived' });
    const c = await createFlow(token, { name: 'c' });
    await createFlow(other.keys.live.secret_key, { name: 'live one' });
    expect((await del(`/v1/flows/${c.id}`, token)).status).toBe(200);

    const all = await get('/v1/flows', token);
    expect(all.body).toMatchObject({ object: 'list', has_more: false, next_cursor: null });
    const ids = all.body.data.map((f: { id: string }) => f.id);
    expect(ids).toEqual([b.id, a.id, preset]);

    const first = await get('/v1/flows?limit=1', token);
    expect(first.body).toMatchObject({ has_more: true, next_cursor: b.id });
    const second = await get(`/v1/flows?limit=1&starting_after=${b.id}`, token);
    expect(second.body.data.map((f: { id: string }) => f.id)).toEqual([a.id]);

    const bad = await get('/v1/flows?starting_after=vs_123', token);
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'PARAMETER_INVALID', param: 'starting_after' });
  });
});

describe('POST /v1/flows/{id} (update)', () => {
  it('replaces steps wholesale and increments the version on every update', async () => {
    const flow = await createFlow(sandbox, { brand_name: 'Keep me' });
    const res = await post(`/v1/flows/${flow.id}`, sandbox, { steps: [{ type: 'email' }] });
    expect(res.status).toBe(200);
    expect(res.body.steps).toEqual([{ type: 'email', required: true, sensitivity: null, threshold: null, config: {} }]);
    expect(res.body).toMatchObject({ version: 2, brand_name: 'Keep me', name: 'KYC' });
    const again = await post(`/v1/flows/${flow.id}`, sandbox, { name: 'Renamed', brand_name: null, version: 2 });
    expect(again.body).toMatchObject({ version: 3, name: 'Renamed', brand_name: null });
  });

  it('needs at least one field: 400 PARAMETER_MISSING (a version alone is not a field)', async () => {
    const flow = await createFlow(sandbox);
    for (const body of [{}, { version: 1 }]) {
      const res = await post(`/v1/flows/${flow.id}`, sandbox, body);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code: 'PARAMETER_MISSING' });
    }
    expect((await get(`/v1/flows/${flow.id}`, sandbox)).body.version).toBe(1);
  });

  it('a version that is not the current one applies nothing: 409 STALE_VERSION with detail.current_version', async () => {
    const flow = await createFlow(sandbox);
    await post(`/v1/flows/${flow.id}`, sandbox, { name: 'Second', version: 1 });
    const stale = await post(`/v1/flows/${flow.id}`, sandbox, {
      name: 'Lost write',
      steps: [{ type: 'email' }],
      is_default: true,
      version: 1,
    });
    expect(stale.status).toBe(409);
    expect(stale.body.error).toMatchObject({
      type: 'invalid_request_error',
      code: 'STALE_VERSION',
      detail: { current_version: 2 },
    });
    const read = await get(`/v1/flows/${flow.id}`, sandbox);
    expect(read.body).toMatchObject({ name: 'Second', version: 2, is_default: false });
    expect(read.body.steps).toHaveLength(2);
  });

  it('archives with status, and an archived flow stays readable and listed', async () => {
    const flow = await createFlow(sandbox);
    const res = await post(`/v1/flows/${flow.id}`, sandbox, { status: 'archived' });
    expect(res.body).toMatchObject({ status: 'archived', version: 2 });
    expect((await get(`/v1/flows/${flow.id}`, sandbox)).body.status).toBe('archived');
  });
});

describe('is_default', () => {
  it('marks at most one default per environment: the new default clears the previous one, the other environment keeps its own', async () => {
    const other = await server.bootstrap();
    const token = other.keys.sandbox.secret_key;
    const liveDefault = await createFlow(other.keys.live.secret_key, { is_default: true });
    const first = await createFlow(token, { is_default: true });
    const second = await createFlow(token, { is_default: true });
    expect(second.is_default).toBe(true);
    const previous = await get(`/v1/flows/${first.id}`, token);
    expect(previous.body).toMatchObject({ is_default: false, version: 2 });

    const third = await createFlow(token);
    const moved = await post(`/v1/flows/${third.id}`, token, { is_default: true });
    expect(moved.body.is_default).toBe(true);
    const defaults = (await get('/v1/flows', token)).body.data.filter((f: { is_default: boolean }) => f.is_default);
    expect(defaults.map((f: { id: string }) => f.id)).toEqual([third.id]);
    expect((await get(`/v1/flows/${liveDefault.id}`, other.keys.live.secret_key)).body.is_default).toBe(true);
  });
});

describe('is_default under concurrency', () => {
  it('concurrent creates marking the default all succeed and leave exactly one default', async () => {
    const other = await server.bootstrap();
    const token = other.keys.sandbox.secret_key;
    const results = await Promise.all(
      [1, 2, 3, 4].map((n) => post('/v1/flows', token, { name: `d${n}`, steps: STEPS, is_default: true })),
    );
    expect(results.map((r) => r.status)).toEqual([201, 201, 201, 201]);
    const defaults = (await get('/v1/flows', token)).body.data.filter((f: { is_default: boolean }) => f.is_default);
    expect(defaults).toHaveLength(1);
  });
});

/** A sandbox session on `flowId`, made through POST /v1/verifications. */
const sessionUsing = async (owner: BootstrapResult, flowId: string): Promise<string> =>
  (await createVerification(server, owner, 'sandbox', { flow: flowId, sandbox: { outcome: 'pending' } })).id;

describe('DELETE /v1/flows/{id}', () => {
  it('answers {id, object: flow, deleted: true}; the flow is gone from reads, its row is kept, and verifications that used it are unaffected', async () => {
    const flow = await createFlow(sandbox);
    const verificationId = await sessionUsing(account, flow.id);
    const res = await del(`/v1/flows/${flow.id}`, sandbox);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: flow.id, object: 'flow', deleted: true });

    const gone = await get(`/v1/flows/${flow.id}`, sandbox);
    expect(gone.status).toBe(404);
    expect(gone.body.error.type).toBe('not_found_error');
    expect((await post(`/v1/flows/${flow.id}`, sandbox, { name: 'x' })).status).toBe(404);
    expect((await del(`/v1/flows/${flow.id}`, sandbox)).status).toBe(404);
    const [row] = await server.sql('select deleted_at from flows where id = $1', [flow.id]);
    expect(row.deleted_at).not.toBeNull();

    const verification = await get(`/v1/verifications/${verificationId}`, sandbox);
    expect(verification.status).toBe(200);
    expect(verification.body).toMatchObject({ id: verificationId, flow: flow.id });
  });
});

describe('POST /v1/flows/{id}/preview', () => {
  it('creates a sandbox preview session even with a live key, expiring in 30 minutes, with the token in the url', async () => {
    const flow = await createFlow(live);
    const before = Date.now();
    const res = await post(`/v1/flows/${flow.id}/preview`, live);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      object: 'flow_preview',
      flow: flow.id,
      mode: 'sandbox',
      client_token: expect.any(String),
    });
    expect(res.body.id).toMatch(/^vs_/);
    expect(res.body.url).toBe(`${server.config.publicUrl}/verify/${res.body.id}#token=${res.body.client_token}`);
    const ttl = new Date(res.body.expires_at).getTime() - before;
    expect(server.config.previewTtlSeconds).toBe(1800);
    expect(ttl).toBeGreaterThan(1795_000);
    expect(ttl).toBeLessThan(1805_000);
    const [row] = await server.sql('select mode, is_preview, flow_id, merchant_id from verifications where id = $1', [
      res.body.id,
    ]);
    expect(row).toEqual({ mode: 'sandbox', is_preview: true, flow_id: flow.id, merchant_id: account.merchant.id });
    const checks = await server.sql('select type, mode from checks where verification_id = $1 order by position', [
      res.body.id,
    ]);
    expect(checks).toEqual([
      { type: 'document', mode: 'sandbox' },
      { type: 'liveness', mode: 'sandbox' },
    ]);
  });

  it('answers 400 FLOW_ARCHIVED for an archived flow and 400 FLOW_EMPTY for a flow with no steps', async () => {
    const archived = await createFlow(sandbox, { status: 'archived' });
    const a = await post(`/v1/flows/${archived.id}/preview`, sandbox);
    expect(a.status).toBe(400);
    expect(a.body.error).toMatchObject({ type: 'invalid_request_error', code: 'FLOW_ARCHIVED' });
    // A flow without steps is a draft: it saves, and its preview is FLOW_EMPTY.
    const empty = (await post('/v1/flows', sandbox, { name: 'Draft', steps: [] })).body;
    const e = await post(`/v1/flows/${empty.id}/preview`, sandbox);
    expect(e.status).toBe(400);
    expect(e.body.error).toMatchObject({ type: 'invalid_request_error', code: 'FLOW_EMPTY' });
  });

  it('finds the flow in the key environment only', async () => {
    const liveFlow = await createFlow(live);
    expect((await post(`/v1/flows/${liveFlow.id}/preview`, sandbox)).status).toBe(404);
  });
});

describe('the built-in preset', () => {
  it('is readable by its stable id before anything else happened, and is read-only (400 FLOW_READ_ONLY)', async () => {
    const fresh = await server.bootstrap();
    const token = fresh.keys.live.secret_key;
    const id = presetFlowId(fresh.merchant.id, 'live');
    const res = await get(`/v1/flows/${id}`, token);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id, object: 'flow', is_default: false, status: 'active' });
    expect(res.body.steps.map((s: { type: string }) => s.type)).toEqual(['document', 'liveness', 'face_match']);
    for (const attempt of [post(`/v1/flows/${id}`, token, { name: 'Mine now' }), del(`/v1/flows/${id}`, token)]) {
      const refused = await attempt;
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({ type: 'invalid_request_error', code: 'FLOW_READ_ONLY' });
    }
    expect((await get(`/v1/flows/${id}`, token)).body).toMatchObject({ name: res.body.name, version: 1 });
    const sandboxPreset = presetFlowId(fresh.merchant.id, 'sandbox');
    expect((await get(`/v1/flows/${sandboxPreset}`, token)).status).toBe(404);
  });
});

describe('tenancy', () => {
  it('answers 404 not_found_error for a flow of the other environment, of another account, or a malformed id', async () => {
    const flow = await createFlow(sandbox);
    for (const res of [
      await get(`/v1/flows/${flow.id}`, live),
      await post(`/v1/flows/${flow.id}`, live, { name: 'x' }),
      await del(`/v1/flows/${flow.id}`, live),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.error.type).toBe('not_found_error');
    }
    const other = await server.bootstrap();
    const foreign = await get(`/v1/flows/${flow.id}`, other.keys.sandbox.secret_key);
    expect(foreign.status).toBe(404);
    expect((await del(`/v1/flows/${flow.id}`, other.keys.sandbox.secret_key)).status).toBe(404);
    expect(
      (await get(`/v1/flows/${presetFlowId(account.merchant.id, 'sandbox')}`, other.keys.sandbox.secret_key)).status,
    ).toBe(404);
    expect((await get('/v1/flows/not-a-flow', sandbox)).status).toBe(404);
    expect((await get(`/v1/flows/${flow.id}`, sandbox)).body.name).toBe('KYC');
  });
});

describe('validation', () => {
  it.each([
    ['name missing', { steps: [] }, 'PARAMETER_MISSING', 'name'],
    ['empty name', { name: '  ' }, 'PARAMETER_INVALID', 'name'],
    ['name over 200 characters', { name: 'x'.repeat(201) }, 'PARAMETER_INVALID', 'name'],
    ['unknown field', { name: 'x', colour: 'red' }, 'PARAMETER_UNKNOWN', 'colour'],
    ['unknown step type', { name: 'x', steps: [{ type: 'palm' }] }, 'PARAMETER_INVALID', 'steps[0].type'],
    ['step type missing', { name: 'x', steps: [{ required: true }] }, 'PARAMETER_MISSING', 'steps[0].type'],
    [
      'required not boolean',
      { name: 'x', steps: [{ type: 'document', required: 'yes' }] },
      'PARAMETER_INVALID',
      'steps[0].required',
    ],
    [
      'step sensitivity above 1',
      { name: 'x', steps: [{ type: 'document', sensitivity: 1.5 }] },
      'PARAMETER_INVALID',
      'steps[0].sensitivity',
    ],
    [
      'step threshold below 0',
      { name: 'x', steps: [{ type: 'document', threshold: -0.1 }] },
      'PARAMETER_INVALID',
      'steps[0].threshold',
    ],
    [
      'config not an object',
      { name: 'x', steps: [{ type: 'document', config: [] }] },
      'PARAMETER_INVALID',
      'steps[0].config',
    ],
    [
      'unknown step field',
      { name: 'x', steps: [{ type: 'document', weight: 2 }] },
      'PARAMETER_UNKNOWN',
      'steps[0].weight',
    ],
    [
      'age rule with a text age',
      { name: 'x', steps: [{ type: 'age', config: { ageRules: [{ fromAge: 'ten', toAge: 17, action: 'reject' }] } }] },
      'PARAMETER_INVALID',
      'steps[0].config.ageRules[0].fromAge',
    ],
    [
      'age rule without action',
      { name: 'x', steps: [{ type: 'age', config: { ageRules: [{ fromAge: 0, toAge: 17 }] } }] },
      'PARAMETER_MISSING',
      'steps[0].config.ageRules[0].action',
    ],
    [
      'age fallback not a string',
      { name: 'x', steps: [{ type: 'age', config: { ageRuleFallback: 3 } }] },
      'PARAMETER_INVALID',
      'steps[0].config.ageRuleFallback',
    ],
    [
      'age action unknown (would approve)',
      { name: 'x', steps: [{ type: 'age', config: { ageRules: [{ fromAge: 0, toAge: 17, action: 'refuse' }] } }] },
      'PARAMETER_INVALID',
      'steps[0].config.ageRules[0].action',
    ],
    [
      'age fallback unknown',
      { name: 'x', steps: [{ type: 'age', config: { ageRuleFallback: 'allow' } }] },
      'PARAMETER_INVALID',
      'steps[0].config.ageRuleFallback',
    ],
    [
      'expiry default unknown (would approve)',
      { name: 'x', expiry_policy: { default: 'refuse' } },
      'PARAMETER_INVALID',
      'expiry_policy.default',
    ],
    [
      'expiry rule disposition unknown',
      { name: 'x', expiry_policy: { rules: [{ country: 'DEU', document_type: '*', disposition: 'deny' }] } },
      'PARAMETER_INVALID',
      'expiry_policy.rules[0].disposition',
    ],
    [
      'unknown document type',
      { name: 'x', accepted_document_types: ['library_card'] },
      'PARAMETER_INVALID',
      'accepted_document_types[0]',
    ],
    [
      'country not ISO',
      { name: 'x', country_policy: { allow: ['Germany'] } },
      'PARAMETER_INVALID',
      'country_policy.allow[0]',
    ],
    [
      'gate not boolean',
      { name: 'x', country_policy: { gate_before_start: 'no' } },
      'PARAMETER_INVALID',
      'country_policy.gate_before_start',
    ],
    [
      'unknown network field',
      { name: 'x', network_policy: { enabled: true, on_vpn: 'ignore' } },
      'PARAMETER_UNKNOWN',
      'network_policy.on_vpn',
    ],
    [
      'expiry rule document type',
      { name: 'x', expiry_policy: { rules: [{ country: 'DE', document_type: 'visa', disposition: 'reject' }] } },
      'PARAMETER_INVALID',
      'expiry_policy.rules[0].document_type',
    ],
    [
      'policy tree check type',
      { name: 'x', policy_tree: { sensitivity_by_check: { palm: 0.5 } } },
      'PARAMETER_UNKNOWN',
      'policy_tree.sensitivity_by_check.palm',
    ],
    [
      'policy tree sensitivity',
      { name: 'x', policy_tree: { by_country: { DE: { sensitivity: 'high' } } } },
      'PARAMETER_INVALID',
      'policy_tree.by_country.DE.sensitivity',
    ],
    [
      'finding without disposition',
      { name: 'x', policy_tree: { findings: { INCOMPLETE_DOCUMENT: { note: 'n' } } } },
      'PARAMETER_MISSING',
      'policy_tree.findings.INCOMPLETE_DOCUMENT.disposition',
    ],
    [
      'repeat scope',
      { name: 'x', repeat_policy: { enabled: true, scope: 'everyone' } },
      'PARAMETER_INVALID',
      'repeat_policy.scope',
    ],
    [
      'repeat enabled missing',
      { name: 'x', repeat_policy: { scope: 'any' } },
      'PARAMETER_MISSING',
      'repeat_policy.enabled',
    ],
    ['logo url not http(s)', { name: 'x', logo_url: 'ftp://cdn.test/logo.png' }, 'PARAMETER_INVALID', 'logo_url'],
    ['support url not a url', { name: 'x', support_url: 'help me' }, 'PARAMETER_INVALID', 'support_url'],
    ['accent colour', { name: 'x', accent_color: 'red' }, 'PARAMETER_INVALID', 'accent_color'],
    ['language tag', { name: 'x', languages: ['en', 'not a tag'] }, 'PARAMETER_INVALID', 'languages[1]'],
    ['email locale', { name: 'x', default_email_locale: 'english!' }, 'PARAMETER_INVALID', 'default_email_locale'],
    ['status', { name: 'x', status: 'paused' }, 'PARAMETER_INVALID', 'status'],
    ['is_default', { name: 'x', is_default: 'yes' }, 'PARAMETER_INVALID', 'is_default'],
  ])('refuses %s with 400 naming the param', async (_label, body, code, param) => {
    const res = await post('/v1/flows', sandbox, body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code, param });
  });

  it('validates updates the same way, and version must be an integer', async () => {
    const flow = await createFlow(sandbox);
    const res = await post(`/v1/flows/${flow.id}`, sandbox, { steps: [{ type: 'selfie' }] });
    expect(res.body.error).toMatchObject({ code: 'PARAMETER_INVALID', param: 'steps[0].type' });
    const version = await post(`/v1/flows/${flow.id}`, sandbox, { name: 'y', version: '1' });
    expect(version.body.error).toMatchObject({ code: 'PARAMETER_INVALID', param: 'version' });
    const preview = await post(`/v1/flows/${flow.id}/preview`, sandbox, { mode: 'live' });
    expect(preview.body.error).toMatchObject({ code: 'PARAMETER_UNKNOWN', param: 'mode' });
    expect((await get(`/v1/flows/${flow.id}`, sandbox)).body.version).toBe(1);
  });
});

describe('permissions', () => {
  it('a live key with the default live permissions lacks settings:write: 403 on POST /v1/flows, while it can read', async () => {
    const created = await post('/v1/api-keys', live, { name: 'default live', environment: 'live' });
    const token = created.body.secret_key;
    const res = await post('/v1/flows', token, { name: 'x' });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ type: 'permission_error', code: 'INSUFFICIENT_PERMISSIONS' });
    const flow = await createFlow(live);
    expect((await post(`/v1/flows/${flow.id}`, token, { name: 'y' })).status).toBe(403);
    expect((await del(`/v1/flows/${flow.id}`, token)).status).toBe(403);
    expect((await get(`/v1/flows/${flow.id}`, token)).status).toBe(200);
    expect((await get('/v1/flows', token)).status).toBe(200);
  });

  it('preview needs verification:create, listing needs settings:read', async () => {
    const narrow = await post('/v1/api-keys', sandbox, {
      name: 'settings only',
      environment: 'sandbox',
      permissions: ['settings:write'],
    });
    const flow = await createFlow(sandbox);
    expect((await post(`/v1/flows/${flow.id}/preview`, narrow.body.secret_key)).status).toBe(403);
    expect((await get('/v1/flows', narrow.body.secret_key)).status).toBe(403);
  });
});

describe('GraphQL flows (team members)', () => {
  it('createFlow, flow, updateFlow, archiveFlow and deleteFlow go through the same service as REST', async () => {
    const token = account.member.session_token;
    const created = await gql(server, token, CreateFlowDocument, {
      environment: 'live',
      input: {
        name: 'Console flow',
        steps: [
          { type: 'document' },
          { type: 'age', config: { ageRules: [{ fromAge: 0, toAge: 17, action: 'reject' }] } },
        ],
        countryPolicy: { block: ['prk'] },
        isDefault: true,
      },
    });
    expect(created.body.errors).toBeUndefined();
    const flow = created.body.data!.createFlow;
    expect(flow).toMatchObject({
      name: 'Console flow',
      environment: 'live',
      isDefault: true,
      isPreset: false,
      status: 'active',
      version: 1,
      countryPolicy: { block: ['PRK'] },
    });
    expect(flow.steps[0]).toEqual({ type: 'document', required: true, sensitivity: null, threshold: null, config: {} });
    const rest = await get(`/v1/flows/${flow.id}`, live);
    expect(rest.body).toMatchObject({ name: 'Console flow', is_default: true, version: 1 });
    expect((await get(`/v1/flows/${flow.id}`, sandbox)).status).toBe(404);

    const updated = await gql(server, token, UpdateFlowDocument, {
      id: flow.id,
      input: { steps: [{ type: 'email' }], brandName: 'Acme', version: 1 },
    });
    expect(updated.body.data!.updateFlow).toMatchObject({
      steps: [{ type: 'email' }],
      brandName: 'Acme',
      version: 2,
      name: 'Console flow',
    });
    const stale = await gql(server, token, UpdateFlowDocument, { id: flow.id, input: { name: 'Lost', version: 1 } });
    expect(stale.body.errors?.[0].extensions).toMatchObject({
      code: 'STALE_VERSION',
      type: 'invalid_request_error',
      detail: { current_version: 2 },
    });
    const archived = await gql(server, token, ArchiveFlowDocument, { id: flow.id, version: 2 });
    expect(archived.body.data!.archiveFlow).toEqual({ id: flow.id, status: 'archived', version: 3 });
    expect((await gql(server, token, FlowDocument, { id: flow.id })).body.data!.flow).toMatchObject({
      name: 'Console flow',
      status: 'archived',
    });

    const deleted = await gql(server, token, DeleteFlowDocument, { id: flow.id });
    expect(deleted.body.data!.deleteFlow).toEqual({ id: flow.id, deleted: true });
    const gone = await gql(server, token, FlowDocument, { id: flow.id });
    expect(gone.body.errors?.[0].extensions).toMatchObject({ type: 'not_found_error' });
  });

  it('validates with the REST rules, naming the GraphQL field', async () => {
    const token = account.member.session_token;
    const res = await gql(server, token, CreateFlowDocument, {
      environment: 'sandbox',
      input: { name: 'x', countryPolicy: { allow: ['Germany'] } },
    });
    expect(res.body.errors?.[0].extensions).toMatchObject({
      code: 'PARAMETER_INVALID',
      param: 'countryPolicy.allow[0]',
    });
    const step = await gql(server, token, CreateFlowDocument, {
      environment: 'sandbox',
      input: { name: 'x', steps: [{ type: 'palm' }] },
    });
    expect(step.body.errors?.[0].extensions).toMatchObject({ code: 'PARAMETER_INVALID', param: 'steps[0].type' });
    const empty = await gql(server, token, UpdateFlowDocument, {
      id: presetFlowId(account.merchant.id, 'sandbox'),
      input: {},
    });
    expect(empty.body.errors?.[0].extensions).toMatchObject({ code: 'PARAMETER_MISSING' });
    const preset = await gql(server, token, UpdateFlowDocument, {
      id: presetFlowId(account.merchant.id, 'sandbox'),
      input: { name: 'mine' },
    });
    expect(preset.body.errors?.[0].extensions).toMatchObject({ code: 'FLOW_READ_ONLY' });
  });

  it('flows is a cursor connection per environment, the preset included, and never crosses accounts', async () => {
    const other = await server.bootstrap();
    const token = other.member.session_token;
    for (const name of ['a', 'b'])
      await gql(server, token, CreateFlowDocument, {
        environment: 'sandbox',
        input: { name, steps: [{ type: 'document' }] },
      });
    await gql(server, token, CreateFlowDocument, {
      environment: 'live',
      input: { name: 'live', steps: [{ type: 'document' }] },
    });
    const first = await gql(server, token, FlowsDocument, { environment: 'sandbox', first: 2 });
    expect(first.body.data!.flows.nodes.map((f) => f.name)).toEqual(['b', 'a']);
    expect(first.body.data!.flows.pageInfo.hasNextPage).toBe(true);
    const next = await gql(server, token, FlowsDocument, {
      environment: 'sandbox',
      first: 2,
      after: first.body.data!.flows.pageInfo.endCursor,
    });
    expect(next.body.data!.flows.nodes.map((f) => [f.id, f.isPreset])).toEqual([
      [presetFlowId(other.merchant.id, 'sandbox'), true],
    ]);
    const both = await gql(server, token, FlowsDocument, {});
    expect(both.body.data!.flows.nodes.map((f) => f.environment).sort()).toEqual([
      'live',
      'live',
      'sandbox',
      'sandbox',
      'sandbox',
    ]);
    const foreign = await gql(server, account.member.session_token, FlowDocument, {
      id: first.body.data!.flows.nodes[0].id,
    });
    expect(foreign.body.errors?.[0].extensions).toMatchObject({ type: 'not_found_error' });
  });
});

describe('a flow without steps is a draft (FLOW_EMPTY only when it would start a session)', () => {
  it('saves a flow without steps on create and update, REST and GraphQL, and refuses a verification from it with FLOW_EMPTY', async () => {
    for (const body of [{ name: 'No steps' }, { name: 'Empty steps', steps: [] }]) {
      const res = await post('/v1/flows', sandbox, body);
      expect(res.status).toBe(201);
      expect(res.body.steps).toEqual([]);
    }
    const flow = await createFlow(sandbox);
    const emptied = await post(`/v1/flows/${flow.id}`, sandbox, { steps: [] });
    expect(emptied.status).toBe(200);
    expect(emptied.body.steps).toEqual([]);
    const viaGraphql = await gql(server, account.member.session_token, CreateFlowDocument, {
      environment: 'sandbox',
      input: { name: 'GraphQL empty', steps: [] },
    });
    expect(viaGraphql.body.errors).toBeUndefined();
    // Nothing is approved without a completed required check: no session starts from a draft.
    const start = await post('/v1/verifications', sandbox, { flow: flow.id, sandbox: { outcome: 'approved' } });
    expect(start.status).toBe(400);
    expect(start.body.error).toMatchObject({ type: 'invalid_request_error', code: 'FLOW_EMPTY', param: 'flow' });
    const sessions = await server.sql('select id from verifications where flow_id = $1', [flow.id]);
    expect(sessions).toEqual([]);
    // Steps added back: it starts sessions again.
    const restored = await post(`/v1/flows/${flow.id}`, sandbox, { steps: STEPS });
    expect(restored.status).toBe(200);
    expect((await post('/v1/verifications', sandbox, { flow: flow.id })).status).toBe(201);
  });

  it('an empty default flow refuses a create that names neither flow nor checks with FLOW_EMPTY', async () => {
    const draft = await post('/v1/flows', sandbox, { name: 'Empty default', steps: [], is_default: true });
    expect(draft.status).toBe(201);
    try {
      const res = await post('/v1/verifications', sandbox, {});
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'FLOW_EMPTY', param: 'flow' });
      // Inline checks still work: they run under the preset.
      expect((await post('/v1/verifications', sandbox, { checks: [{ type: 'document' }] })).status).toBe(201);
    } finally {
      await post(`/v1/flows/${draft.body.id}`, sandbox, { is_default: false });
    }
  });
});

describe('changing flows from a seat needs settings.manage', () => {
  it('a member without it is refused on GraphQL (permission_error) and nothing is saved; an owner may', async () => {
    const reviewer = await signedInMember(server, account, []);
    const name = `Not allowed ${Date.now()}`;
    const refused = await gql(server, reviewer.token, CreateFlowDocument, {
      environment: 'sandbox',
      input: { name, steps: [{ type: 'document' }] },
    });
    expect(refused.body.errors?.[0].extensions).toMatchObject({ type: 'permission_error' });
    expect(await server.sql('select id from flows where name = $1', [name])).toEqual([]);
    const allowed = await gql(server, account.member.session_token, CreateFlowDocument, {
      environment: 'sandbox',
      input: { name, steps: [{ type: 'document' }] },
    });
    expect(allowed.body.errors).toBeUndefined();
  });
});
