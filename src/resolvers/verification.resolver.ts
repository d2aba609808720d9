import { Arg, Authorized, Ctx, FieldResolver, ID, Int, Query, Resolver, Root } from 'type-graphql';
import type { Mode } from '../config.js';
import { notFound, parameterInvalid } from '../errors.js';
import { loadersOf } from '../graphql/loaders.js';
import { checkedCursor, ID_PATTERNS, narrowedTo, type ServiceContext } from '../services/shared/index.js';
import { listConsoleVerifications, verificationItem } from '../services/verifications/index.js';
import { ApplicantType } from '../schema/applicant.types.js';
import type { ApplicantSource } from './applicant.resolver.js';
import type { FlowSource } from './flow.resolver.js';
import { Environment } from '../schema/enums.js';
import { FlowType } from '../schema/flow.types.js';
import { TagReferenceType } from '../schema/tag.types.js';
import {
  CheckType,
  ConsentType,
  DecidedByType,
  VerificationConnection,
  VerificationFilterInput,
  VerificationType,
} from '../schema/verification.types.js';
import { pageSize } from './api-key.resolver.js';
import { type Source, type Connection, connectionOf } from './source.js';

const MAX_EMAIL_LENGTH = 254;

/** What the verification queries hand GraphQL: a list item; the field resolvers below add the rest. */
export type VerificationSource = Source<VerificationType>;

/** What the field resolvers need of a parent: a list item (plain row) or a loaded entity. */
interface VerificationParent {
  id: string;
  flow: { id: string };
  applicant?: { id: string } | null;
  consent?: { version: string; language: string; given_at: string } | null;
}

const inEnvironment = (ctx: ServiceContext, environment: Environment | null | undefined) =>
  narrowedTo(ctx, environment as Mode | null | undefined);

@Resolver(() => VerificationType)
export class VerificationResolver {
  @Authorized()
  @Query(() => VerificationConnection, {
    description: 'Verifications of the environments the seat holds, newest first.',
  })
  async verifications(
    @Ctx() ctx: ServiceContext,
    @Arg('filter', () => VerificationFilterInput, { nullable: true }) filter?: VerificationFilterInput,
    @Arg('first', () => Int, { nullable: true }) first?: number,
    @Arg('after', () => String, { nullable: true }) after?: string,
  ): Promise<Connection<VerificationSource>> {
    const limit = pageSize(first);
    if (filter?.email && filter.email.length > MAX_EMAIL_LENGTH)
      throw parameterInvalid('email', `email must be at most ${MAX_EMAIL_LENGTH} characters.`);
    if (filter?.tagId && !ID_PATTERNS.tag.test(filter.tagId))
      throw parameterInvalid('tagId', 'tagId must be a tag id (tag_...).');
    // The console list's service: a seat asking for an environment it lacks gets an empty list.
    const page = await listConsoleVerifications(
      ctx,
      {
        status: filter?.status ?? undefined,
        email: filter?.email ?? undefined,
        tagId: filter?.tagId ?? undefined,
        mode: (filter?.environment ?? undefined) as Mode | undefined,
        createdFrom: filter?.createdFrom ?? undefined,
        createdBefore: filter?.createdBefore ?? undefined,
      },
      { limit, startingAfter: checkedCursor(after, ID_PATTERNS.verification) },
    );
    return connectionOf(page);
  }

  @Authorized()
  @Query(() => VerificationType, { description: 'One verification of the account; RESOURCE_NOT_FOUND otherwise.' })
  async verification(
    @Ctx() ctx: ServiceContext,
    @Arg('id', () => ID) id: string,
    @Arg('environment', () => Environment, { nullable: true }) environment?: Environment,
  ): Promise<VerificationSource> {
    const scoped = inEnvironment(ctx, environment);
    if (!scoped) throw notFound('verification', id);
    // A plain row, as the connection's nodes are: the field resolvers read checks, tags, flow
    // and applicant through the request's loaders either way.
    const item = await verificationItem(scoped, id);
    if (!item) throw notFound('verification', id);
    return item;
  }

  @FieldResolver(() => [CheckType], { description: 'Per-check results in flow order.' })
  async checks(@Root() v: VerificationParent, @Ctx() ctx: ServiceContext): Promise<CheckType[]> {
    return loadersOf(ctx).checksByVerification.load(v.id);
  }

  @FieldResolver(() => [TagReferenceType], { description: 'Tags carried, retired ones included.' })
  async tags(@Root() v: VerificationParent, @Ctx() ctx: ServiceContext): Promise<Source<TagReferenceType>[]> {
    return await loadersOf(ctx).tagsByVerification.load(v.id);
  }

  @FieldResolver(() => FlowType, { nullable: true, description: 'The flow that actually ran.' })
  async flow(@Root() v: VerificationParent, @Ctx() ctx: ServiceContext): Promise<FlowSource | null> {
    return await loadersOf(ctx).flow.load(v.flow.id);
  }

  @FieldResolver(() => ApplicantType, {
    nullable: true,
    description: 'The person, once a face has been matched; no identity.',
  })
  async applicant(@Root() v: VerificationParent, @Ctx() ctx: ServiceContext): Promise<ApplicantSource | null> {
    return v.applicant ? await loadersOf(ctx).applicant.load(v.applicant.id) : null;
  }

  @FieldResolver(() => DecidedByType, {
    nullable: true,
    description: 'Who settled it: a reviewer (member) or a key (api_key); null for the engine or a policy.',
  })
  async decidedBy(@Root() v: VerificationParent, @Ctx() ctx: ServiceContext): Promise<Source<DecidedByType> | null> {
    return loadersOf(ctx).decidedBy.load(v.id);
  }

  @FieldResolver(() => ConsentType, {
    nullable: true,
    description:
      'Given on the hosted page before any capture; null until then (and when declined). Key API uploads rest on the integrator\u2019s own consent.',
  })
  consent(@Root() v: VerificationParent): ConsentType | null {
    const consent = v.consent;
    return consent
      ? { version: consent.version, language: consent.language, givenAt: new Date(consent.given_at) }
      : null;
  }

  @FieldResolver(() => String, { description: 'Where the applicant completes the session.' })
  hostedVerifyUrl(@Root() v: VerificationParent, @Ctx() ctx: ServiceContext): string {
    return `${ctx.runtime.config.publicUrl}/verify/${v.id}`;
  }
}
