import { z } from 'zod';
import { timestamp, type Out } from './common.js';

/** Uploads through the key API: the presigned URL, then the completed upload. */

export const uploadUrl = z
  .object({
    object: z.literal('upload_url'),
    upload_id: z.string(),
    key: z.string(),
    upload_url: z.string().meta({ description: 'Where to PUT the bytes (presigned).' }),
    expires_in: z.number().int().meta({ description: 'Seconds the URL stays valid.' }),
  })
  .meta({ id: 'UploadUrl' });

export const upload = z
  .object({
    object: z.literal('upload'),
    upload_id: z.string(),
    kind: z.string(),
    side: z.string().nullable(),
    document_type: z.string().nullable(),
    status: z.string(),
    created_at: timestamp,
  })
  .meta({ id: 'Upload' });

export type UploadUrlOut = Out<typeof uploadUrl>;
export type UploadOut = Out<typeof upload>;
