import { Field, ObjectType } from 'type-graphql';

@ObjectType('PageInfo', { description: 'Cursor pagination, newest first; pass endCursor as `after`.' })
export class PageInfo {
  @Field(() => Boolean) hasNextPage!: boolean;
  @Field(() => String, { nullable: true }) endCursor!: string | null;
}
