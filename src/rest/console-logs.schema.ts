import { z } from 'zod';
import { REQUEST_LOG_ID_PATTERN } from '../services/logs/index.js';
import { listQuery, UUID_RE } from './validate.js';

/** Request shapes of the console's logs and exports; one `/** *\/` line per field. */

export const DELIVERY_ID_RE = /^del_[0-9A-Za-z]+$/;

export const listRequestLogsQuery = listQuery(REQUEST_LOG_ID_PATTERN, {
  /** Only calls of this API key (its UUID id). */
  key: z.string().regex(UUID_RE, 'must be an API key id (UUID)').optional(),
  /** Only answers of this class: `2xx`, `3xx`, `4xx` or `5xx`. */
  status: z.enum(['2xx', '3xx', '4xx', '5xx']).optional(),
  /** Only routes starting with this path, e.g. `/v1/verifications`. */
  route: z.string().startsWith('/', 'must start with /').max(200, 'must be at most 200 characters').optional(),
  /** RFC 3339 date-time: calls at or after it. */
  since: z.iso.datetime({ offset: true }).optional(),
  /** RFC 3339 date-time: calls before it. */
  until: z.iso.datetime({ offset: true }).optional(),
  /** `sandbox` or `live`; omitted: every environment the seat holds. */
  mode: z.enum(['sandbox', 'live']).optional(),
});

export const listDeliveryLogQuery = listQuery(DELIVERY_ID_RE, {
  /** `pending`, `delivered` or `failed`. */
  status: z.enum(['pending', 'delivered', 'failed']).optional(),
  /** An event name, e.g. `verification.completed`. */
  event: z.string().min(1).max(60, 'must be at most 60 characters').optional(),
});

/** Replay takes no body fields. */
export const replayBody = z.strictObject({});

export const exportVerificationsBody = z.strictObject({
  /** RFC 3339 date-time: verifications created at or after it; omitted: everything on record (newest 5,000). */
  since: z.iso.datetime({ offset: true }).optional(),
  /** Adds the applicant's identity columns (audited as export.verifications_with_identity). Default false. */
  include_identity: z.boolean().optional(),
  /** `sandbox` or `live`; omitted: every environment the seat holds. */
  mode: z.enum(['sandbox', 'live']).optional(),
});

export const exportUsageBody = z.strictObject({
  /** RFC 3339 date-time: usage at or after it; omitted: everything on record. */
  since: z.iso.datetime({ offset: true }).optional(),
  /** `sandbox` or `live`; omitted: every environment the seat holds. */
  mode: z.enum(['sandbox', 'live']).optional(),
});
