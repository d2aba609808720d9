import { Field, Float, ID, InputType, Int, ObjectType } from 'type-graphql';
import { Environment } from './enums.js';
import { PageInfo } from './page-info.js';
import { ChangeReasonEnum, VerdictEnum, VerificationStatusEnum } from './verification.types.js';

@InputType('ReportingFilter', { description: 'What a reporting answer covers; every field optional.' })
export class ReportingFilterInput {
  @Field(() => Environment, {
    nullable: true,
    description: 'One environment the seat holds; omitted: every one it holds; one it lacks: empty figures.',
  })
  environment?: Environment | null;
  @Field(() => Date, {
    nullable: true,
    description: 'Lower bound on creation time. Omitted: everything (analytics: 30 days ago).',
  })
  since?: Date | null;
  @Field(() => ID, { nullable: true, description: 'Only verifications that ran this flow.' })
  flowId?: string | null;
  @Field(() => ID, { nullable: true, description: 'Only verifications carrying this tag.' })
  tagId?: string | null;
}

@ObjectType('StatusCounts', { description: 'Verifications per status, zeros included.' })
export class StatusCountsType {
  @Field(() => Int) pending!: number;
  @Field(() => Int) processing!: number;
  @Field(() => Int) approved!: number;
  @Field(() => Int) rejected!: number;
  @Field(() => Int) manualReview!: number;
  @Field(() => Int) expired!: number;
}

@ObjectType('ReportingOverview', {
  description: 'Status breakdown of the verifications in the window and who settled their outcomes.',
})
export class ReportingOverviewType {
  @Field(() => [Environment]) environments!: Environment[];
  @Field(() => Date, { nullable: true }) since!: Date | null;
  @Field(() => Int) total!: number;
  @Field(() => StatusCountsType) byStatus!: StatusCountsType;
  @Field(() => Int, { description: 'In manual_review: waiting on a person.' }) awaitingReview!: number;
  @Field(() => Int, { description: 'Approved or rejected by a reviewer: outcomes that reached a person.' })
  decidedByReviewer!: number;
  @Field(() => Int, { description: 'Approved or rejected by the engine or a policy.' }) automated!: number;
  @Field(() => Float, {
    nullable: true,
    description: 'automated / (approved + rejected + manual_review); null without outcomes.',
  })
  automationRate!: number | null;
}

@ObjectType('ReportingDay', { description: 'One UTC day of creation.' })
export class ReportingDayType {
  @Field(() => String, { description: 'YYYY-MM-DD (UTC).' }) day!: string;
  @Field(() => Int) total!: number;
  @Field(() => StatusCountsType) byStatus!: StatusCountsType;
  @Field(() => Int) awaitingReview!: number;
  @Field(() => Int) decidedByReviewer!: number;
  @Field(() => Int) automated!: number;
  @Field(() => Float, { nullable: true }) automationRate!: number | null;
}

@ObjectType('ReportingAnalytics', { description: 'The overview of the window and the same bucketed by UTC day.' })
export class ReportingAnalyticsType extends ReportingOverviewType {
  @Field(() => [ReportingDayType]) days!: ReportingDayType[];
}

@ObjectType('ReasonCodeCount', { description: 'How many verifications carry a reason code, and their statuses.' })
export class ReasonCodeCountType {
  @Field(() => String) reasonCode!: string;
  @Field(() => Int) count!: number;
  @Field(() => StatusCountsType) byStatus!: StatusCountsType;
}

@ObjectType('DecisionTimes', {
  description: 'Creation to final decision (approved or rejected); percentiles within ±2.5%.',
})
export class DecisionTimesType {
  @Field(() => Int) count!: number;
  @Field(() => Float, { nullable: true }) p50Seconds!: number | null;
  @Field(() => Float, { nullable: true }) p90Seconds!: number | null;
}

@ObjectType('TimeToDecision')
export class TimeToDecisionType {
  @Field(() => DecisionTimesType, { description: 'Decided by the engine or a policy.' }) engine!: DecisionTimesType;
  @Field(() => DecisionTimesType, { description: 'Decided by a reviewer.' }) reviewer!: DecisionTimesType;
}

@ObjectType('DecisionFunnel', {
  description: 'created -> submitted (reached processing) -> decided (approved or rejected).',
})
export class DecisionFunnelType {
  @Field(() => Int) created!: number;
  @Field(() => Int) submitted!: number;
  @Field(() => Int) decided!: number;
}

@ObjectType('UsageCheckType')
export class UsageCheckTypeType {
  @Field(() => String) checkType!: string;
  @Field(() => Int) count!: number;
  @Field(() => Int) billable!: number;
}

@ObjectType('UsageEnvironment')
export class UsageEnvironmentType {
  @Field(() => Environment, { name: 'environment' }) mode!: Environment;
  @Field(() => Int) total!: number;
  @Field(() => Int) billable!: number;
  @Field(() => [UsageCheckTypeType]) byCheckType!: UsageCheckTypeType[];
}

@ObjectType('UsageReport', {
  description: 'Metered check runs per check type and per environment (the records of GET /v1/usage).',
})
export class UsageReportType {
  @Field(() => [Environment], { name: 'environments' }) modes!: Environment[];
  @Field(() => Date, { nullable: true }) since!: Date | null;
  @Field(() => Int) total!: number;
  @Field(() => Int) billable!: number;
  @Field(() => [UsageCheckTypeType]) byCheckType!: UsageCheckTypeType[];
  @Field(() => [UsageEnvironmentType]) byEnvironment!: UsageEnvironmentType[];
}

@ObjectType('VerificationAttempt', { description: 'One attempt of a person: outcome and timing, never identity.' })
export class AttemptType {
  @Field(() => ID) id!: string;
  @Field(() => Environment, { name: 'environment' }) mode!: Environment;
  @Field(() => VerificationStatusEnum) status!: VerificationStatusEnum;
  @Field(() => VerdictEnum, { nullable: true }) verdict!: VerdictEnum | null;
  @Field(() => Float, { nullable: true }) score!: number | null;
  @Field(() => [String]) reasonCodes!: string[];
  @Field(() => ChangeReasonEnum, { nullable: true }) changeReason!: ChangeReasonEnum | null;
  @Field(() => ID) flowId!: string;
  @Field(() => Date) createdAt!: Date;
  @Field(() => Date, { nullable: true }) submittedAt!: Date | null;
  @Field(() => Date, { nullable: true }) decidedAt!: Date | null;
}

@ObjectType('Person', { description: 'A person (applicant record) and its attempts; never identity.' })
export class PersonType {
  @Field(() => ID) id!: string;
  @Field(() => Environment, { name: 'environment' }) mode!: Environment;
  @Field(() => Boolean) hasIdentityLink!: boolean;
  @Field(() => Int) attempts!: number;
  @Field(() => Boolean) everApproved!: boolean;
  @Field(() => ID, { nullable: true }) latestVerificationId!: string | null;
  @Field(() => VerificationStatusEnum, { nullable: true }) latestStatus!: VerificationStatusEnum | null;
  @Field(() => Date, { nullable: true }) lastAttemptAt!: Date | null;
  @Field(() => Date) createdAt!: Date;
  @Field(() => Date) updatedAt!: Date;
  @Field(() => [AttemptType], {
    nullable: true,
    description: 'The latest 100 attempts, newest first; only on `person(id)`.',
  })
  history?: AttemptType[] | null;
}

@ObjectType('PersonConnection')
export class PersonConnection {
  @Field(() => [PersonType]) nodes!: PersonType[];
  @Field(() => PageInfo) pageInfo!: PageInfo;
}
