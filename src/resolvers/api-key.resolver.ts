import { Arg, Authorized, Ctx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import { parameterInvalid } from '../errors.js';
import { createApiKey, listApiKeys, revokeApiKey, rotateApiKey } from '../services/access/index.js';
import {
  checkedCursor,
  ID_PATTERNS,
  type ServiceContext,
  DEFAULT_PAGE_SIZE,
  MAX_PAGE_SIZE,
} from '../services/shared/index.js';
import { ApiKeyConnection, ApiKeyType, CreateApiKeyInput, CreatedApiKeyType } from '../schema/api-key.types.js';
import { Environment } from '../schema/enums.js';
import { type Source, type Connection, connectionOf } from './source.js';

/** Page size argument shared by connections: 1-100, default 20. */
export function pageSize(first: number | undefined | null): number {
  const size = first ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(size) || size < 1 || size > MAX_PAGE_SIZE)
    throw parameterInvalid('first', `first must be between 1 and ${MAX_PAGE_SIZE}.`);
  return size;
}

@Resolver(() => ApiKeyType)
export class ApiKeyResolver {
  @Authorized()
  @Query(() => ApiKeyConnection, { description: 'API keys of the environments the seat holds, newest first.' })
  async apiKeys(
    @Ctx() ctx: ServiceContext,
    @Arg('environment', () => Environment, { nullable: true }) environment?: Environment,
    @Arg('first', () => Int, { nullable: true }) first?: number,
    @Arg('after', () => String, { nullable: true }) after?: string,
  ): Promise<Connection<Source<ApiKeyType>>> {
    const page = await listApiKeys(
      ctx,
      { limit: pageSize(first), startingAfter: checkedCursor(after, ID_PATTERNS.uuid) },
      environment,
    );
    return connectionOf(page);
  }

  @Authorized('keys.manage')
  @Mutation(() => CreatedApiKeyType, {
    description: 'Mints a key; the secret is returned exactly once. Needs keys.manage.',
  })
  async createApiKey(
    @Ctx() ctx: ServiceContext,
    @Arg('input', () => CreateApiKeyInput) input: CreateApiKeyInput,
  ): Promise<Source<CreatedApiKeyType>> {
    const created = await createApiKey(ctx, { ...input, expiresAt: input.expiresAt ?? null });
    return { apiKey: created.key, secretKey: created.secretKey };
  }

  @Authorized('keys.manage')
  @Mutation(() => ApiKeyType, { description: 'Revokes a key for good; its row is kept. Needs keys.manage.' })
  async revokeApiKey(@Ctx() ctx: ServiceContext, @Arg('id', () => ID) id: string): Promise<Source<ApiKeyType>> {
    return await revokeApiKey(ctx, id);
  }

  @Authorized('keys.manage')
  @Mutation(() => CreatedApiKeyType, {
    description:
      'Replaces a key: a new one with the same name, environment, permissions, access and expiry (secret returned once); the old one is revoked at once. Needs keys.manage.',
  })
  async rotateApiKey(@Ctx() ctx: ServiceContext, @Arg('id', () => ID) id: string): Promise<Source<CreatedApiKeyType>> {
    const rotated = await rotateApiKey(ctx, id);
    return { apiKey: rotated.key, secretKey: rotated.secretKey };
  }
}
