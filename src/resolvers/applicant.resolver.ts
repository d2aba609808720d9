import DataLoader from 'dataloader';
import { Arg, Authorized, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { Applicant } from '../entities/applicant.entity.js';
import { getApplicant, listApplicants, tagApplicant, untagApplicant } from '../services/verifications/index.js';
import { checkedCursor, ID_PATTERNS, type ServiceContext } from '../services/shared/index.js';
import { applicantTagReferencesFor, type TagReference } from '../services/catalog/index.js';
import { ApplicantConnection, ApplicantType } from '../schema/applicant.types.js';
import { Environment } from '../schema/enums.js';
import { TagReferenceType, TagRemovalType } from '../schema/tag.types.js';
import { pageSize } from './api-key.resolver.js';
import { type Source, type Connection, connectionOf } from './source.js';
import { taggingArgs } from './tag.resolver.js';

const applicantTagLoaders = new WeakMap<ServiceContext, DataLoader<string, TagReference[]>>();

/** Per-request loader of applicant tags: one query for every applicant of a response. */
function applicantTagLoader(ctx: ServiceContext): DataLoader<string, TagReference[]> {
  let loader = applicantTagLoaders.get(ctx);
  if (!loader) {
    loader = new DataLoader(async (ids) => {
      const refs = await applicantTagReferencesFor(ctx, [...ids]);
      return ids.map((id) => refs.get(id) ?? []);
    });
    applicantTagLoaders.set(ctx, loader);
  }
  return loader;
}

/** An applicant as the service returns it; its tags come from the field resolver. */
export type ApplicantSource = Source<ApplicantType, 'tags'>;

@Resolver(() => ApplicantType)
export class ApplicantResolver {
  @Authorized()
  @Query(() => ApplicantConnection, {
    description: 'Applicants of the environments the seat holds, newest first. No identity.',
  })
  async applicants(
    @Ctx() ctx: ServiceContext,
    @Arg('environment', () => Environment, { nullable: true }) environment?: Environment,
    @Arg('first', () => Int, { nullable: true }) first?: number,
    @Arg('after', () => String, { nullable: true }) after?: string,
  ): Promise<Connection<ApplicantSource>> {
    const page = await listApplicants(
      ctx,
      { limit: pageSize(first), startingAfter: checkedCursor(after, ID_PATTERNS.applicant) },
      environment,
    );
    return connectionOf(page);
  }

  @Authorized()
  @Query(() => ApplicantType)
  async applicant(@Ctx() ctx: ServiceContext, @Arg('id', () => ID) id: string): Promise<ApplicantSource> {
    return await getApplicant(ctx, id);
  }

  @FieldResolver(() => [TagReferenceType], { description: 'Tags waiting on the person for their next verification.' })
  async tags(@Root() applicant: Applicant, @Ctx() ctx: ServiceContext): Promise<Source<TagReferenceType>[]> {
    return await applicantTagLoader(ctx).load(applicant.id);
  }

  @Authorized()
  @Mutation(() => [TagReferenceType], {
    description: 'Puts tags on an applicant (safe to retry); returns the full set.',
  })
  async tagApplicant(
    @Ctx() ctx: ServiceContext,
    @Arg('applicantId', () => ID) applicantId: string,
    @Arg('tagIds', () => [ID], { nullable: true }) tagIds?: string[],
    @Arg('names', () => [String], { nullable: true }) names?: string[],
  ): Promise<Source<TagReferenceType>[]> {
    return await tagApplicant(ctx, applicantId, taggingArgs(tagIds, names));
  }

  @Authorized()
  @Mutation(() => TagRemovalType, { description: 'Takes a tag off an applicant.' })
  async untagApplicant(
    @Ctx() ctx: ServiceContext,
    @Arg('applicantId', () => ID) applicantId: string,
    @Arg('tagId', () => ID) tagId: string,
  ): Promise<Source<TagRemovalType>> {
    await untagApplicant(ctx, applicantId, tagId);
    return { id: tagId, removed: true };
  }
}
