import { z } from 'zod';
import { TAG_COLORS } from '../services/catalog/index.js';
import { listQuery } from './validate.js';

/** Request shapes of the tags, applicants and usage routers; one `/** *\/` line per field. */

export const TAG_ID_RE = /^tag_[0-9A-Za-z]+$/;
export const APPLICANT_ID_RE = /^app_[0-9A-Za-z]+$/;

export const listTagsQuery = listQuery(TAG_ID_RE);
export const listApplicantsQuery = listQuery(APPLICANT_ID_RE);

export const createTagBody = z.strictObject({
  /** Display name, 1-100 characters; compared in normalised form (High Risk = high-risk). */
  name: z.string().min(1).max(100),
  /** One of the tag colors; default `slate`. */
  color: z.enum(TAG_COLORS).optional(),
  /** Free text, at most 500 characters. */
  description: z.string().max(500).nullable().optional(),
});

export const updateTagBody = z.strictObject({
  /** New display name; renaming onto another live tag's name is 409 TAG_NAME_TAKEN. */
  name: z.string().min(1).max(100).optional(),
  /** One of the tag colors. */
  color: z.enum(TAG_COLORS).optional(),
  /** Free text, at most 500 characters; null clears it. */
  description: z.string().max(500).nullable().optional(),
});

export const taggingBody = z.strictObject({
  /** Ids of tags to apply; ids that are not the caller's or name a retired tag are ignored. */
  tags: z.array(z.string().max(100)).max(100).optional(),
  /** Names to resolve to live tags (normalised) or create. */
  names: z.array(z.string().min(1).max(100)).max(100).optional(),
});

export const usageQuery = z.strictObject({
  /** RFC 3339 date-time lower bound; omitted: everything on record. */
  since: z.iso.datetime({ offset: true }).optional(),
});
