import type { z } from 'zod';
import { Arg, Authorized, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { Mode } from '../config.js';
import type { Flow } from '../entities/flow.entity.js';
import { ApiError } from '../errors.js';
import { presentStep } from '../rest/flow.presenter.js';
import { createFlowBody, toFlowFields, updateFlowBody } from '../rest/flows.schema.js';
import { parseInput } from '../rest/validate.js';
import type { ServiceContext } from '../services/shared/index.js';
import { createFlow, deleteFlow, getFlow, listFlows, updateFlow } from '../services/catalog/index.js';
import { Environment } from '../schema/enums.js';
import { CreateFlowInput, DeletedFlowType, FlowConnection, FlowStepType, FlowType, UpdateFlowInput } from '../schema/flow.types.js';
import { pageSize } from './api-key.resolver.js';

const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const camel = (name: string) => name.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
/** Fields whose REST shape has no null: a GraphQL null means "not sent". */
const NOT_NULLABLE = new Set(['name', 'steps', 'is_default', 'status', 'languages', 'accepted_document_types', 'version']);

/** The REST body of a GraphQL input, so both surfaces validate with the same rules. */
function toBody(input: object): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    const name = snake(key);
    if (value === undefined || (value === null && NOT_NULLABLE.has(name))) continue;
    body[name] = name === 'steps' ? (value as object[]).map((step) => Object.fromEntries(Object.entries(step).filter(([, v]) => v != null))) : value;
  }
  return body;
}

/** parseInput with the error's `param` named as the GraphQL input field (countryPolicy.allow[0]). */
function parseGraphqlInput<S extends z.ZodType>(schema: S, input: object): z.output<S> {
  try {
    return parseInput(schema, toBody(input));
  } catch (error) {
    if (!(error instanceof ApiError) || !error.param) throw error;
    const param = error.param.replace(/^[a-z_]+/, camel);
    throw new ApiError(error.status, error.type, error.code, error.message.split(error.param).join(param), { param, detail: error.detail });
  }
}

const asType = (flow: Flow) => flow as unknown as FlowType;

/** Flows for team members, through the same service as /v1/flows. */
@Resolver(() => FlowType)
export class FlowResolver {
  @Authorized()
  @Query(() => FlowConnection, { description: 'Flows of the environments the seat holds (preset and archived included), newest first.' })
  async flows(
    @Ctx() ctx: ServiceContext,
    @Arg('environment', () => Environment, { nullable: true }) environment?: Environment,
    @Arg('first', () => Int, { nullable: true }) first?: number,
    @Arg('after', () => String, { nullable: true }) after?: string,
  ): Promise<FlowConnection> {
    const page = await listFlows(ctx, { limit: pageSize(first), startingAfter: after ?? undefined }, environment as Mode | undefined);
    return { nodes: page.data.map(asType), pageInfo: { hasNextPage: page.hasMore, endCursor: page.nextCursor } };
  }

  @Authorized()
  @Query(() => FlowType)
  async flow(@Ctx() ctx: ServiceContext, @Arg('id', () => ID) id: string): Promise<FlowType> {
    return asType(await getFlow(ctx, id));
  }

  @Authorized()
  @Mutation(() => FlowType, { description: 'Creates a flow; isDefault moves the default mark of the environment to it.' })
  async createFlow(
    @Ctx() ctx: ServiceContext,
    @Arg('environment', () => Environment) environment: Environment,
    @Arg('input', () => CreateFlowInput) input: CreateFlowInput,
  ): Promise<FlowType> {
    const body = parseGraphqlInput(createFlowBody, input);
    return asType(await createFlow(ctx, { ...toFlowFields(body), name: body.name }, environment as Mode));
  }

  @Authorized()
  @Mutation(() => FlowType, { description: 'Updates a flow; steps are replaced wholesale; a stale version answers STALE_VERSION.' })
  async updateFlow(@Ctx() ctx: ServiceContext, @Arg('id', () => ID) id: string, @Arg('input', () => UpdateFlowInput) input: UpdateFlowInput): Promise<FlowType> {
    const body = parseGraphqlInput(updateFlowBody, input);
    return asType(await updateFlow(ctx, id, { ...toFlowFields(body), version: body.version }));
  }

  @Authorized()
  @Mutation(() => FlowType, { description: 'Archives a flow: it stays readable and starts no new verification.' })
  async archiveFlow(
    @Ctx() ctx: ServiceContext,
    @Arg('id', () => ID) id: string,
    @Arg('version', () => Int, { nullable: true }) version?: number,
  ): Promise<FlowType> {
    return asType(await updateFlow(ctx, id, { status: 'archived', version: version ?? undefined }));
  }

  @Authorized()
  @Mutation(() => DeletedFlowType, { description: 'Deletes a flow; verifications that used it are unaffected.' })
  async deleteFlow(@Ctx() ctx: ServiceContext, @Arg('id', () => ID) id: string): Promise<DeletedFlowType> {
    const flow = await deleteFlow(ctx, id);
    return { id: flow.id, deleted: true };
  }

  @FieldResolver(() => [FlowStepType])
  steps(@Root() flow: Flow): FlowStepType[] {
    return flow.steps.map(presentStep);
  }
}
