import { z } from 'zod';
import { mode, nullableTimestamp, type Out } from './common.js';

/** Flows as `/v1/flows` answers them. */

/** Policies are documented with the request schemas (flows.schema.ts); the answer passes them through. */
const policy = z.record(z.string(), z.unknown()).nullable();

export const flow = z
  .object({
    id: z.string(),
    object: z.literal('flow'),
    name: z.string(),
    steps: z
      .array(z.record(z.string(), z.unknown()))
      .meta({ description: "Each step as stored, with its defaults filled in (as a session's checks get them)." }),
    is_default: z.boolean(),
    status: z.string(),
    sensitivity: z.number().nullable(),
    brand_name: z.string().nullable(),
    logo_url: z.string().nullable(),
    accent_color: z.string().nullable(),
    support_url: z.string().nullable(),
    privacy_url: z.string().nullable(),
    languages: z.array(z.string()),
    default_email_locale: z.string().nullable(),
    country_policy: policy,
    network_policy: policy,
    expiry_policy: policy,
    policy_tree: policy,
    accepted_document_types: z.array(z.string()),
    repeat_policy: policy,
    version: z.number().int(),
    created_at: nullableTimestamp,
    updated_at: nullableTimestamp,
  })
  .meta({ id: 'Flow' });

export const flowDeleted = z
  .object({ id: z.string(), object: z.literal('flow'), deleted: z.literal(true) })
  .meta({ id: 'FlowDeleted' });

export const flowPreview = z
  .object({
    object: z.literal('flow_preview'),
    id: z.string(),
    flow: z.string(),
    mode,
    url: z.string(),
    client_token: z.string(),
    expires_at: nullableTimestamp,
  })
  .meta({ id: 'FlowPreview' });

export type FlowOut = Out<typeof flow>;
export type FlowDeletedOut = Out<typeof flowDeleted>;
export type FlowPreviewOut = Out<typeof flowPreview>;
