import DataLoader from 'dataloader';
import { Arg, Authorized, Ctx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import { parameterMissing } from '../errors.js';
import { checkedCursor, ID_PATTERNS, type ServiceContext } from '../services/shared/index.js';
import {
  createTag,
  listTags,
  retireTag,
  tagReferencesFor,
  tagVerification,
  untagVerification,
  updateTag,
  type TaggingInput,
  type TagReference,
} from '../services/catalog/index.js';
import { Environment } from '../schema/enums.js';
import {
  CreateTagInput,
  TagConnection,
  TagReferenceType,
  TagRemovalType,
  TagType,
  UpdateTagInput,
} from '../schema/tag.types.js';
import { pageSize } from './api-key.resolver.js';
import { type Source, type Connection, connectionOf } from './source.js';

const verificationTagLoaders = new WeakMap<ServiceContext, DataLoader<string, TagReference[]>>();

/** Per-request loader of verification tags: one query for every verification of a response. */
export function verificationTagLoader(ctx: ServiceContext): DataLoader<string, TagReference[]> {
  let loader = verificationTagLoaders.get(ctx);
  if (!loader) {
    loader = new DataLoader(async (ids) => {
      const refs = await tagReferencesFor(ctx, [...ids]);
      return ids.map((id) => refs.get(id) ?? []);
    });
    verificationTagLoaders.set(ctx, loader);
  }
  return loader;
}

/** tagIds and/or names; at least one of the two. */
export function taggingArgs(tagIds?: string[] | null, names?: string[] | null): TaggingInput {
  if (!tagIds && !names) throw parameterMissing('tagIds');
  return { tagIds: tagIds ?? undefined, names: names ?? undefined };
}

@Resolver(() => TagType)
export class TagResolver {
  @Authorized()
  @Query(() => TagConnection, { description: 'Live tags of the environments the seat holds, newest first.' })
  async tags(
    @Ctx() ctx: ServiceContext,
    @Arg('environment', () => Environment, { nullable: true }) environment?: Environment,
    @Arg('first', () => Int, { nullable: true }) first?: number,
    @Arg('after', () => String, { nullable: true }) after?: string,
  ): Promise<Connection<Source<TagType>>> {
    const page = await listTags(
      ctx,
      { limit: pageSize(first), startingAfter: checkedCursor(after, ID_PATTERNS.tag) },
      environment,
    );
    return connectionOf(page);
  }

  @Authorized()
  @Mutation(() => TagType, { description: 'The live tag of the same normalised name, or a new one.' })
  async createTag(
    @Ctx() ctx: ServiceContext,
    @Arg('input', () => CreateTagInput) input: CreateTagInput,
  ): Promise<Source<TagType>> {
    const { tag } = await createTag(
      ctx,
      { name: input.name, color: input.color, description: input.description },
      input.environment,
    );
    return tag;
  }

  @Authorized()
  @Mutation(() => TagType, { description: 'Changes only what is sent; a rename shows everywhere the tag is carried.' })
  async updateTag(
    @Ctx() ctx: ServiceContext,
    @Arg('id', () => ID) id: string,
    @Arg('input', () => UpdateTagInput) input: UpdateTagInput,
  ): Promise<Source<TagType>> {
    if (input.name === undefined && input.color === undefined && input.description === undefined)
      throw parameterMissing('input');
    return await updateTag(ctx, id, {
      name: input.name,
      color: input.color,
      description: input.description,
    });
  }

  @Authorized()
  @Mutation(() => TagType, { description: 'Retires a tag: unlisted, still shown where carried, its name free again.' })
  async retireTag(@Ctx() ctx: ServiceContext, @Arg('id', () => ID) id: string): Promise<Source<TagType>> {
    return await retireTag(ctx, id);
  }

  @Authorized()
  @Mutation(() => [TagReferenceType], {
    description: 'Applies tags (safe to retry); returns the full set on the verification.',
  })
  async tagVerification(
    @Ctx() ctx: ServiceContext,
    @Arg('verificationId', () => ID) verificationId: string,
    @Arg('tagIds', () => [ID], { nullable: true }) tagIds?: string[],
    @Arg('names', () => [String], { nullable: true }) names?: string[],
  ): Promise<Source<TagReferenceType>[]> {
    return await tagVerification(ctx, verificationId, taggingArgs(tagIds, names));
  }

  @Authorized()
  @Mutation(() => TagRemovalType, { description: 'Takes a tag off a verification.' })
  async untagVerification(
    @Ctx() ctx: ServiceContext,
    @Arg('verificationId', () => ID) verificationId: string,
    @Arg('tagId', () => ID) tagId: string,
  ): Promise<Source<TagRemovalType>> {
    await untagVerification(ctx, verificationId, tagId);
    return { id: tagId, removed: true };
  }
}
