import { Resolver } from 'type-graphql';

/** Stub: filled in with the flow queries and mutations. */
@Resolver()
export class FlowResolver {}
