import { z } from 'zod';
import { deliveryAttempt, mode, timestamp, type Out } from './common.js';

/** The console's request log, delivery log and CSV exports. */

export const requestLog = z
  .object({
    id: z.string(),
    object: z.literal('request_log'),
    mode,
    api_key_id: z.string(),
    key_name: z.string().meta({ description: "The key's name when the call was made." }),
    method: z.string(),
    route: z.string().meta({
      description: 'Path with ids kept; query values that could carry identity (and unknown path segments) are `***`.',
    }),
    status: z.number().int(),
    duration_ms: z.number(),
    request_id: z.string(),
    ip: z.string().nullable().meta({ description: 'The client address truncated before storage: IPv4 /24, IPv6 /48.' }),
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
    response_code: z
      .number()
      .int()
      .nullable()
      .meta({ description: 'Status code of the last attempt that got an answer.' }),
    error: z.string().nullable().meta({ description: 'Why the last attempt failed (or why the delivery stopped).' }),
    attempts: z.array(deliveryAttempt),
    next_attempt_at: timestamp.nullable(),
    delivered_at: timestamp.nullable(),
    created_at: timestamp,
    body: z.record(z.string(), z.unknown()).optional().meta({
      description: 'The exact body sent (detail only, with verifications.reveal; otherwise absent, never null).',
    }),
  })
  .meta({ id: 'DeliveryLogEntry' });

/** A CSV document; headers X-Rows (rows returned) and X-Truncated (true when the 5,000-row cap cut it). */
export const csv = z
  .string()
  .meta({ id: 'CsvExport', description: 'CSV with a header row; X-Rows and X-Truncated report what was returned.' });

export type RequestLogOut = Out<typeof requestLog>;
export type DeliveryLogOut = Out<typeof deliveryLog>;
