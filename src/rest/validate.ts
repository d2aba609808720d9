import { z } from 'zod';
import { MAX_PAGE_SIZE, DEFAULT_PAGE_SIZE, type PageParams } from '../services/shared/index.js';

export { parseInput, formatParam } from '../services/shared/index.js';

/** `limit` (1-100, default 20) and `starting_after` (an id matching `cursorPattern`). */
export function listQuery<Shape extends z.ZodRawShape>(cursorPattern: RegExp, extra: Shape = {} as Shape) {
  return z.strictObject({
    limit: z
      .string()
      .regex(/^\d+$/, 'must be an integer between 1 and 100')
      .transform(Number)
      .pipe(z.number().int().min(1, 'must be at least 1').max(MAX_PAGE_SIZE, `must be at most ${MAX_PAGE_SIZE}`))
      .optional(),
    starting_after: z.string().regex(cursorPattern, 'is not an id of this list').optional(),
    ...extra,
  });
}

export const pageParams = (query: { limit?: number; starting_after?: string }): PageParams => ({
  limit: query.limit ?? DEFAULT_PAGE_SIZE,
  startingAfter: query.starting_after,
});

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
