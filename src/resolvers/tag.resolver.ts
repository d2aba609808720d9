import { Resolver } from 'type-graphql';

/** Stub: filled in with the tag queries and mutations. */
@Resolver()
export class TagResolver {}
