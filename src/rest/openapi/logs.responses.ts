import { z } from 'zod';

/** The console's logs and exports answers (see responses.ts for the conventions). */

const timestamp = z.iso.datetime({ offset: true });
const mode = z.enum(['sandbox', 'live']);

export const requestLog = z
  .object({
    id: z.string(),
    object: z.literal('request_log'),
    mode,
    api_key_id: z.string(),
    /** The key's name when the call was made. */
    key_name: z.string(),
    method: z.string(),
    /** Path with ids kept; query values that could carry identity (and unknown path segments) are `***`. */
    route: z.string(),
    status: z.number().int(),
    duration_ms: z.number(),
    request_id: z.string(),
    /** The client address truncated before storage: IPv4 /24, IPv6 /48. */
    ip: z.string().nullable(),
    created_at: timestamp,
  })
  .meta({ id: 'RequestLog' });

export const deliveryLog = z
  .object({
    id: z.string(),
    object: z.literal('webhook_delivery'),
    mode,
    endpoint_id: z.string(),
    event: z.string(),
    event_id: z.string(),
    test: z.boolean(),
    status: z.enum(['pending', 'delivered', 'failed']),
    attempt_count: z.number().int(),
    /** Status code of the last attempt that got an answer. */
    response_code: z.number().int().nullable(),
    /** Why the last attempt failed (or why the delivery stopped). */
    error: z.string().nullable(),
    attempts: z.array(z.record(z.string(), z.unknown())),
    next_attempt_at: timestamp.nullable(),
    delivered_at: timestamp.nullable(),
    created_at: timestamp,
    /** The exact body sent (detail only, with verifications.reveal; otherwise absent, never null). */
    body: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({ id: 'DeliveryLogEntry' });

/** A CSV document; headers X-Rows (rows returned) and X-Truncated (true when the 5,000-row cap cut it). */
export const csv = z
  .string()
  .meta({ id: 'CsvExport', description: 'CSV with a header row; X-Rows and X-Truncated report what was returned.' });
