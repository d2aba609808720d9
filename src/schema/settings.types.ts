import { Field, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';

export enum RepeatScopeEnum {
  same_flow = 'same_flow',
  any = 'any',
}
registerEnumType(RepeatScopeEnum, {
  name: 'RepeatScope',
  description: 'same_flow: an approval refuses repeats on its own flow only; any: on every flow (R1).',
});

@ObjectType('RepeatVerificationSetting', { description: '"Refuse repeat verifications" (R1-R10).' })
export class RepeatVerificationType {
  @Field(() => Boolean) enabled!: boolean;
  @Field(() => RepeatScopeEnum) scope!: RepeatScopeEnum;
}

@ObjectType('ReviewPolicy')
export class ReviewPolicyType {
  @Field(() => Boolean, { name: 'claimRequired' }) claim_required!: boolean;
  @Field(() => Int, { name: 'claimLeaseMinutes' }) claim_lease_minutes!: number;
  @Field(() => Int, { name: 'presenceTtlMs' }) presence_ttl_ms!: number;
  @Field(() => Int, { name: 'presenceHeartbeatMs' }) presence_heartbeat_ms!: number;
}

@ObjectType('AccountSettings', {
  description: 'Account-wide configuration, versioned: a write with a stale version applies nothing (STALE_VERSION).',
})
export class AccountSettingsType {
  @Field(() => RepeatVerificationType) repeatVerification!: RepeatVerificationType;
  @Field(() => Int, {
    nullable: true,
    description: 'Days after which an approval no longer refuses a repeat; null: never.',
  })
  reverificationPeriodDays!: number | null;
  @Field(() => Int, { description: 'Days identity, images and the email fingerprint are kept.' })
  retentionDays!: number;
  @Field(() => ReviewPolicyType) reviewPolicy!: ReviewPolicyType;
  @Field(() => Int) version!: number;
  @Field(() => Date) updatedAt!: Date;
}

@InputType('RepeatVerificationInput')
export class RepeatVerificationInput {
  @Field(() => Boolean, { nullable: true }) enabled?: boolean;
  @Field(() => RepeatScopeEnum, { nullable: true }) scope?: RepeatScopeEnum;
}

@InputType('ReviewPolicyInput')
export class ReviewPolicyInput {
  @Field(() => Boolean, { nullable: true }) claimRequired?: boolean;
  @Field(() => Int, { nullable: true }) claimLeaseMinutes?: number;
  @Field(() => Int, { nullable: true }) presenceTtlMs?: number;
  @Field(() => Int, { nullable: true }) presenceHeartbeatMs?: number;
}

@InputType('UpdateSettingsInput', {
  description: 'Only what is sent changes; send reverificationPeriodDays: null to turn the period off.',
})
export class UpdateSettingsInput {
  @Field(() => RepeatVerificationInput, { nullable: true }) repeatVerification?: RepeatVerificationInput;
  @Field(() => Int, { nullable: true }) reverificationPeriodDays?: number | null;
  @Field(() => Int, { nullable: true }) retentionDays?: number;
  @Field(() => ReviewPolicyInput, { nullable: true }) reviewPolicy?: ReviewPolicyInput;
  @Field(() => Int, { nullable: true, description: 'The version read; a stale one answers STALE_VERSION.' })
  version?: number;
}
