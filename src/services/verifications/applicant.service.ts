import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Mode } from '../../config.js';
import { Applicant } from '../../entities/applicant.entity.js';
import { Merchant } from '../../entities/merchant.entity.js';
import { ApplicantTag } from '../../entities/tag.entity.js';
import type { Verification } from '../../entities/verification.entity.js';
import { notFound } from '../../errors.js';
import { isPrefixedId } from '../../ids.js';
import { rawSqlOf, tenantSql, type ServiceContext, paginate, type Page, type PageParams } from '../shared/index.js';
import {
  applicantTagReferencesFor,
  appliedClock,
  applyApplicantTagsToVerification,
  resolveTagsForTagging,
  type TagReference,
  type TaggingInput,
} from '../catalog/index.js';

/**
 * Called by the engine, inside its transaction, when a face_match check approves: finds the
 * person's applicant by `personFingerprint` (document or national-id fingerprint; may be
 * null) or creates one, links `verification.applicant`, and applies the tags waiting on the
 * applicant to the verification.
 */
export async function linkApplicantAfterFaceMatch(
  em: EntityManager,
  verification: Verification,
  personFingerprint: string | null,
): Promise<Applicant | null> {
  const merchantId = verification.merchant.id;
  const mode = verification.mode;
  let applicant: Applicant | null = null;
  if (personFingerprint !== null) {
    // Two verifications of one person finishing together must not make two applicants.
    await rawSqlOf(em).query('select pg_advisory_xact_lock(hashtextextended($1, 0))', [
      `applicant:${merchantId}:${mode}:${personFingerprint}`,
    ]);
    applicant = await em.findOne(
      Applicant,
      { personFingerprint, mode },
      { filters: { tenant: { merchantId, modes: [mode] } } },
    );
  }
  if (applicant) {
    verification.applicant = applicant;
    await applyApplicantTagsToVerification(em, applicant, verification);
    return applicant;
  }
  applicant = em.create(Applicant, {
    merchant: em.getReference(Merchant, merchantId),
    mode,
    hasIdentityLink: personFingerprint !== null,
    personFingerprint,
  });
  verification.applicant = applicant;
  return applicant;
}

/** Applicants of the caller's environments (or one of them), newest first. */
export async function listApplicants(
  ctx: ServiceContext,
  params: PageParams,
  environment?: Mode | null,
): Promise<Page<Applicant>> {
  return paginate(ctx, Applicant, environment ? { mode: environment } : {}, params);
}

export async function getApplicant(ctx: ServiceContext, id: string): Promise<Applicant> {
  const applicant = isPrefixedId(id, 'app') ? await ctx.em.findOne(Applicant, { id }) : null;
  if (!applicant) throw notFound('applicant', id);
  return applicant;
}

async function lockApplicant(em: EntityManager, id: string): Promise<Applicant> {
  const applicant = isPrefixedId(id, 'app')
    ? await em.findOne(Applicant, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true })
    : null;
  if (!applicant) throw notFound('applicant', id);
  return applicant;
}

/** Tags carried by one applicant, in the order they were applied. */
export async function applicantTags(ctx: ServiceContext, applicantId: string): Promise<TagReference[]> {
  return (await applicantTagReferencesFor(ctx, [applicantId])).get(applicantId) ?? [];
}

/**
 * POST /v1/applicants/{id}/tags: tags waiting on the person for their next verification.
 * Re-applying is a no-op; foreign and retired ids are ignored. Returns the full set.
 */
export async function tagApplicant(
  ctx: ServiceContext,
  applicantId: string,
  input: TaggingInput,
): Promise<TagReference[]> {
  await ctx.em.transactional(async (em) => {
    const applicant = await lockApplicant(em, applicantId);
    const tags = await resolveTagsForTagging(em, applicant.merchant.id, applicant.mode, input);
    const rows = await tenantSql(ctx, rawSqlOf(em)).query<{ tag_id: string }>(
      `select at.tag_id from applicant_tags at join applicants a on a.id = at.applicant_id
       where a.id = $3 and a.merchant_id = $1 and a.mode = any($2::text[])`,
      [applicant.id],
    );
    const carried = new Set(rows.map((r) => r.tag_id));
    const appliedAt = appliedClock();
    for (const tag of tags)
      if (!carried.has(tag.id)) em.create(ApplicantTag, { applicant, tag, createdAt: appliedAt() });
    await em.flush();
  });
  return applicantTags(ctx, applicantId);
}

/** DELETE /v1/applicants/{id}/tags/{tagId}: removing a tag the applicant does not carry is not an error. */
export async function untagApplicant(ctx: ServiceContext, applicantId: string, tagId: string): Promise<void> {
  await ctx.em.transactional(async (em) => {
    const applicant = await lockApplicant(em, applicantId);
    await tenantSql(ctx, rawSqlOf(em)).query(
      `delete from applicant_tags at using applicants a
       where at.applicant_id = a.id and a.id = $3 and at.tag_id = $4 and a.merchant_id = $1 and a.mode = any($2::text[])`,
      [applicant.id, tagId],
    );
  });
}
