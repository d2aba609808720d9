import { GraphQLJSONObject } from 'graphql-scalars';
import { Arg, Authorized, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { parameterInvalid } from '../errors.js';
import {
  DeliveryLogConnection,
  DeliveryLogType,
  RequestLogConnection,
  RequestLogFilterInput,
  type RequestLogType,
} from '../schema/logs.types.js';
import {
  getDeliveryLog,
  listDeliveryLog,
  listRequestLogs,
  replayDelivery,
  REQUEST_LOG_ID_PATTERN,
  type DeliveryDetail,
} from '../services/logs/index.js';
import { checkedCursor, ID_PATTERNS, type ServiceContext } from '../services/shared/index.js';
import { pageSize } from './api-key.resolver.js';
import { type Source, type Connection, connectionOf } from './source.js';

const DELIVERY_ID = /^del_[0-9A-Za-z]+$/;
const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
const isDeliveryStatus = (status: string): status is (typeof DELIVERY_STATUSES)[number] =>
  (DELIVERY_STATUSES as readonly string[]).includes(status);

function statusClassOf(value: string | null | undefined): number | undefined {
  if (!value) return undefined;
  if (!/^[2-5]xx$/.test(value))
    throw parameterInvalid('filter.statusClass', 'statusClass must be 2xx, 3xx, 4xx or 5xx.');
  return Number(value[0]);
}

/** The request log and the webhook delivery log for team members (logs.read), through the same services as /v1/console/logs. */
/** A delivery of the log as the service returns it; `body` comes from the field resolver. */
type DeliveryLogSource = Source<DeliveryLogType>;

@Resolver(() => DeliveryLogType)
export class LogsResolver {
  @Authorized('logs.read')
  @Query(() => RequestLogConnection, { description: 'API calls of the account\u2019s keys, newest first.' })
  async requestLogs(
    @Ctx() ctx: ServiceContext,
    @Arg('filter', () => RequestLogFilterInput, { nullable: true }) filter?: RequestLogFilterInput,
    @Arg('first', () => Int, { nullable: true }) first?: number,
    @Arg('after', () => String, { nullable: true }) after?: string,
  ): Promise<Connection<Source<RequestLogType>>> {
    if (filter?.apiKeyId && !ID_PATTERNS.uuid.test(filter.apiKeyId))
      throw parameterInvalid('filter.apiKeyId', 'apiKeyId must be an API key id (UUID).');
    const page = await listRequestLogs(
      ctx,
      {
        apiKeyId: filter?.apiKeyId ?? undefined,
        statusClass: statusClassOf(filter?.statusClass),
        route: filter?.route ?? undefined,
        since: filter?.since ?? undefined,
        until: filter?.until ?? undefined,
        mode: filter?.environment ?? undefined,
      },
      { limit: pageSize(first), startingAfter: checkedCursor(after, REQUEST_LOG_ID_PATTERN) },
    );
    return connectionOf(page);
  }

  @Authorized('logs.read')
  @Query(() => DeliveryLogConnection, { description: 'Webhook deliveries of every endpoint, newest first.' })
  async deliveryLogs(
    @Ctx() ctx: ServiceContext,
    @Arg('status', () => String, { nullable: true }) status?: string,
    @Arg('event', () => String, { nullable: true }) event?: string,
    @Arg('first', () => Int, { nullable: true }) first?: number,
    @Arg('after', () => String, { nullable: true }) after?: string,
  ): Promise<Connection<DeliveryLogSource>> {
    let wanted: (typeof DELIVERY_STATUSES)[number] | undefined;
    if (status) {
      if (!isDeliveryStatus(status)) throw parameterInvalid('status', 'status must be pending, delivered or failed.');
      wanted = status;
    }
    const page = await listDeliveryLog(
      ctx,
      { status: wanted, event: event ?? undefined },
      { limit: pageSize(first), startingAfter: checkedCursor(after, DELIVERY_ID) },
    );
    return connectionOf(page);
  }

  @Authorized('logs.read')
  @Query(() => DeliveryLogType, {
    description: 'One delivery; select `body` only with verifications.reveal (the view is audited).',
  })
  async deliveryLog(@Ctx() ctx: ServiceContext, @Arg('id', () => ID) id: string): Promise<DeliveryDetail> {
    return getDeliveryLog(ctx, id);
  }

  /** Absent without verifications.reveal: selecting it is refused (INSUFFICIENT_PERMISSIONS), never answered with a null body. */
  @Authorized('verifications.reveal')
  @FieldResolver(() => GraphQLJSONObject, {
    nullable: true,
    description: 'The exact body sent (deliveryLog only; needs verifications.reveal; audited).',
  })
  body(@Root() delivery: DeliveryDetail): unknown {
    return 'body' in delivery ? delivery.body : null;
  }

  @Authorized('logs.read')
  @Mutation(() => DeliveryLogType, {
    description:
      'Re-arms a delivery on the normal retry ladder; WEBHOOK_ENDPOINT_DELETED / WEBHOOK_ENDPOINT_DISABLED / DELIVERY_IN_FLIGHT when it cannot be.',
  })
  async replayDelivery(@Ctx() ctx: ServiceContext, @Arg('id', () => ID) id: string): Promise<DeliveryDetail> {
    return replayDelivery(ctx, id);
  }
}
