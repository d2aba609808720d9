import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, Float, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { Environment } from './enums.js';
import { PageInfo } from './page-info.js';

export enum VerificationStatusEnum {
  pending = 'pending',
  processing = 'processing',
  approved = 'approved',
  rejected = 'rejected',
  manual_review = 'manual_review',
  expired = 'expired',
}
registerEnumType(VerificationStatusEnum, {
  name: 'VerificationStatus',
  description: 'Terminal: approved, rejected, manual_review (awaiting a human), expired.',
});

export enum VerdictEnum {
  approve = 'approve',
  reject = 'reject',
  review = 'review',
}
registerEnumType(VerdictEnum, {
  name: 'Verdict',
  description: 'The outcome of a check or a verification; null until final.',
});

export enum ChangeReasonEnum {
  engine = 'engine',
  reviewer = 'reviewer',
  auto_policy = 'auto_policy',
}
registerEnumType(ChangeReasonEnum, { name: 'ChangeReason', description: 'Who settled the outcome.' });

@ObjectType('Check', { description: 'One check of a verification, in flow order.' })
export class CheckType {
  @Field(() => ID) id!: string;
  @Field(() => String, { description: 'For example liveness.' }) type!: string;
  @Field(() => String) status!: string;
  @Field(() => Boolean) required!: boolean;
  @Field(() => VerdictEnum, { nullable: true }) verdict?: VerdictEnum | null;
  @Field(() => Float, { nullable: true }) score?: number | null;
  @Field(() => String) providerTier!: string;
  @Field(() => [String]) reasonCodes!: string[];
  @Field(() => [GraphQLJSONObject], {
    description:
      'What the check found: AML hits (list, entry_id, score), fraud-network signals; never applicant identity.',
  })
  findings!: Record<string, unknown>[];
  @Field(() => Date) createdAt!: Date;
  @Field(() => Date) updatedAt!: Date;
}

@ObjectType('Consent', { description: 'The applicant\u2019s consent, recorded by the hosted page before any capture.' })
export class ConsentType {
  @Field(() => String, { description: 'The version of the consent text the applicant agreed to.' }) version!: string;
  @Field(() => String, { description: 'The language it was shown in (en, de, fr, es).' }) language!: string;
  @Field(() => Date) givenAt!: Date;
}

/**
 * A verification session without applicant identity: no fields, email, fingerprints or
 * client token. checks, tags, flow, applicant and hostedVerifyUrl are field resolvers
 * of VerificationResolver (per-request DataLoaders).
 */
@ObjectType('Verification', { description: 'A verification session. Never carries applicant identity.' })
export class VerificationType {
  @Field(() => ID) id!: string;
  @Field(() => VerificationStatusEnum) status!: VerificationStatusEnum;
  @Field(() => Environment) mode!: Environment;
  @Field(() => VerdictEnum, { nullable: true }) verdict?: VerdictEnum | null;
  @Field(() => Float, { nullable: true }) score?: number | null;
  @Field(() => [String]) reasonCodes!: string[];
  @Field(() => ChangeReasonEnum, { nullable: true, description: 'Null until the verification is final.' })
  changeReason?: ChangeReasonEnum | null;
  @Field(() => Int, { description: '0 when applicant data was never edited.' }) identityVersion!: number;
  @Field(() => Date, { nullable: true }) identityEditedAt?: Date | null;
  @Field(() => String) locale!: string;
  @Field(() => GraphQLJSONObject) metadata!: Record<string, string>;
  @Field(() => String, {
    nullable: true,
    description: 'Where the hosted end screen sends the applicant back to, as the key set it.',
  })
  returnUrl?: string | null;
  @Field(() => Date) expiresAt!: Date;
  @Field(() => Date) createdAt!: Date;
  @Field(() => Date) updatedAt!: Date;
}

@ObjectType('VerificationConnection')
export class VerificationConnection {
  @Field(() => [VerificationType]) nodes!: VerificationType[];
  @Field(() => PageInfo) pageInfo!: PageInfo;
}

@InputType('VerificationFilterInput')
export class VerificationFilterInput {
  @Field(() => VerificationStatusEnum, { nullable: true }) status?: VerificationStatusEnum | null;
  @Field(() => Environment, { nullable: true, description: 'Omitted: every environment the seat holds.' })
  environment?: Environment | null;
  @Field(() => String, {
    nullable: true,
    description: 'Exact match ignoring case and surrounding whitespace; at most 254 characters.',
  })
  email?: string | null;
  @Field(() => ID, { nullable: true, description: 'Only verifications carrying this tag (tag_...).' }) tagId?:
    string | null;
  @Field(() => Date, { nullable: true, description: 'Created at or after this time.' }) createdFrom?: Date | null;
  @Field(() => Date, { nullable: true, description: 'Created before this time.' }) createdBefore?: Date | null;
}

@ObjectType('DecidedBy', { description: 'Who settled a verification.' })
export class DecidedByType {
  @Field(() => String, { description: 'member or api_key' }) type!: string;
  @Field(() => ID) id!: string;
}
