import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Mode } from '../../config.js';
import type { Applicant } from '../../entities/applicant.entity.js';
import { ApplicantTag, Tag, VerificationTag } from '../../entities/tag.entity.js';
import { Verification } from '../../entities/verification.entity.js';
import { conflict, notFound, parameterInvalid } from '../../errors.js';
import { isPrefixedId, newId } from '../../ids.js';
import { callerKeyId, recordVerificationEvent, type EventSource } from '../webhooks/index.js';
import {
  rawSqlOf,
  tenantSql,
  TENANT_ROW,
  type TenantScope,
  actingEnvironment,
  type ServiceContext,
  paginate,
  type Page,
  type PageParams,
} from '../shared/index.js';

/** Tag colors (decisions.md); `slate` is the default. */
export const TAG_COLORS = [
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
] as const;
export type TagColor = (typeof TAG_COLORS)[number];

/** What a verification or an applicant shows of a tag it carries. */
export interface TagReference {
  id: string;
  name: string;
  color: string;
}

export interface TagInput {
  name: string;
  color?: TagColor;
  description?: string | null;
}

/** Tags to put on something: ids to apply and names to resolve (or create). */
export interface TaggingInput {
  tagIds?: string[];
  names?: string[];
}

/** "High Risk", "high_risk" and " high--risk " are one tag: lower-case, separators collapsed to one '-'. */
export function normalizeTagName(name: string): string {
  return (
    name
      // Invisible format characters (zero-width space, joiners, BOM) never tell two names apart.
      .replace(/\p{Cf}/gu, '')
      .trim()
      .toLowerCase()
      .replace(/[\s_-]+/g, '-')
      .replace(/^-+|-+$/g, '')
  );
}

export const tagReference = (tag: Tag): TagReference => ({ id: tag.id, name: tag.name, color: tag.color });

function checkedName(name: string, param = 'name'): { name: string; slug: string } {
  const trimmed = name.replace(/^[\s\p{Cf}]+|[\s\p{Cf}]+$/gu, '');
  const slug = normalizeTagName(trimmed);
  if (!/[\p{L}\p{N}]/u.test(slug)) throw parameterInvalid(param, `${param} must contain a letter or a digit.`);
  if (trimmed.length > 100) throw parameterInvalid(param, `${param} must be at most 100 characters.`);
  return { name: trimmed, slug };
}

function checkDescription(description: string | null | undefined): void {
  if (description && description.length > 500)
    throw parameterInvalid('description', 'description must be at most 500 characters.');
}

/** Live tags of the caller's environments (or one of them), newest first. */
export async function listTags(ctx: ServiceContext, params: PageParams, environment?: Mode | null): Promise<Page<Tag>> {
  return paginate(ctx, Tag, environment ? { retiredAt: null, mode: environment } : { retiredAt: null }, params);
}

/** A tag of the caller's account and environments, live or retired. */
export async function getTag(ctx: ServiceContext, id: string): Promise<Tag> {
  const tag = isPrefixedId(id, 'tag') ? await ctx.em.findOne(Tag, { id }) : null;
  if (!tag) throw notFound('tag', id);
  return tag;
}

const findLiveBySlug = (em: EntityManager, merchantId: string, mode: Mode, slug: string) =>
  em.findOne(Tag, { slug, mode, retiredAt: null }, { filters: { tenant: { merchantId, modes: [mode] } } });

/**
 * The live tag whose normalised name matches, or a new one. Under concurrency the partial
 * unique index `tags_live_slug_unique` lets one insert win; the losers read the winner's row.
 */
export async function resolveOrCreateTag(
  em: EntityManager,
  merchantId: string,
  mode: Mode,
  input: TagInput,
  param = 'name',
): Promise<{ tag: Tag; created: boolean }> {
  const { name, slug } = checkedName(input.name, param);
  checkDescription(input.description);
  const existing = await findLiveBySlug(em, merchantId, mode, slug);
  if (existing) return { tag: existing, created: false };
  const now = new Date();
  const inserted = await tenantSql({ merchantId, modes: [mode] }, rawSqlOf(em)).query<{ id: string }>(
    `with ${TENANT_ROW}
     insert into tags (id, merchant_id, mode, name, slug, color, description, retired_at, created_at, updated_at)
     select $3, t.merchant_id, t.mode, $4, $5, $6, $7, null, $8, $8 from tenant t
     on conflict (merchant_id, mode, slug) where retired_at is null do nothing returning id`,
    [newId('tag'), name, slug, input.color ?? 'slate', input.description ?? null, now],
  );
  if (inserted.length > 0) {
    const tag = await em.findOneOrFail(
      Tag,
      { id: inserted[0].id },
      { filters: { tenant: { merchantId, modes: [mode] } } },
    );
    return { tag, created: true };
  }
  const winner = await findLiveBySlug(em, merchantId, mode, slug);
  if (!winner) throw conflict('TAG_NAME_TAKEN', 'The tag was changed concurrently; retry the request.');
  return { tag: winner, created: false };
}

/** POST /v1/tags: the live tag of that normalised name (created: false) or a new one. */
export async function createTag(
  ctx: ServiceContext,
  input: TagInput,
  environment?: Mode | null,
): Promise<{ tag: Tag; created: boolean }> {
  return resolveOrCreateTag(ctx.em, ctx.merchantId, actingEnvironment(ctx, environment), input);
}

export interface TagUpdate {
  name?: string;
  color?: TagColor;
  description?: string | null;
}

const isUniqueViolation = (error: unknown) =>
  (error as { code?: string }).code === '23505' || (error as Error).name === 'UniqueConstraintViolationException';

const nameTaken = (name: string) =>
  conflict('TAG_NAME_TAKEN', `Another live tag is already named "${name}" (names are compared in normalised form).`, {
    param: 'name',
  });

/** Changes only what is sent. References are by id, so a rename shows everywhere at once. */
export async function updateTag(ctx: ServiceContext, id: string, update: TagUpdate): Promise<Tag> {
  const tag = await getTag(ctx, id);
  if (update.name !== undefined) {
    const { name, slug } = checkedName(update.name);
    if (slug !== tag.slug && !tag.retiredAt) {
      const other = await findLiveBySlug(ctx.em, ctx.merchantId, tag.mode, slug);
      if (other && other.id !== tag.id) throw nameTaken(name);
    }
    tag.name = name;
    tag.slug = slug;
  }
  if (update.color !== undefined) tag.color = update.color;
  if (update.description !== undefined) {
    checkDescription(update.description);
    tag.description = update.description;
  }
  try {
    await ctx.em.flush();
  } catch (error) {
    if (isUniqueViolation(error)) throw nameTaken(tag.name);
    throw error;
  }
  return tag;
}

/** Retires (never erases): unlisted, still shown where it is carried, its name free again. */
export async function retireTag(ctx: ServiceContext, id: string): Promise<Tag> {
  const tag = await getTag(ctx, id);
  if (!tag.retiredAt) {
    tag.retiredAt = new Date();
    await ctx.em.flush();
  }
  return tag;
}

/**
 * The live tags named by `input`, in `mode`, deduplicated in request order. Ids of another
 * account or environment, unknown ids and retired tags are ignored; names are resolved or
 * created.
 */
export async function resolveTagsForTagging(
  em: EntityManager,
  merchantId: string,
  mode: Mode,
  input: TaggingInput,
): Promise<Tag[]> {
  const ids = [...new Set((input.tagIds ?? []).filter((id) => isPrefixedId(id, 'tag')))];
  const byId = ids.length
    ? await em.find(
        Tag,
        { id: { $in: ids }, mode, retiredAt: null },
        { filters: { tenant: { merchantId, modes: [mode] } } },
      )
    : [];
  const found = new Map(byId.map((t) => [t.id, t]));
  const tags = ids.map((id) => found.get(id)).filter((t): t is Tag => t !== undefined);
  for (const [index, name] of (input.names ?? []).entries()) {
    tags.push((await resolveOrCreateTag(em, merchantId, mode, { name }, `names[${index}]`)).tag);
  }
  return [...new Map(tags.map((t) => [t.id, t])).values()];
}

/** The verification, locked for this transaction so concurrent taggers queue (and sequence stays exact). */
async function lockVerification(em: EntityManager, id: string): Promise<Verification> {
  const verification = isPrefixedId(id, 'vs')
    ? await em.findOne(Verification, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true })
    : null;
  if (!verification) throw notFound('verification', id);
  return verification;
}

/** Strictly increasing timestamps (ms precision) so tags applied in one call keep the request order. */
export function appliedClock(): () => Date {
  let last = Date.now() - 1;
  return () => new Date((last = Math.max(last + 1, Date.now())));
}

/** Puts tags on a verification, writing verification.tag_added for each one it did not carry yet. */
function addTagsToVerification(
  em: EntityManager,
  verification: Verification,
  tags: Tag[],
  carried: Set<string>,
  source: EventSource = {},
): void {
  const appliedAt = appliedClock();
  for (const tag of tags) {
    if (carried.has(tag.id)) continue;
    carried.add(tag.id);
    em.create(VerificationTag, { verification, tag, createdAt: appliedAt() });
    recordVerificationEvent(em, verification, 'verification.tag_added', { tag: tagReference(tag) }, source);
  }
}

/** The tag ids a verification carries (the join table has no tenant columns: bound through its verification). */
async function carriedBy(em: EntityManager, verification: Verification): Promise<Set<string>> {
  const scope = { merchantId: verification.merchant.id, modes: [verification.mode] };
  const rows = await tenantSql(scope, rawSqlOf(em)).query<{ tag_id: string }>(
    `select vt.tag_id from verification_tags vt join verifications v on v.id = vt.verification_id
     where v.id = $3 and v.merchant_id = $1 and v.mode = any($2::text[])`,
    [verification.id],
  );
  return new Set(rows.map((r) => r.tag_id));
}

/** POST /v1/verifications/{id}/tags: applying a tag already there is a no-op; returns the full set. */
export async function tagVerification(
  ctx: ServiceContext,
  verificationId: string,
  input: TaggingInput,
): Promise<TagReference[]> {
  await ctx.em.transactional(async (em) => {
    const verification = await lockVerification(em, verificationId);
    const tags = await resolveTagsForTagging(em, verification.merchant.id, verification.mode, input);
    addTagsToVerification(em, verification, tags, await carriedBy(em, verification), { apiKeyId: callerKeyId(ctx) });
    await em.flush();
  });
  return (await tagReferencesFor(ctx, [verificationId])).get(verificationId) ?? [];
}

/** DELETE /v1/verifications/{id}/tags/{tagId}: writes verification.tag_removed only if the tag was there. */
export async function untagVerification(ctx: ServiceContext, verificationId: string, tagId: string): Promise<void> {
  await ctx.em.transactional(async (em) => {
    const verification = await lockVerification(em, verificationId);
    const removed = await tenantSql(ctx, rawSqlOf(em)).query<{ tag_id: string }>(
      `delete from verification_tags vt using verifications v
       where vt.verification_id = v.id and v.id = $3 and vt.tag_id = $4 and v.merchant_id = $1 and v.mode = any($2::text[])
       returning vt.tag_id`,
      [verification.id, tagId],
    );
    if (removed.length === 0) return;
    const tag = await em.findOneOrFail(
      Tag,
      { id: tagId },
      { filters: { tenant: { merchantId: verification.merchant.id, modes: [verification.mode] } } },
    );
    recordVerificationEvent(
      em,
      verification,
      'verification.tag_removed',
      { tag: tagReference(tag) },
      { apiKeyId: callerKeyId(ctx) },
    );
    await em.flush();
  });
}

type ReferenceRow = { owner_id: string; id: string; name: string; color: string };

function groupReferences(ownerIds: string[], rows: ReferenceRow[]): Map<string, TagReference[]> {
  const out = new Map<string, TagReference[]>(ownerIds.map((id) => [id, []]));
  for (const row of rows) out.get(row.owner_id)?.push({ id: row.id, name: row.name, color: row.color });
  return out;
}

/**
 * Tags carried by many verifications in ONE query, in the order they were applied (for the
 * REST presenter and the GraphQL DataLoader). Retired tags are still shown; tags of another
 * account or environment never are.
 */
export async function tagReferencesFor(
  ctx: TenantScope,
  verificationIds: string[],
): Promise<Map<string, TagReference[]>> {
  const ids = [...new Set(verificationIds)];
  if (ids.length === 0) return new Map();
  const rows = await tenantSql(ctx).query<ReferenceRow>(
    `select vt.verification_id as owner_id, t.id, t.name, t.color from verification_tags vt join tags t on t.id = vt.tag_id
     where vt.verification_id = any($3::text[]) and t.merchant_id = $1 and t.mode = any($2::text[]) order by vt.created_at, t.id`,
    [ids],
    'idv_tag_references',
  );
  return groupReferences(ids, rows);
}

/** Same as tagReferencesFor, for applicants. */
export async function applicantTagReferencesFor(
  ctx: TenantScope,
  applicantIds: string[],
): Promise<Map<string, TagReference[]>> {
  const ids = [...new Set(applicantIds)];
  if (ids.length === 0) return new Map();
  const rows = await tenantSql(ctx).query<ReferenceRow>(
    `select at.applicant_id as owner_id, t.id, t.name, t.color from applicant_tags at join tags t on t.id = at.tag_id
     where at.applicant_id = any($3::text[]) and t.merchant_id = $1 and t.mode = any($2::text[]) order by at.created_at, t.id`,
    [ids],
    'idv_applicant_tag_references',
  );
  return groupReferences(ids, rows);
}

/**
 * "A tag on an applicant is waiting on the person at their next verification": copies the
 * applicant's live tags onto the verification with verification.tag_added each. Runs in the
 * caller's transaction; the caller flushes.
 */
export async function applyApplicantTagsToVerification(
  em: EntityManager,
  applicant: Applicant,
  verification: Verification,
): Promise<void> {
  const links = await em.find(
    ApplicantTag,
    { applicant: applicant.id, tag: { retiredAt: null, mode: verification.mode } },
    {
      populate: ['tag'],
      orderBy: { createdAt: 'asc' },
      filters: { tenant: { merchantId: verification.merchant.id, modes: [verification.mode] } },
    },
  );
  if (links.length === 0) return;
  addTagsToVerification(
    em,
    verification,
    links.map((l) => l.tag),
    await carriedBy(em, verification),
  );
}
