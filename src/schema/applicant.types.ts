import { Field, ID, ObjectType } from 'type-graphql';
import { Environment } from './enums.js';
import { PageInfo } from './page-info.js';
import { TagReferenceType } from './tag.types.js';

@ObjectType('Applicant', { description: 'A person, created once a face has been matched. No identity data.' })
export class ApplicantType {
  @Field(() => ID) id!: string;
  @Field(() => Environment, { name: 'environment' }) mode!: Environment;
  @Field(() => Boolean) hasIdentityLink!: boolean;
  @Field(() => Date) createdAt!: Date;
  @Field(() => Date) updatedAt!: Date;
  /** Resolved by ApplicantResolver through a per-request DataLoader. */
  tags?: TagReferenceType[];
}

@ObjectType('ApplicantConnection')
export class ApplicantConnection {
  @Field(() => [ApplicantType]) nodes!: ApplicantType[];
  @Field(() => PageInfo) pageInfo!: PageInfo;
}
