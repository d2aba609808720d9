import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, Float, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { Environment } from './enums.js';
import { PageInfo } from './page-info.js';

type Json = Record<string, unknown>;

export enum FlowStatusEnum {
  active = 'active',
  archived = 'archived',
}
registerEnumType(FlowStatusEnum, { name: 'FlowStatus', description: 'An archived flow starts no new verification.' });

@ObjectType('FlowStep', { description: 'One step of a flow.' })
export class FlowStepType {
  @Field(() => String, { description: 'document, liveness, face_match, age, aml or email' }) type!: string;
  @Field(() => Boolean) required!: boolean;
  @Field(() => Float, { nullable: true }) sensitivity!: number | null;
  @Field(() => Float, { nullable: true }) threshold!: number | null;
  @Field(() => GraphQLJSONObject, {
    description: 'Check-specific settings; for age steps ageRules and ageRuleFallback.',
  })
  config!: Json;
}

@ObjectType('Flow', { description: 'A saved, ordered list of checks with its hosted-page branding and policies.' })
export class FlowType {
  @Field(() => ID) id!: string;
  @Field(() => String) name!: string;
  @Field(() => Environment, { name: 'environment' }) mode!: Environment;
  @Field(() => [FlowStepType]) steps!: FlowStepType[];
  @Field(() => Boolean) isDefault!: boolean;
  @Field(() => Boolean, { description: 'The built-in preset; read-only.' }) isPreset!: boolean;
  @Field(() => FlowStatusEnum) status!: FlowStatusEnum;
  @Field(() => Float, { nullable: true }) sensitivity?: number | null;
  @Field(() => String, { nullable: true }) brandName?: string | null;
  @Field(() => String, { nullable: true }) logoUrl?: string | null;
  @Field(() => String, { nullable: true }) accentColor?: string | null;
  @Field(() => String, { nullable: true }) supportUrl?: string | null;
  @Field(() => String, {
    nullable: true,
    description: 'The privacy notice linked from the hosted consent step (https).',
  })
  privacyUrl?: string | null;
  @Field(() => [String]) languages!: string[];
  @Field(() => String, { nullable: true }) defaultEmailLocale?: string | null;
  @Field(() => GraphQLJSONObject, { nullable: true }) countryPolicy?: Json | null;
  @Field(() => GraphQLJSONObject, { nullable: true }) networkPolicy?: Json | null;
  @Field(() => GraphQLJSONObject, { nullable: true }) expiryPolicy?: Json | null;
  @Field(() => GraphQLJSONObject, { nullable: true }) policyTree?: Json | null;
  @Field(() => [String], { description: 'Empty: unrestricted.' }) acceptedDocumentTypes!: string[];
  @Field(() => GraphQLJSONObject, {
    nullable: true,
    description: 'Replaces the account setting for this flow; null: the account setting.',
  })
  repeatPolicy?: Json | null;
  @Field(() => Int, { description: 'Send it back on update; another version answers STALE_VERSION.' }) version!: number;
  @Field(() => Date) createdAt!: Date;
  @Field(() => Date) updatedAt!: Date;
}

@ObjectType('FlowConnection')
export class FlowConnection {
  @Field(() => [FlowType]) nodes!: FlowType[];
  @Field(() => PageInfo) pageInfo!: PageInfo;
}

@ObjectType('DeletedFlow')
export class DeletedFlowType {
  @Field(() => ID) id!: string;
  @Field(() => Boolean) deleted!: boolean;
}

@ObjectType('FlowPreview', { description: 'A short-lived sandbox session of a flow on the hosted page.' })
export class FlowPreviewType {
  @Field(() => ID, { description: 'The preview verification.' }) id!: string;
  @Field(() => ID) flowId!: string;
  @Field(() => String, { description: 'The hosted page, its client token in the fragment; open it in a new tab.' })
  url!: string;
  @Field(() => String, { nullable: true }) expiresAt?: string | null;
}

@InputType('FlowStepInput')
export class FlowStepInput {
  @Field(() => String) type!: string;
  @Field(() => Boolean, { nullable: true, description: 'Default true.' }) required?: boolean | null;
  @Field(() => Float, { nullable: true }) sensitivity?: number | null;
  @Field(() => Float, { nullable: true }) threshold?: number | null;
  @Field(() => GraphQLJSONObject, { nullable: true }) config?: Json | null;
}

/** The fields shared by create and update; validated by the same rules as REST. */
@InputType()
export abstract class FlowSettingsInput {
  @Field(() => [FlowStepInput], { nullable: true, description: 'Replaced wholesale on update.' }) steps?:
    FlowStepInput[] | null;
  @Field(() => Boolean, { nullable: true, description: 'The previous default of the environment loses the mark.' })
  isDefault?: boolean | null;
  @Field(() => FlowStatusEnum, { nullable: true }) status?: FlowStatusEnum | null;
  @Field(() => Float, { nullable: true }) sensitivity?: number | null;
  @Field(() => String, { nullable: true }) brandName?: string | null;
  @Field(() => String, { nullable: true }) logoUrl?: string | null;
  @Field(() => String, { nullable: true }) accentColor?: string | null;
  @Field(() => String, { nullable: true }) supportUrl?: string | null;
  @Field(() => String, {
    nullable: true,
    description: 'The privacy notice linked from the hosted consent step (https).',
  })
  privacyUrl?: string | null;
  @Field(() => [String], { nullable: true }) languages?: string[] | null;
  @Field(() => String, { nullable: true }) defaultEmailLocale?: string | null;
  @Field(() => GraphQLJSONObject, { nullable: true }) countryPolicy?: Json | null;
  @Field(() => GraphQLJSONObject, { nullable: true }) networkPolicy?: Json | null;
  @Field(() => GraphQLJSONObject, { nullable: true }) expiryPolicy?: Json | null;
  @Field(() => GraphQLJSONObject, { nullable: true }) policyTree?: Json | null;
  @Field(() => [String], { nullable: true }) acceptedDocumentTypes?: string[] | null;
  @Field(() => GraphQLJSONObject, { nullable: true }) repeatPolicy?: Json | null;
}

@InputType('CreateFlowInput')
export class CreateFlowInput extends FlowSettingsInput {
  @Field(() => String) name!: string;
}

@InputType('UpdateFlowInput')
export class UpdateFlowInput extends FlowSettingsInput {
  @Field(() => String, { nullable: true }) name?: string | null;
  @Field(() => Int, {
    nullable: true,
    description: 'The version read; another version applies nothing (STALE_VERSION).',
  })
  version?: number | null;
}
