import { z } from 'zod';
import { MODES } from '../config.js';

/** Request shapes of the foundation routers; one `/** *\/` line per field. */

export const createApiKeyBody = z.strictObject({
  /** Display name, 1-200 characters. */
  name: z.string().min(1).max(200),
  /** `sandbox` or `live`; a key caller may only mint keys of its own environment. */
  environment: z.enum(MODES as [string, ...string[]]),
  /** Scopes; omitted gives the environment's default set. */
  permissions: z.array(z.string()).max(20).optional(),
  /** `read_write` (default) or `read_only`; fixed for the key's lifetime. */
  access: z.enum(['read_write', 'read_only']).optional(),
  /** RFC 3339 date-time after which the key answers 401. */
  expires_at: z.iso.datetime({ offset: true }).nullable().optional(),
});

export const signInBody = z.strictObject({
  /** The member's email address. */
  email: z.string().min(3).max(254),
  /** The member's password. */
  password: z.string().min(1).max(200),
});
