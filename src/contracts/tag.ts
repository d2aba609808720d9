import { z } from 'zod';
import { listOf, nullableTimestamp, type Out } from './common.js';

/** Tags, the references a tagged verification or applicant carries, and applicants. */

export const tagRef = z.object({ id: z.string(), name: z.string(), color: z.string() }).meta({ id: 'TagReference' });

export const tag = z
  .object({
    id: z.string(),
    object: z.literal('tag'),
    name: z.string(),
    slug: z.string(),
    color: z.string(),
    description: z.string().nullable(),
    created_at: nullableTimestamp,
    updated_at: nullableTimestamp,
    retired: z.literal(true).optional().meta({ description: 'Only in the DELETE answer.' }),
  })
  .meta({ id: 'Tag' });

export const tagReferenceList = listOf(tagRef, 'TagReferenceList');

export const tagRemoved = z
  .object({ id: z.string(), object: z.literal('tag'), removed: z.literal(true) })
  .meta({ id: 'TagRemoved' });

/** Non-sensitive metadata only: never identity or the person fingerprint. */
export const applicant = z
  .object({
    id: z.string(),
    object: z.literal('applicant'),
    has_identity_link: z.boolean(),
    created_at: nullableTimestamp,
    updated_at: nullableTimestamp,
  })
  .meta({ id: 'Applicant' });

export type TagRefOut = Out<typeof tagRef>;
export type TagOut = Out<typeof tag>;
export type TagReferenceListOut = Out<typeof tagReferenceList>;
export type TagRemovedOut = Out<typeof tagRemoved>;
export type ApplicantOut = Out<typeof applicant>;
