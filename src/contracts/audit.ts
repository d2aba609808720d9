import { z } from 'zod';
import { mode, type Out } from './common.js';

/** The console's audit trail and team activity rows. */

export const auditEvent = z
  .object({
    id: z.string(),
    object: z.literal('audit_event'),
    member_id: z.string(),
    action: z.string(),
    mode,
    verification_id: z.string().nullable(),
    field_names: z.array(z.string()).nullable(),
    image_count: z.number().int().nullable(),
    row_count: z.number().int().nullable(),
    created_at: z.string(),
  })
  .meta({ id: 'AuditEvent' });

export const activity = z
  .object({
    id: z.string(),
    object: z.literal('activity'),
    member_id: z.string().nullable(),
    action: z.string(),
    mode,
    target_type: z.string(),
    target_id: z.string(),
    surface: z.enum(['console', 'graphql', 'api', 'cli', 'hosted']),
    detail: z.record(z.string(), z.string()).nullable().meta({
      description:
        'What names the target besides its id: for an API key its `name` and `key_prefix` (never the secret).',
    }),
    created_at: z.string(),
  })
  .meta({ id: 'Activity' });

export type AuditEventOut = Out<typeof auditEvent>;
export type ActivityOut = Out<typeof activity>;
