import { Field, ID, InputType, ObjectType } from 'type-graphql';
import { Environment, KeyAccessEnum } from './enums.js';
import { PageInfo } from './page-info.js';

@ObjectType('ApiKey', { description: 'A secret API key; only its display prefix is readable.' })
export class ApiKeyType {
  @Field(() => ID) id!: string;
  @Field(() => String) name!: string;
  @Field(() => Environment, { name: 'environment' }) mode!: Environment;
  @Field(() => String) status!: string;
  @Field(() => String) keyPrefix!: string;
  @Field(() => [String]) permissions!: string[];
  @Field(() => KeyAccessEnum) access!: KeyAccessEnum;
  @Field(() => Date) createdAt!: Date;
  @Field(() => Date, { nullable: true }) lastUsedAt?: Date | null;
  @Field(() => Date, { nullable: true }) expiresAt?: Date | null;
  @Field(() => Date, { nullable: true }) revokedAt?: Date | null;
}

@ObjectType('ApiKeyConnection')
export class ApiKeyConnection {
  @Field(() => [ApiKeyType]) nodes!: ApiKeyType[];
  @Field(() => PageInfo) pageInfo!: PageInfo;
}

@ObjectType('CreatedApiKey', { description: 'The new key and its secret, shown exactly once.' })
export class CreatedApiKeyType {
  @Field(() => ApiKeyType) apiKey!: ApiKeyType;
  @Field(() => String) secretKey!: string;
}

@InputType('CreateApiKeyInput')
export class CreateApiKeyInput {
  @Field(() => String) name!: string;
  @Field(() => Environment) environment!: Environment;
  @Field(() => [String], { nullable: true, description: 'Omitted: the default set of the environment.' })
  permissions?: string[];
  @Field(() => KeyAccessEnum, { nullable: true }) access?: KeyAccessEnum;
  @Field(() => Date, { nullable: true }) expiresAt?: Date;
}
