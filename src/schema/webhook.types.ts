import { Field, ID, ObjectType } from 'type-graphql';
import { Environment } from './enums.js';
import { PageInfo } from './page-info.js';

@ObjectType('WebhookEndpoint', {
  description: 'Where events are delivered; the signing secret is readable only on create and rotate.',
})
export class WebhookEndpointType {
  @Field(() => ID) id!: string;
  @Field(() => String) url!: string;
  @Field(() => [String]) events!: string[];
  @Field(() => String, { description: 'active or disabled' }) status!: string;
  @Field(() => String, { nullable: true }) description?: string | null;
  @Field(() => Environment, { name: 'environment' }) mode!: Environment;
  @Field(() => Date) createdAt!: Date;
}

@ObjectType('WebhookEndpointConnection')
export class WebhookEndpointConnection {
  @Field(() => [WebhookEndpointType]) nodes!: WebhookEndpointType[];
  @Field(() => PageInfo) pageInfo!: PageInfo;
}

@ObjectType('WebhookEndpointWithSecret', { description: 'The endpoint and its signing secret, shown exactly once.' })
export class WebhookEndpointWithSecretType {
  @Field(() => WebhookEndpointType) endpoint!: WebhookEndpointType;
  @Field(() => String) signingSecret!: string;
}

@ObjectType('WebhookTest', { description: 'The test delivery queued to an endpoint.' })
export class WebhookTestType {
  @Field(() => ID) deliveryId!: string;
  @Field(() => String) event!: string;
  @Field(() => String) status!: string;
}
