import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, ID, ObjectType } from 'type-graphql';
import { Environment } from './enums.js';
import { PageInfo } from './page-info.js';
import { VerificationType } from './verification.types.js';

@ObjectType('MemberRef', { description: 'A team member as colleagues see them: id and name.' })
export class MemberRefType {
  @Field(() => ID) id!: string;
  @Field(() => String) name!: string;
}

@ObjectType('ReviewPresence', {
  description: 'A live presence marker (advisory): who is looking at the case since when.',
})
export class ReviewPresenceType {
  @Field(() => MemberRefType) member!: MemberRefType;
  @Field(() => Date) since!: Date;
}

@ObjectType('Escalation', {
  description: 'Why a case was handed up, and how it came back; internal, never in a webhook.',
})
export class EscalationType {
  @Field(() => String) reason!: string;
  @Field(() => String, { description: 'approve, reject or none: an opinion, not an outcome.' }) recommendation!: string;
  @Field(() => GraphQLJSONObject, { description: 'Check type to pass, fail or unsure (checks that ran only).' })
  assessment!: Record<string, string>;
  @Field(() => ID, { name: 'escalatedBy' }) escalated_by!: string;
  @Field(() => String, { name: 'escalatedAt' }) escalated_at!: string;
  @Field(() => ID, { nullable: true, name: 'returnedBy' }) returned_by!: string | null;
  @Field(() => String, { nullable: true, name: 'returnNote' }) return_note!: string | null;
}

@ObjectType('Review', {
  description: 'A case waiting on (or decided by) a reviewer; ids and decisions only, never applicant data.',
})
export class ReviewType {
  @Field(() => ID) id!: string;
  @Field(() => Environment, { name: 'environment' }) mode!: Environment;
  @Field(() => String) status!: string;
  @Field(() => String, { nullable: true }) decision!: string | null;
  @Field(() => String, { nullable: true, description: 'Internal; never sent to the applicant.' }) notes!: string | null;
  @Field(() => Date, { nullable: true }) reviewedAt!: Date | null;
  @Field(() => Date) createdAt!: Date;
  @Field(() => EscalationType, { nullable: true, description: 'The last escalation, kept after a return.' })
  escalation!: EscalationType | null;
}

@ObjectType('EscalationReturn')
export class EscalationReturnType {
  @Field(() => ReviewType) review!: ReviewType;
  @Field(() => ID, { nullable: true }) raisedByMemberId!: string | null;
}

@ObjectType('ReviewConnection')
export class ReviewConnection {
  @Field(() => [ReviewType]) nodes!: ReviewType[];
  @Field(() => PageInfo) pageInfo!: PageInfo;
}

@ObjectType('ReviewLock', { description: 'Your presence marker on a case and when it lapses without a refresh.' })
export class ReviewLockType {
  @Field(() => ID) memberId!: string;
  @Field(() => Date) expiresAt!: Date;
}

export { VerificationType };
