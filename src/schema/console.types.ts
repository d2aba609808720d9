import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, ID, Int, ObjectType } from 'type-graphql';
import { Environment } from './enums.js';
import { PageInfo } from './page-info.js';

@ObjectType('IdentityEdit', {
  description: 'The result of a team edit: names of the changed fields and the new version, never values.',
})
export class IdentityEditType {
  @Field(() => ID) verificationId!: string;
  @Field(() => Int) version!: number;
  @Field(() => [String]) changedFields!: string[];
  @Field(() => Date) identityEditedAt!: Date;
}

@ObjectType('RevealedIdentity', {
  description: 'Fields read off the document; null when nothing is held. Every reveal is audited.',
})
export class RevealedIdentityType {
  @Field(() => ID) verificationId!: string;
  @Field(() => Int) version!: number;
  @Field(() => GraphQLJSONObject, { nullable: true }) fields!: Record<string, string> | null;
}

@ObjectType('EvidenceImage', { description: 'An evidence image with a download URL valid two minutes.' })
export class EvidenceImageType {
  @Field(() => ID) id!: string;
  @Field(() => String) kind!: string;
  @Field(() => String, { nullable: true }) side!: string | null;
  @Field(() => String) url!: string;
  @Field(() => Int) urlExpiresIn!: number;
}

@ObjectType('AuditEvent', { description: 'Who revealed or exported what, when; names and counts, never values.' })
export class AuditEventType {
  @Field(() => ID) id!: string;
  @Field(() => ID) memberId!: string;
  @Field(() => String) action!: string;
  @Field(() => Environment, { name: 'environment' }) mode!: Environment;
  @Field(() => ID, { nullable: true }) verificationId!: string | null;
  @Field(() => [String], { nullable: true }) fieldNames!: string[] | null;
  @Field(() => Int, { nullable: true }) imageCount!: number | null;
  @Field(() => Int, { nullable: true }) rowCount!: number | null;
  @Field(() => Date) createdAt!: Date;
}

@ObjectType('AuditEventConnection')
export class AuditEventConnection {
  @Field(() => [AuditEventType]) nodes!: AuditEventType[];
  @Field(() => PageInfo) pageInfo!: PageInfo;
}

@ObjectType('Activity', {
  description: 'A team member\u2019s action on a case and the surface it came through; never applicant details.',
})
export class ActivityType {
  @Field(() => ID) id!: string;
  @Field(() => ID, { nullable: true }) memberId!: string | null;
  @Field(() => String) action!: string;
  @Field(() => Environment, { name: 'environment' }) mode!: Environment;
  @Field(() => String) targetType!: string;
  @Field(() => ID) targetId!: string;
  @Field(() => String, {
    description: 'console, graphql, api, cli, or hosted (the applicant on the hosted page, e.g. consent.declined)',
  })
  surface!: string;
  @Field(() => GraphQLJSONObject, {
    nullable: true,
    description: 'What names the target besides its id: for an API key its name and key_prefix (never the secret).',
  })
  detail!: Record<string, string> | null;
  @Field(() => Date) createdAt!: Date;
}

@ObjectType('ActivityConnection')
export class ActivityConnection {
  @Field(() => [ActivityType]) nodes!: ActivityType[];
  @Field(() => PageInfo) pageInfo!: PageInfo;
}

@ObjectType('VerificationEvent', {
  description: 'An event of a verification (what webhooks carry), for its timeline; the type only, never the payload.',
})
export class VerificationEventType {
  @Field(() => ID) id!: string;
  @Field(() => String, { description: 'For example verification.approved.' }) type!: string;
  @Field(() => Date) createdAt!: Date;
}
