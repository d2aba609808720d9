import { z } from 'zod';

/**
 * Building blocks of the output contracts: every `/v1` body is one zod schema in this folder.
 * The REST presenters return `z.output<typeof schema>` (a missing or extra field does not
 * compile), the OpenAPI document renders the same schemas, and the GraphQL drift test
 * (test/graphql/contracts.test.ts) compares the type-graphql classes against them.
 */

/** RFC 3339 in UTC, as `Date.toISOString()` writes it. */
export const timestamp = z.iso.datetime({ offset: true });
export const nullableTimestamp = timestamp.nullable();
export const mode = z.enum(['sandbox', 'live']);
export const access = z.enum(['read_write', 'read_only']);

/** One attempt to deliver a webhook (the delivery log and GET .../deliveries). */
export const deliveryAttempt = z
  .object({
    at: z.string(),
    status_code: z.number().int().nullable().meta({ description: "The receiver's status; null when none came." }),
    error: z.string().nullable(),
    duration_ms: z.number(),
    deferred: z
      .boolean()
      .optional()
      .meta({ description: 'A 429/503 deferral: it does not consume an attempt of the retry ladder.' }),
  })
  .meta({ id: 'DeliveryAttempt' });

export const errorEnvelope = z
  .object({
    error: z.object({
      type: z.string().meta({
        description:
          'invalid_request_error, authentication_error, permission_error, not_found_error, rate_limit_error, api_error.',
      }),
      code: z.string().meta({ description: 'Machine-readable code, e.g. PARAMETER_INVALID.' }),
      message: z.string(),
      param: z.string().optional().meta({ description: 'The offending parameter, as a dotted path.' }),
      request_id: z.string(),
      detail: z
        .record(z.string(), z.unknown())
        .optional()
        .meta({ description: 'Code-specific details (e.g. ALREADY_VERIFIED names the matching verification).' }),
    }),
  })
  .meta({ id: 'ErrorEnvelope', description: "Every failure: the spec's error envelope." });

/** A page of `item` in the list envelope. */
export const listOf = <T extends z.ZodType>(item: T, id: string) =>
  z
    .object({
      object: z.literal('list'),
      data: z.array(item),
      has_more: z.boolean(),
      next_cursor: z.string().nullable().meta({ description: 'Pass as `starting_after` for the next page.' }),
    })
    .meta({ id });

/** What a presenter of `schema` returns. */
export type Out<T extends z.ZodType> = z.output<T>;
