import type { Mode } from '../../config.js';
import type { ChangeReason, Verdict, VerificationStatus } from '../../entities/verification.entity.js';
import { notFound } from '../../errors.js';
import { authorize } from '../access/index.js';
import { asDate, tenantSql, type Page, type PageParams, type ServiceContext } from '../shared/index.js';
import { reportingScope } from './window.js';

/** A person (an applicant record) with a summary of its attempts; never identity. */
export interface PersonSummary {
  id: string;
  mode: Mode;
  hasIdentityLink: boolean;
  attempts: number;
  everApproved: boolean;
  latestVerificationId: string | null;
  latestStatus: VerificationStatus | null;
  lastAttemptAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** One attempt of a person: ids, outcome and timing, never identity. */
export interface Attempt {
  id: string;
  mode: Mode;
  status: VerificationStatus;
  verdict: Verdict | null;
  score: number | null;
  reasonCodes: string[];
  changeReason: ChangeReason | null;
  flowId: string;
  createdAt: Date;
  submittedAt: Date | null;
  decidedAt: Date | null;
}

export interface Person extends PersonSummary {
  history: Attempt[];
}

/** The most recent attempts a person's record carries; `attempts` gives the full count. */
export const HISTORY_LIMIT = 100;

type Row = Record<string, unknown>;

const PERSON_COLUMNS = `a.id, a.mode, a.has_identity_link, a.created_at, a.updated_at, s.attempts, s.ever_approved, s.last_attempt_at, l.id as latest_id, l.status as latest_status`;
const PERSON_FROM = `applicants a
  cross join lateral (select count(*)::int as attempts, coalesce(bool_or(v.status = 'approved'), false) as ever_approved, max(v.created_at) as last_attempt_at
                        from verifications v where v.applicant_id = a.id and v.merchant_id = a.merchant_id and v.mode = a.mode) s
  left join lateral (select v.id, v.status from verifications v where v.applicant_id = a.id and v.merchant_id = a.merchant_id and v.mode = a.mode
                      order by v.created_at desc limit 1) l on true`;

function personOf(row: Row): PersonSummary {
  return {
    id: row.id as string,
    mode: row.mode as Mode,
    hasIdentityLink: row.has_identity_link as boolean,
    attempts: row.attempts as number,
    everApproved: row.ever_approved as boolean,
    latestVerificationId: (row.latest_id as string | null) ?? null,
    latestStatus: (row.latest_status as VerificationStatus | null) ?? null,
    lastAttemptAt: row.last_attempt_at ? asDate(row.last_attempt_at as string) : null,
    createdAt: asDate(row.created_at as string),
    updatedAt: asDate(row.updated_at as string),
  };
}

/** GET /v1/console/persons (persons.read): persons of the seat's environments, newest first. */
export async function listPersons(
  ctx: ServiceContext,
  filter: { mode?: Mode | null },
  params: PageParams,
): Promise<Page<PersonSummary>> {
  await authorize(ctx, { permission: 'persons.read' });
  const scoped = reportingScope(ctx, filter.mode);
  if (!scoped) return { data: [], hasMore: false, nextCursor: null };
  const sql = tenantSql(scoped);
  const query: unknown[] = [params.limit + 1];
  let after = '';
  if (params.startingAfter) {
    const [cursor] = await sql.query<{ created_at: string }>(
      `select created_at from applicants where merchant_id = $1 and mode = any($2::text[]) and id = $3`,
      [params.startingAfter],
    );
    // An unknown cursor is ignored: the first page (spec, Pagination).
    if (cursor) {
      query.push(cursor.created_at, params.startingAfter);
      after = `and (a.created_at, a.id) < ($4::timestamptz, $5)`;
    }
  }
  const rows = await sql.query<Row>(
    `select ${PERSON_COLUMNS} from ${PERSON_FROM}
      where a.merchant_id = $1 and a.mode = any($2::text[]) ${after}
      order by a.created_at desc, a.id desc limit $3`,
    query,
  );
  const hasMore = rows.length > params.limit;
  const data = rows.slice(0, params.limit).map(personOf);
  return { data, hasMore, nextCursor: hasMore ? data.at(-1)!.id : null };
}

/** GET /v1/console/persons/{id} (persons.read): the person and its attempts, newest first; another scope's id is 404. */
export async function getPerson(ctx: ServiceContext, id: string): Promise<Person> {
  await authorize(ctx, { permission: 'persons.read' });
  const sql = tenantSql(ctx);
  const [row] = await sql.query<Row>(
    `select ${PERSON_COLUMNS} from ${PERSON_FROM} where a.merchant_id = $1 and a.mode = any($2::text[]) and a.id = $3`,
    [id],
  );
  if (!row) throw notFound('person', id);
  const attempts = await sql.query<Row>(
    `select id, mode, status, verdict, score, reason_codes, change_reason, flow_id, created_at, submitted_at, decided_at from verifications
      where merchant_id = $1 and mode = any($2::text[]) and applicant_id = $3 order by created_at desc, id desc limit $4`,
    [id, HISTORY_LIMIT],
  );
  const history = attempts.map((a) => ({
    id: a.id as string,
    mode: a.mode as Mode,
    status: a.status as VerificationStatus,
    verdict: (a.verdict as Verdict | null) ?? null,
    score: (a.score as number | null) ?? null,
    reasonCodes: (a.reason_codes as string[]) ?? [],
    changeReason: (a.change_reason as ChangeReason | null) ?? null,
    flowId: a.flow_id as string,
    createdAt: asDate(a.created_at as string),
    submittedAt: a.submitted_at ? asDate(a.submitted_at as string) : null,
    decidedAt: a.decided_at ? asDate(a.decided_at as string) : null,
  }));
  return { ...personOf(row), history };
}
