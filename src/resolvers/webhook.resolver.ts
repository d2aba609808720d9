import { Arg, Authorized, Ctx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { Mode } from '../config.js';
import { permissionError } from '../errors.js';
import { Environment } from '../schema/enums.js';
import {
  WebhookEndpointConnection,
  WebhookEndpointType,
  WebhookEndpointWithSecretType,
  WebhookTestType,
} from '../schema/webhook.types.js';
import { actingEnvironment, checkedCursor, narrowedTo, type ServiceContext } from '../services/shared/index.js';
import {
  createWebhookEndpoint,
  listWebhookEndpoints,
  rotateWebhookSecret,
  sendTestWebhook,
} from '../services/webhooks/index.js';
import { pageSize } from './api-key.resolver.js';
import { type Source, type Connection, connectionOf } from './source.js';

const ENDPOINT_ID = /^whe_[0-9A-Za-z]+$/;

/** The context of one environment the seat holds (the one a write acts in). */
function inEnvironment(ctx: ServiceContext, environment?: Environment | null): ServiceContext {
  const mode = actingEnvironment(ctx, environment as Mode | undefined);
  const narrowed = narrowedTo(ctx, mode);
  if (!narrowed) throw permissionError('ENVIRONMENT_NOT_HELD', `Your seat does not hold the ${mode} environment.`);
  return narrowed;
}

/** Webhook endpoints for team members (the console's Settings), through the services of /v1/webhooks; writes need settings.manage. */
@Resolver(() => WebhookEndpointType)
export class WebhookResolver {
  @Authorized()
  @Query(() => WebhookEndpointConnection, {
    description: 'Webhook endpoints of the environments the seat holds (or the one named), newest first.',
  })
  async webhookEndpoints(
    @Ctx() ctx: ServiceContext,
    @Arg('environment', () => Environment, { nullable: true }) environment?: Environment,
    @Arg('first', () => Int, { nullable: true }) first?: number,
    @Arg('after', () => String, { nullable: true }) after?: string,
  ): Promise<Connection<Source<WebhookEndpointType>>> {
    const scoped = narrowedTo(ctx, environment as Mode | undefined);
    if (!scoped) return { nodes: [], pageInfo: { hasNextPage: false, endCursor: null } };
    const page = await listWebhookEndpoints(scoped, {
      limit: pageSize(first),
      startingAfter: checkedCursor(after, ENDPOINT_ID),
    });
    return connectionOf(page);
  }

  @Authorized('settings.manage')
  @Mutation(() => WebhookEndpointWithSecretType, {
    description: 'Creates an endpoint in one environment; the signing secret is returned exactly once.',
  })
  async createWebhookEndpoint(
    @Ctx() ctx: ServiceContext,
    @Arg('url', () => String) url: string,
    @Arg('events', () => [String]) events: string[],
    @Arg('environment', () => Environment, { nullable: true }) environment?: Environment,
    @Arg('description', () => String, { nullable: true }) description?: string,
  ): Promise<Source<WebhookEndpointWithSecretType>> {
    const created = await createWebhookEndpoint(inEnvironment(ctx, environment), {
      url,
      events,
      description: description ?? null,
    });
    return { endpoint: created.endpoint, signingSecret: created.signingSecret };
  }

  @Authorized('settings.manage')
  @Mutation(() => WebhookEndpointWithSecretType, {
    description: 'Issues a new signing secret (shown once); the old one stops signing.',
  })
  async rotateWebhookSecret(
    @Ctx() ctx: ServiceContext,
    @Arg('id', () => ID) id: string,
  ): Promise<Source<WebhookEndpointWithSecretType>> {
    const rotated = await rotateWebhookSecret(ctx, id);
    return { endpoint: rotated.endpoint, signingSecret: rotated.signingSecret };
  }

  @Authorized('settings.manage')
  @Mutation(() => WebhookTestType, {
    description: 'Queues a test event (default verification.completed) to the endpoint.',
  })
  async testWebhookEndpoint(
    @Ctx() ctx: ServiceContext,
    @Arg('id', () => ID) id: string,
    @Arg('event', () => String, { nullable: true }) event?: string,
  ): Promise<Source<WebhookTestType>> {
    const delivery = await sendTestWebhook(ctx, id, event ?? undefined);
    return { deliveryId: delivery.id, event: delivery.eventType, status: delivery.status };
  }
}
