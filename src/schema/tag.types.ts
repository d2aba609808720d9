import { Field, ID, InputType, ObjectType, registerEnumType } from 'type-graphql';
import { TAG_COLORS } from '../services/catalog/index.js';
import { Environment } from './enums.js';
import { PageInfo } from './page-info.js';

/** The twelve tag colors as a GraphQL enum (values are the REST strings). */
export const TagColor = Object.fromEntries(TAG_COLORS.map((c) => [c, c])) as { [K in (typeof TAG_COLORS)[number]]: K };
export type TagColor = (typeof TAG_COLORS)[number];
registerEnumType(TagColor, { name: 'TagColor', description: 'Tag colors; slate is the default.' });

@ObjectType('Tag', { description: 'A label for verifications and applicants; retired rather than erased.' })
export class TagType {
  @Field(() => ID) id!: string;
  @Field(() => String) name!: string;
  @Field(() => String, { description: 'Normalised name: High Risk and high-risk are one tag.' }) slug!: string;
  @Field(() => TagColor) color!: TagColor;
  @Field(() => String, { nullable: true }) description?: string | null;
  @Field(() => Environment, { name: 'environment' }) mode!: Environment;
  @Field(() => Date, { nullable: true, description: 'Set once retired: unlisted, still shown where carried.' })
  retiredAt?: Date | null;
  @Field(() => Date) createdAt!: Date;
  @Field(() => Date) updatedAt!: Date;
}

@ObjectType('TagReference', { description: 'What a verification or an applicant shows of a tag it carries.' })
export class TagReferenceType {
  @Field(() => ID) id!: string;
  @Field(() => String) name!: string;
  @Field(() => TagColor) color!: TagColor;
}

@ObjectType('TagConnection')
export class TagConnection {
  @Field(() => [TagType]) nodes!: TagType[];
  @Field(() => PageInfo) pageInfo!: PageInfo;
}

@ObjectType('TagRemoval', { description: 'The answer to taking a tag off; removing one not carried is not an error.' })
export class TagRemovalType {
  @Field(() => ID) id!: string;
  @Field(() => Boolean) removed!: boolean;
}

@InputType('CreateTagInput')
export class CreateTagInput {
  @Field(() => Environment, { nullable: true, description: 'Required when the seat holds both environments.' })
  environment?: Environment;
  @Field(() => String, { description: 'Resolves to the live tag of the same normalised name, if any.' }) name!: string;
  @Field(() => TagColor, { nullable: true }) color?: TagColor;
  @Field(() => String, { nullable: true }) description?: string;
}

@InputType('UpdateTagInput', { description: 'Only what is sent changes.' })
export class UpdateTagInput {
  @Field(() => String, { nullable: true }) name?: string;
  @Field(() => TagColor, { nullable: true }) color?: TagColor;
  @Field(() => String, { nullable: true, description: 'null clears it.' }) description?: string | null;
}
