import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, Float, ID, InputType, Int, ObjectType } from 'type-graphql';
import { Environment } from './enums.js';
import { PageInfo } from './page-info.js';

@ObjectType('RequestLog', {
  description:
    'One API call of a key: the route with identity-bearing values masked, the client address truncated (/24, /48).',
})
export class RequestLogType {
  @Field(() => ID) id!: string;
  @Field(() => Environment, { name: 'environment' }) mode!: Environment;
  @Field(() => ID) apiKeyId!: string;
  @Field(() => String) keyName!: string;
  @Field(() => String) method!: string;
  @Field(() => String) route!: string;
  @Field(() => Int) status!: number;
  @Field(() => Float) durationMs!: number;
  @Field(() => String) requestId!: string;
  @Field(() => String, { nullable: true }) ip!: string | null;
  @Field(() => Date) createdAt!: Date;
}

@ObjectType('RequestLogConnection')
export class RequestLogConnection {
  @Field(() => [RequestLogType]) nodes!: RequestLogType[];
  @Field(() => PageInfo) pageInfo!: PageInfo;
}

@InputType('RequestLogFilter', { description: 'Every field narrows; omitted: no restriction.' })
export class RequestLogFilterInput {
  @Field(() => ID, { nullable: true, description: 'An API key id (UUID).' }) apiKeyId?: string | null;
  @Field(() => String, { nullable: true, description: '2xx, 3xx, 4xx or 5xx.' }) statusClass?: string | null;
  @Field(() => String, { nullable: true, description: 'A route prefix, e.g. /v1/verifications.' }) route?:
    string | null;
  @Field(() => Date, { nullable: true }) since?: Date | null;
  @Field(() => Date, { nullable: true }) until?: Date | null;
  @Field(() => Environment, { nullable: true }) environment?: Environment | null;
}

@ObjectType('DeliveryLog', {
  description: 'A webhook delivery with its attempts. `body` needs verifications.reveal (audited).',
})
export class DeliveryLogType {
  @Field(() => ID) id!: string;
  @Field(() => Environment, { name: 'environment' }) mode!: Environment;
  @Field(() => ID) endpointId!: string;
  @Field(() => String) event!: string;
  @Field(() => ID) eventId!: string;
  @Field(() => Boolean) test!: boolean;
  @Field(() => String, { description: 'pending, delivered or failed' }) status!: string;
  @Field(() => Int) attemptCount!: number;
  @Field(() => Int, { nullable: true }) responseCode!: number | null;
  @Field(() => String, { nullable: true }) error!: string | null;
  @Field(() => [GraphQLJSONObject]) attempts!: Record<string, unknown>[];
  @Field(() => Date, { nullable: true }) nextAttemptAt!: Date | null;
  @Field(() => Date, { nullable: true }) deliveredAt!: Date | null;
  @Field(() => Date) createdAt!: Date;
}

@ObjectType('DeliveryLogConnection')
export class DeliveryLogConnection {
  @Field(() => [DeliveryLogType]) nodes!: DeliveryLogType[];
  @Field(() => PageInfo) pageInfo!: PageInfo;
}

@ObjectType('CsvExport', {
  description: 'A back-office export: the CSV itself with what X-Rows and X-Truncated say on REST.',
})
export class CsvExportType {
  @Field(() => String, { description: 'The file name the REST answer suggests.' }) filename!: string;
  @Field(() => Int, { description: 'Data rows in `csv` (at most 5,000).' }) rows!: number;
  @Field(() => Boolean, { description: 'True when the 5,000-row cap cut the export.' }) truncated!: boolean;
  @Field(() => String, {
    description: 'The CSV, header row first; formula-like cells are prefixed with an apostrophe.',
  })
  csv!: string;
}
