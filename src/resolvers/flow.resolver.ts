import { Arg, Authorized, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { Mode } from '../config.js';
import type { Flow } from '../entities/flow.entity.js';
import { checkedCursor, ID_PATTERNS, parseInput, type ServiceContext } from '../services/shared/index.js';
import {
  checkOfStep,
  createFlow,
  createFlowInput,
  deleteFlow,
  getFlow,
  listFlows,
  normaliseFlowFields,
  previewFlow,
  updateFlow,
  updateFlowInput,
} from '../services/catalog/index.js';
import { Environment } from '../schema/enums.js';
import {
  CreateFlowInput,
  DeletedFlowType,
  FlowConnection,
  FlowPreviewType,
  FlowStepType,
  FlowType,
  UpdateFlowInput,
} from '../schema/flow.types.js';
import { pageSize } from './api-key.resolver.js';
import { type Source, type Connection, connectionOf } from './source.js';

/** GraphQL null on a field that cannot be null means "not sent"; steps lose their null members likewise. */
const NOT_NULLABLE = new Set(['name', 'steps', 'isDefault', 'status', 'languages', 'acceptedDocumentTypes', 'version']);

function sentFields(input: object): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    if (value === undefined || (value === null && NOT_NULLABLE.has(key))) continue;
    fields[key] =
      key === 'steps'
        ? (value as object[]).map((step) => Object.fromEntries(Object.entries(step).filter(([, v]) => v != null)))
        : value;
  }
  return fields;
}

/** Flows for team members, through the same service as /v1/flows. */
/** A flow as the service returns it; its steps come from the field resolver. */
export type FlowSource = Source<FlowType, 'steps'>;

@Resolver(() => FlowType)
export class FlowResolver {
  @Authorized()
  @Query(() => FlowConnection, {
    description: 'Flows of the environments the seat holds (preset and archived included), newest first.',
  })
  async flows(
    @Ctx() ctx: ServiceContext,
    @Arg('environment', () => Environment, { nullable: true }) environment?: Environment,
    @Arg('first', () => Int, { nullable: true }) first?: number,
    @Arg('after', () => String, { nullable: true }) after?: string,
  ): Promise<Connection<FlowSource>> {
    const page = await listFlows(
      ctx,
      { limit: pageSize(first), startingAfter: checkedCursor(after, ID_PATTERNS.flow) },
      environment as Mode | undefined,
    );
    return connectionOf(page);
  }

  @Authorized()
  @Query(() => FlowType)
  async flow(@Ctx() ctx: ServiceContext, @Arg('id', () => ID) id: string): Promise<FlowSource> {
    return await getFlow(ctx, id);
  }

  @Authorized('settings.manage')
  @Mutation(() => FlowType, {
    description: 'Creates a flow; isDefault moves the default mark of the environment to it.',
  })
  async createFlow(
    @Ctx() ctx: ServiceContext,
    @Arg('environment', () => Environment) environment: Environment,
    @Arg('input', () => CreateFlowInput) input: CreateFlowInput,
  ): Promise<FlowSource> {
    const fields = parseInput(createFlowInput, sentFields(input));
    return await createFlow(ctx, { ...normaliseFlowFields(fields), name: fields.name }, environment as Mode);
  }

  @Authorized('settings.manage')
  @Mutation(() => FlowType, {
    description: 'Updates a flow; steps are replaced wholesale; a stale version answers STALE_VERSION.',
  })
  async updateFlow(
    @Ctx() ctx: ServiceContext,
    @Arg('id', () => ID) id: string,
    @Arg('input', () => UpdateFlowInput) input: UpdateFlowInput,
  ): Promise<FlowSource> {
    const fields = parseInput(updateFlowInput, sentFields(input));
    return await updateFlow(ctx, id, { ...normaliseFlowFields(fields), version: fields.version });
  }

  @Authorized('settings.manage')
  @Mutation(() => FlowType, { description: 'Archives a flow: it stays readable and starts no new verification.' })
  async archiveFlow(
    @Ctx() ctx: ServiceContext,
    @Arg('id', () => ID) id: string,
    @Arg('version', () => Int, { nullable: true }) version?: number,
  ): Promise<FlowSource> {
    return await updateFlow(ctx, id, { status: 'archived', version: version ?? undefined });
  }

  @Authorized('settings.manage')
  @Mutation(() => FlowPreviewType, {
    description:
      'Starts a short-lived sandbox session of the flow for its hosted page; FLOW_EMPTY without steps, FLOW_ARCHIVED when archived.',
  })
  async previewFlow(@Ctx() ctx: ServiceContext, @Arg('id', () => ID) id: string): Promise<Source<FlowPreviewType>> {
    const preview = await previewFlow(ctx, id);
    const expires = preview.verification.expiresAt;
    return {
      id: preview.verification.id,
      flowId: preview.flow.id,
      url: preview.url,
      expiresAt: expires ? new Date(expires).toISOString() : null,
    };
  }

  @Authorized('settings.manage')
  @Mutation(() => DeletedFlowType, { description: 'Deletes a flow; verifications that used it are unaffected.' })
  async deleteFlow(@Ctx() ctx: ServiceContext, @Arg('id', () => ID) id: string): Promise<Source<DeletedFlowType>> {
    const flow = await deleteFlow(ctx, id);
    return { id: flow.id, deleted: true };
  }

  @FieldResolver(() => [FlowStepType])
  steps(@Root() flow: Flow): FlowStepType[] {
    return flow.steps.map(checkOfStep);
  }
}
