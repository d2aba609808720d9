import type { Mode } from '../../src/config.js';
import { scopedFork } from '../../src/orm.js';
import type { BootstrapResult } from '../../src/services/access/index.js';
import { resolveOrCreateTag, tagReferencesFor } from '../../src/services/catalog/index.js';
import {
  CreateTagDocument,
  RetireTagDocument,
  TagsDocument,
  TagVerificationDocument,
  UntagVerificationDocument,
  UpdateTagDocument,
} from '../graphql/generated.js';
import { gql } from '../support/graphql.js';
import type { TestServer } from '../support/test-server.js';
import { withTestAccount } from '../support/account.js';
import { createVerification } from '../support/factories.js';

let server: TestServer;
let account: BootstrapResult;
let other: BootstrapResult;
let sandbox: string;
let live: string;

withTestAccount(
  async (t) => {
    ({ server, account, sandbox, live } = t);
    other = await server.bootstrap();
    // Verifications are made through POST /v1/verifications: with the tag calls that is well over 100 requests a minute.
  },
  { env: { RATE_LIMIT_PER_MINUTE: '100000' } },
);

const tagEvents = (verificationId: string) =>
  server.sql<{ type: string; payload: any }>(
    `select type, payload from events where verification_id = $1 and type like 'verification.tag_%' order by (payload->'verification'->>'sequence')::int`,
    [verificationId],
  );

const createTag = (body: Record<string, unknown>, token = sandbox) => server.request('/v1/tags', { token, body });
const tagVerification = (id: string, body: Record<string, unknown>, token = sandbox) =>
  server.request(`/v1/verifications/${id}/tags`, { token, body });
const uniqueName = (base: string) => `${base} ${Math.random().toString(36).slice(2, 8)}`;

describe('POST /v1/tags', () => {
  it('answers 201 for a new tag with the Tag shape and the default color slate', async () => {
    const res = await createTag({ name: 'Priority Customer', description: 'Fast lane' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^tag_[0-9A-Za-z]{24}$/),
      object: 'tag',
      name: 'Priority Customer',
      slug: 'priority-customer',
      color: 'slate',
      description: 'Fast lane',
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
  });

  it('returns the live tag with 200 when the name, compared in normalised form, resolves to it (High Risk and high-risk)', async () => {
    const first = await createTag({ name: 'High Risk', color: 'red' });
    expect(first.status).toBe(201);
    for (const variant of ['high-risk', '  HIGH_RISK ', 'high   risk', 'High--Risk']) {
      const again = await createTag({ name: variant, color: 'blue' });
      expect(again.status).toBe(200);
      expect(again.body).toMatchObject({ id: first.body.id, name: 'High Risk', color: 'red' });
    }
  });

  it('keeps tags of sandbox and live apart: the same name in live is another tag', async () => {
    const name = uniqueName('Env');
    const sb = await createTag({ name });
    const lv = await createTag({ name }, live);
    expect(lv.status).toBe(201);
    expect(lv.body.id).not.toBe(sb.body.id);
  });

  it('yields one tag when two creates of the same name run concurrently', async () => {
    const base = uniqueName('Race');
    const variants = [
      base,
      base.toLowerCase(),
      base.toUpperCase(),
      base.replace(' ', '_'),
      base,
      base.replace(' ', '-'),
      base,
      base,
    ];
    const results = await Promise.all(variants.map((name) => createTag({ name })));
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 200)).toHaveLength(variants.length - 1);
    const rows = await server.sql(`select id from tags where merchant_id = $1 and slug = $2`, [
      account.merchant.id,
      results[0].body.slug,
    ]);
    expect(rows).toHaveLength(1);
  });

  it('resolves a create racing an uncommitted create of the same name to the winner (unique index, then re-read)', async () => {
    const merchantId = account.merchant.id;
    const scope = { merchantId, modes: ['sandbox' as Mode] };
    const name = uniqueName('Interleaved');
    let signalInserted!: () => void;
    let commit!: () => void;
    const inserted = new Promise<void>((resolve) => (signalInserted = resolve));
    const gate = new Promise<void>((resolve) => (commit = resolve));
    const winner = scopedFork(server.runtime.orm, scope).transactional(async (em) => {
      const result = await resolveOrCreateTag(em, merchantId, 'sandbox', { name });
      signalInserted();
      await gate;
      return result;
    });
    await inserted;
    const loser = resolveOrCreateTag(scopedFork(server.runtime.orm, scope), merchantId, 'sandbox', {
      name: name.toLowerCase(),
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    commit();
    const [won, lost] = await Promise.all([winner, loser]);
    expect(won.created).toBe(true);
    expect(lost.created).toBe(false);
    expect(lost.tag.id).toBe(won.tag.id);
  });

  it('validates name (required, 1-100), color (the twelve colors) and description (at most 500)', async () => {
    expect((await createTag({ color: 'red' })).body.error).toMatchObject({
      type: 'invalid_request_error',
      code: 'PARAMETER_MISSING',
      param: 'name',
    });
    expect((await createTag({ name: '' })).body.error).toMatchObject({ code: 'PARAMETER_INVALID', param: 'name' });
    expect((await createTag({ name: 'x'.repeat(101) })).body.error).toMatchObject({
      code: 'PARAMETER_INVALID',
      param: 'name',
    });
    expect((await createTag({ name: '- _ -' })).body.error).toMatchObject({ code: 'PARAMETER_INVALID', param: 'name' });
    expect((await createTag({ name: 'ok', color: 'magenta' })).body.error).toMatchObject({
      code: 'PARAMETER_INVALID',
      param: 'color',
    });
    expect((await createTag({ name: 'ok', description: 'd'.repeat(501) })).body.error).toMatchObject({
      code: 'PARAMETER_INVALID',
      param: 'description',
    });
    expect((await createTag({ name: 'ok', colour: 'red' })).body.error).toMatchObject({
      code: 'PARAMETER_UNKNOWN',
      param: 'colour',
    });
    for (const color of [
      'slate',
      'gray',
      'red',
      'orange',
      'amber',
      'yellow',
      'green',
      'teal',
      'blue',
      'indigo',
      'purple',
      'pink',
    ]) {
      expect((await createTag({ name: uniqueName(color), color })).body.color).toBe(color);
    }
  });

  it('needs verification:create', async () => {
    const key = await server.request('/v1/api-keys', {
      token: sandbox,
      body: { name: 'reader', environment: 'sandbox', permissions: ['verification:read'] },
    });
    const res = await createTag({ name: 'nope' }, key.body.secret_key);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('INSUFFICIENT_PERMISSIONS');
    expect((await server.request('/v1/tags', { token: key.body.secret_key })).status).toBe(200);
  });
});

describe('GET /v1/tags', () => {
  it('lists live tags of the key environment only, newest first, with cursor pagination', async () => {
    const isolated = await server.bootstrap();
    const token = isolated.keys.sandbox.secret_key;
    const ids: string[] = [];
    for (const name of ['one', 'two', 'three']) ids.push((await createTag({ name }, token)).body.id);
    await createTag({ name: 'live only' }, isolated.keys.live.secret_key);
    const first = await server.request('/v1/tags?limit=2', { token });
    expect(first.body).toMatchObject({ object: 'list', has_more: true, next_cursor: ids[1] });
    expect(first.body.data.map((t: { id: string }) => t.id)).toEqual([ids[2], ids[1]]);
    const next = await server.request(`/v1/tags?limit=2&starting_after=${first.body.next_cursor}`, { token });
    expect(next.body).toMatchObject({ has_more: false, next_cursor: null });
    expect(next.body.data.map((t: { id: string }) => t.id)).toEqual([ids[0]]);
    const bad = await server.request('/v1/tags?starting_after=vs_abc', { token });
    expect(bad.body.error).toMatchObject({ code: 'PARAMETER_INVALID', param: 'starting_after' });
  });
});

describe('PATCH /v1/tags/{id}', () => {
  it('changes only what is sent', async () => {
    const tag = (await createTag({ name: uniqueName('Patch'), color: 'teal', description: 'keep me' })).body;
    const res = await server.request(`/v1/tags/${tag.id}`, {
      token: sandbox,
      method: 'PATCH',
      body: { color: 'pink' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: tag.id,
      name: tag.name,
      slug: tag.slug,
      color: 'pink',
      description: 'keep me',
    });
    const cleared = await server.request(`/v1/tags/${tag.id}`, {
      token: sandbox,
      method: 'PATCH',
      body: { description: null },
    });
    expect(cleared.body).toMatchObject({ color: 'pink', description: null });
    const empty = await server.request(`/v1/tags/${tag.id}`, { token: sandbox, method: 'PATCH', body: {} });
    expect(empty.status).toBe(400);
    expect(empty.body.error.code).toBe('PARAMETER_MISSING');
  });

  it('makes a rename retroactive on every verification already carrying the tag', async () => {
    const tag = (await createTag({ name: uniqueName('Old name') })).body;
    const [v1, v2] = [(await createVerification(server, account)).id, (await createVerification(server, account)).id];
    await tagVerification(v1, { tags: [tag.id] });
    await tagVerification(v2, { tags: [tag.id] });
    const renamed = await server.request(`/v1/tags/${tag.id}`, {
      token: sandbox,
      method: 'PATCH',
      body: { name: 'Renamed Label', color: 'amber' },
    });
    expect(renamed.body).toMatchObject({ id: tag.id, name: 'Renamed Label', slug: 'renamed-label' });
    const current = await tagVerification(v1, { tags: [] });
    expect(current.body.data).toEqual([{ id: tag.id, name: 'Renamed Label', color: 'amber' }]);
    const refs = await tagReferencesFor(
      { merchantId: account.merchant.id, modes: ['sandbox'], runtime: server.runtime },
      [v1, v2],
    );
    expect(refs.get(v2)).toEqual([{ id: tag.id, name: 'Renamed Label', color: 'amber' }]);
  });

  it("answers 409 TAG_NAME_TAKEN when renaming onto another live tag's name; a retired tag's name is free", async () => {
    const a = (await createTag({ name: uniqueName('Alpha') })).body;
    const b = (await createTag({ name: uniqueName('Beta') })).body;
    const taken = await server.request(`/v1/tags/${b.id}`, {
      token: sandbox,
      method: 'PATCH',
      body: { name: a.name.toUpperCase() },
    });
    expect(taken.status).toBe(409);
    expect(taken.body.error).toMatchObject({ type: 'invalid_request_error', code: 'TAG_NAME_TAKEN' });
    const sameTag = await server.request(`/v1/tags/${a.id}`, {
      token: sandbox,
      method: 'PATCH',
      body: { name: a.name.toLowerCase() },
    });
    expect(sameTag.status).toBe(200);
    await server.request(`/v1/tags/${a.id}`, { token: sandbox, method: 'DELETE' });
    const free = await server.request(`/v1/tags/${b.id}`, { token: sandbox, method: 'PATCH', body: { name: a.name } });
    expect(free.status).toBe(200);
  });

  it('answers 404 for a tag of another account or of the other environment', async () => {
    const foreign = (await createTag({ name: 'Foreign' }, other.keys.sandbox.secret_key)).body;
    const liveTag = (await createTag({ name: uniqueName('Live') }, live)).body;
    for (const id of [foreign.id, liveTag.id, 'tag_doesnotexist', 'nonsense']) {
      const res = await server.request(`/v1/tags/${id}`, { token: sandbox, method: 'PATCH', body: { color: 'red' } });
      expect(res.status).toBe(404);
      expect(res.body.error.type).toBe('not_found_error');
      expect((await server.request(`/v1/tags/${id}`, { token: sandbox, method: 'DELETE' })).status).toBe(404);
    }
  });
});

describe('DELETE /v1/tags/{id}', () => {
  it('retires: retired = true, unlisted, still shown on verifications carrying it, and the name is free to create again', async () => {
    const name = uniqueName('Retire me');
    const tag = (await createTag({ name, color: 'purple' })).body;
    const v = (await createVerification(server, account)).id;
    await tagVerification(v, { tags: [tag.id] });

    const res = await server.request(`/v1/tags/${tag.id}`, { token: sandbox, method: 'DELETE' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: tag.id, object: 'tag', name, retired: true });
    const list = await server.request('/v1/tags?limit=100', { token: sandbox });
    expect(list.body.data.map((t: { id: string }) => t.id)).not.toContain(tag.id);
    expect((await tagVerification(v, { tags: [] })).body.data).toEqual([{ id: tag.id, name, color: 'purple' }]);

    const again = await createTag({ name });
    expect(again.status).toBe(201);
    expect(again.body.id).not.toBe(tag.id);
  });
});

describe('POST /v1/verifications/{id}/tags', () => {
  it('applies ids and names, returns the full set as a list of tag references, and writes verification.tag_added per new tag', async () => {
    const existing = (await createTag({ name: uniqueName('By id'), color: 'green' })).body;
    const v = (await createVerification(server, account)).id;
    const res = await tagVerification(v, { tags: [existing.id], names: ['Needs Docs'] });
    expect(res.status).toBe(200);
    const needsDocs = (await createTag({ name: 'needs_docs' })).body;
    expect(res.body).toEqual({
      object: 'list',
      data: [
        { id: existing.id, name: existing.name, color: 'green' },
        { id: needsDocs.id, name: 'Needs Docs', color: 'slate' },
      ],
      has_more: false,
      next_cursor: null,
    });
    const events = await tagEvents(v);
    expect(events.map((e) => e.type)).toEqual(['verification.tag_added', 'verification.tag_added']);
    expect(events[0].payload.tag).toEqual({ id: existing.id, name: existing.name, color: 'green' });
    expect(events[0].payload.verification).toMatchObject({ id: v });
    expect(events[1].payload.verification.sequence).toBeGreaterThan(events[0].payload.verification.sequence);
  });

  it('is a no-op when the tag is already there, so a retry writes no second event', async () => {
    const tag = (await createTag({ name: uniqueName('Retry') })).body;
    const v = (await createVerification(server, account)).id;
    const results = await Promise.all([1, 2, 3].map(() => tagVerification(v, { tags: [tag.id] })));
    await tagVerification(v, { names: [tag.name.toUpperCase()], tags: [tag.id, tag.id] });
    for (const res of results) expect(res.body.data).toEqual([{ id: tag.id, name: tag.name, color: 'slate' }]);
    expect((await tagEvents(v)).map((e) => e.type)).toEqual(['verification.tag_added']);
  });

  it("ignores ids that are not the caller's (another account or environment), unknown, or retired", async () => {
    const foreign = (await createTag({ name: uniqueName('Foreign') }, other.keys.sandbox.secret_key)).body;
    const liveTag = (await createTag({ name: uniqueName('Live') }, live)).body;
    const retired = (await createTag({ name: uniqueName('Retired') })).body;
    await server.request(`/v1/tags/${retired.id}`, { token: sandbox, method: 'DELETE' });
    const mine = (await createTag({ name: uniqueName('Mine') })).body;
    const v = (await createVerification(server, account)).id;
    const res = await tagVerification(v, {
      tags: [foreign.id, liveTag.id, retired.id, 'tag_unknown', 'garbage', mine.id],
    });
    expect(res.status).toBe(200);
    expect(res.body.data.map((t: { id: string }) => t.id)).toEqual([mine.id]);
    expect(await tagEvents(v)).toHaveLength(1);
  });

  it('needs tags or names (400 PARAMETER_MISSING, param tags)', async () => {
    const v = (await createVerification(server, account)).id;
    const res = await tagVerification(v, {});
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'PARAMETER_MISSING', param: 'tags' });
    expect((await tagVerification(v, { tags: 'tag_x' })).body.error).toMatchObject({
      code: 'PARAMETER_INVALID',
      param: 'tags',
    });
  });

  it('answers 404 for a verification of another account or of the other environment', async () => {
    const foreign = (await createVerification(server, other)).id;
    const liveV = (await createVerification(server, account, 'live')).id;
    for (const id of [foreign, liveV, 'vs_unknown', 'nonsense']) {
      const res = await tagVerification(id, { names: ['x'] });
      expect(res.status).toBe(404);
      expect(res.body.error.type).toBe('not_found_error');
      expect(
        (await server.request(`/v1/verifications/${id}/tags/tag_x`, { token: sandbox, method: 'DELETE' })).status,
      ).toBe(404);
    }
    expect(await tagEvents(foreign)).toHaveLength(0);
    expect((await tagVerification(liveV, { names: ['Live OK'] }, live)).status).toBe(200);
  });
});

describe('DELETE /v1/verifications/{id}/tags/{tagId}', () => {
  it('removes the tag and writes verification.tag_removed, only if it was there', async () => {
    const tag = (await createTag({ name: uniqueName('Remove'), color: 'orange' })).body;
    const v = (await createVerification(server, account)).id;
    await tagVerification(v, { tags: [tag.id] });
    const res = await server.request(`/v1/verifications/${v}/tags/${tag.id}`, { token: sandbox, method: 'DELETE' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: tag.id, object: 'tag', removed: true });
    const again = await server.request(`/v1/verifications/${v}/tags/${tag.id}`, { token: sandbox, method: 'DELETE' });
    expect(again.status).toBe(200);
    const events = await tagEvents(v);
    expect(events.map((e) => e.type)).toEqual(['verification.tag_added', 'verification.tag_removed']);
    expect(events[1].payload.tag).toEqual({ id: tag.id, name: tag.name, color: 'orange' });
    expect((await tagVerification(v, { tags: [] })).body.data).toEqual([]);
  });
});

describe('tagReferencesFor', () => {
  it('returns the tags of many verifications at once, an empty list for an untagged one', async () => {
    const [a, b, c] = [
      await createTag({ name: uniqueName('A') }),
      await createTag({ name: uniqueName('B') }),
      await createTag({ name: uniqueName('C') }),
    ].map((r) => r.body);
    const [v1, v2, v3] = [
      (await createVerification(server, account)).id,
      (await createVerification(server, account)).id,
      (await createVerification(server, account)).id,
    ];
    await tagVerification(v1, { tags: [a.id, b.id] });
    await tagVerification(v2, { tags: [c.id] });
    const refs = await tagReferencesFor(
      { merchantId: account.merchant.id, modes: ['sandbox'], runtime: server.runtime },
      [v1, v2, v3],
    );
    expect(refs.get(v1)?.map((t) => t.id)).toEqual([a.id, b.id]);
    expect(refs.get(v2)).toEqual([{ id: c.id, name: c.name, color: 'slate' }]);
    expect(refs.get(v3)).toEqual([]);
  });
});

describe('GraphQL (members), through the same services', () => {
  it('createTag names the environment when the seat holds both, and resolves normalised names like REST', async () => {
    const token = account.member.session_token;
    const missing = await gql(server, token, CreateTagDocument, { input: { name: 'Console Tag' } });
    expect(missing.body.errors?.[0].extensions).toMatchObject({ code: 'PARAMETER_MISSING', param: 'environment' });
    const created = await gql(server, token, CreateTagDocument, {
      input: { name: 'Console Tag', environment: 'live', color: 'teal' },
    });
    expect(created.body.data?.createTag).toMatchObject({
      name: 'Console Tag',
      slug: 'console-tag',
      color: 'teal',
      environment: 'live',
    });
    const viaRest = await createTag({ name: 'console_tag' }, live);
    expect(viaRest.status).toBe(200);
    expect(viaRest.body.id).toBe(created.body.data?.createTag.id);
  });

  it('tags and untags a verification, renames and retires a tag, and lists live tags per environment', async () => {
    const token = account.member.session_token;
    const v = (await createVerification(server, account)).id;
    const tagged = await gql(server, token, TagVerificationDocument, { verificationId: v, names: ['From Console'] });
    const [ref] = tagged.body.data!.tagVerification;
    expect(ref).toMatchObject({ name: 'From Console', color: 'slate' });
    const renamed = await gql(server, token, UpdateTagDocument, {
      id: ref.id,
      input: { name: 'Console Renamed', color: 'red' },
    });
    expect(renamed.body.data?.updateTag).toMatchObject({ id: ref.id, slug: 'console-renamed', color: 'red' });
    expect(
      (await gql(server, token, TagVerificationDocument, { verificationId: v, tagIds: [] })).body.data?.tagVerification,
    ).toEqual([{ id: ref.id, name: 'Console Renamed', color: 'red' }]);

    const listed = await gql(server, token, TagsDocument, { environment: 'sandbox', first: 100 });
    expect(listed.body.data?.tags.nodes.map((t) => t.id)).toContain(ref.id);
    expect(listed.body.data?.tags.nodes.every((t) => t.environment === 'sandbox')).toBe(true);
    expect((await gql(server, token, RetireTagDocument, { id: ref.id })).body.data?.retireTag.retiredAt).toEqual(
      expect.any(String),
    );
    const after = await gql(server, token, TagsDocument, { environment: 'sandbox', first: 100 });
    expect(after.body.data?.tags.nodes.map((t) => t.id)).not.toContain(ref.id);

    const untagged = await gql(server, token, UntagVerificationDocument, { verificationId: v, tagId: ref.id });
    expect(untagged.body.data?.untagVerification).toEqual({ id: ref.id, removed: true });
    expect((await tagEvents(v)).map((e) => e.type)).toEqual(['verification.tag_added', 'verification.tag_removed']);

    const foreign = (await createVerification(server, other)).id;
    const denied = await gql(server, token, TagVerificationDocument, { verificationId: foreign, names: ['x'] });
    expect(denied.body.errors?.[0].extensions).toMatchObject({ type: 'not_found_error' });
    const none = await gql(server, token, TagVerificationDocument, { verificationId: v });
    expect(none.body.errors?.[0].extensions).toMatchObject({ code: 'PARAMETER_MISSING' });
  });
});
