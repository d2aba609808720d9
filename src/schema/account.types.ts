import { Field, ID, ObjectType } from 'type-graphql';
import { Environment } from './enums.js';
import { PageInfo } from './page-info.js';

@ObjectType('Merchant', { description: 'The account; it has no sandbox or live state of its own.' })
export class MerchantType {
  @Field(() => ID) id!: string;
  @Field(() => String) name!: string;
  @Field(() => String) slug!: string;
  @Field(() => String) status!: string;
  @Field(() => String) tier!: string;
  @Field(() => Date) createdAt!: Date;
}

@ObjectType('Member', { description: 'A team member: role-free permissions and the environments its seat holds.' })
export class MemberType {
  @Field(() => ID) id!: string;
  @Field(() => String) email!: string;
  @Field(() => String) name!: string;
  @Field(() => [String]) permissions!: string[];
  @Field(() => [Environment]) environments!: Environment[];
  @Field(() => Date, { nullable: true, description: 'Set when the member was deactivated: no sign-in, no session.' })
  deactivatedAt?: Date | null;
  @Field(() => Date) createdAt!: Date;
}

@ObjectType('MemberConnection')
export class MemberConnection {
  @Field(() => [MemberType]) nodes!: MemberType[];
  @Field(() => PageInfo) pageInfo!: PageInfo;
}

@ObjectType('InvitedMember', { description: 'The new member and its generated password, shown once.' })
export class InvitedMemberType {
  @Field(() => MemberType) member!: MemberType;
  @Field(() => String) password!: string;
}

@ObjectType('Viewer', { description: 'The signed-in member, its account and the environments its seat holds.' })
export class ViewerType {
  @Field(() => MemberType) member!: MemberType;
  @Field(() => MerchantType) merchant!: MerchantType;
  @Field(() => [Environment]) environments!: Environment[];
}
