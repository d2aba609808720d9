import type { EntityName, FilterQuery } from '@mikro-orm/core';
import { parameterInvalid } from '../../errors.js';
import type { ServiceContext } from './context.js';

export interface PageParams {
  limit: number;
  startingAfter?: string;
}

export interface Page<T> {
  data: T[];
  hasMore: boolean;
  nextCursor: string | null;
}

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

interface Cursorable {
  id: string;
  createdAt: Date;
}

/**
 * Cursor pagination for every list: newest first on the indexed (created_at, id), `limit`
 * plus one row to learn `has_more`. The cursor is the id of the last row read; an id that
 * is unknown in the caller's scope is ignored and the first page returned.
 */
export async function paginate<T extends Cursorable>(
  ctx: ServiceContext,
  entity: EntityName<T>,
  where: FilterQuery<T>,
  params: PageParams,
  options: { populate?: readonly string[] } = {},
): Promise<Page<T>> {
  const conditions: FilterQuery<T>[] = [where];
  if (params.startingAfter) {
    const cursor = await ctx.em.findOne(entity, { id: params.startingAfter } as FilterQuery<T>, {
      fields: ['id', 'createdAt'] as never,
    });
    if (cursor) {
      conditions.push({
        $or: [{ createdAt: { $lt: cursor.createdAt } }, { createdAt: cursor.createdAt, id: { $lt: cursor.id } }],
      } as FilterQuery<T>);
    }
  }
  const rows = await ctx.em.find(entity, { $and: conditions } as FilterQuery<T>, {
    orderBy: { createdAt: 'desc', id: 'desc' } as never,
    limit: params.limit + 1,
    populate: options.populate as never,
  });
  const hasMore = rows.length > params.limit;
  const data = hasMore ? rows.slice(0, params.limit) : rows;
  return { data, hasMore, nextCursor: hasMore ? data[data.length - 1].id : null };
}

/** The id shapes lists page by: a cursor of another shape cannot be an id of that list. */
export const ID_PATTERNS = {
  verification: /^vs_[0-9A-Za-z]+$/,
  flow: /^flw_[0-9A-Za-z]+$/,
  tag: /^tag_[0-9A-Za-z]+$/,
  applicant: /^app_[0-9A-Za-z]+$/,
  uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
} as const;

/**
 * A cursor checked like REST's `starting_after`: a malformed one is 400 PARAMETER_INVALID
 * naming `param`, never silently the first page. (A well-formed id unknown in the caller's
 * scope still reads the first page, as paginate() does.)
 */
export function checkedCursor(after: string | null | undefined, pattern: RegExp, param = 'after'): string | undefined {
  if (after === null || after === undefined) return undefined;
  if (!pattern.test(after)) throw parameterInvalid(param, `${param} is not an id of this list.`);
  return after;
}
