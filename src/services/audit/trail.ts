import { tenantSql, type Page, type PageParams, type ServiceContext } from '../shared/index.js';

/** Narrows a trail: rows about these cases (verification or review ids), rows by this member. */
export interface TrailFilter {
  subjectIds?: string[] | null;
  memberId?: string | null;
}

const SUBJECT_COLUMN = { audit_events: 'verification_id', activity_events: 'target_id' } as const;

/**
 * A page of an append-only trail table (audit_events, activity_events) of the context's account
 * and environments, newest first on (created_at, id); the cursor is the last row's id.
 */
export async function trailPage<Row extends { id: string }>(
  ctx: ServiceContext,
  table: 'audit_events' | 'activity_events',
  columns: string,
  params: PageParams,
  map: (row: Record<string, unknown>) => Row,
  filter: TrailFilter = {},
): Promise<Page<Row>> {
  const rows = await tenantSql(ctx).query<Record<string, unknown>>(
    `select ${columns} from ${table} a
      where a.merchant_id = $1 and a.mode = any($2::text[])
        and ($3::text is null or (a.created_at, a.id) < (select c.created_at, c.id from ${table} c where c.id = $3 and c.merchant_id = $1))
        and ($5::text[] is null or a.${SUBJECT_COLUMN[table]} = any($5::text[]))
        and ($6::text is null or a.member_id = $6)
      order by a.created_at desc, a.id desc limit $4`,
    [
      params.startingAfter ?? null,
      params.limit + 1,
      filter.subjectIds?.length ? filter.subjectIds : null,
      filter.memberId ?? null,
    ],
    `idv_${table}_page_filtered`,
  );
  const hasMore = rows.length > params.limit;
  const data = (hasMore ? rows.slice(0, params.limit) : rows).map(map);
  return { data, hasMore, nextCursor: hasMore ? data[data.length - 1]!.id : null };
}
