import { Resolver } from 'type-graphql';

/** Stub: filled in with the applicant queries and mutations. */
@Resolver()
export class ApplicantResolver {}
