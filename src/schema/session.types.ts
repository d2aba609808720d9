import { Field, ObjectType } from 'type-graphql';

@ObjectType('ConsoleSession', {
  description: 'A team-member session: send the token as "Authorization: Bearer <token>"; shown once.',
})
export class ConsoleSessionType {
  @Field(() => String) token!: string;
  @Field(() => Date) expiresAt!: Date;
}
