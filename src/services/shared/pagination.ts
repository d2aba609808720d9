import type { EntityName, FilterQuery } from '@mikro-orm/core';
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
    const cursor = await ctx.em.findOne(entity, { id: params.startingAfter } as FilterQuery<T>, { fields: ['id', 'createdAt'] as never });
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
