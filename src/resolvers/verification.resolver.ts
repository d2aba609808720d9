import { Resolver } from 'type-graphql';

/** Stub: filled in with the verification queries and mutations. */
@Resolver()
export class VerificationResolver {}
