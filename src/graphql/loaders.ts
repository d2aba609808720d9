import DataLoader from 'dataloader';
import { Applicant } from '../entities/applicant.entity.js';
import { Flow } from '../entities/flow.entity.js';
import type { CheckType, VerdictEnum } from '../schema/verification.types.js';
import type { ServiceContext } from '../services/context.js';
import { asDate, preparedRows } from '../services/sql.js';
import { tagsOfVerifications } from '../services/verification.service.js';

export interface TagRef {
  id: string;
  name: string;
  color: string;
}

/** The DataLoaders of one GraphQL request; each turns a response's lookups into one query. */
export interface Loaders {
  checksByVerification: DataLoader<string, CheckType[]>;
  tagsByVerification: DataLoader<string, TagRef[]>;
  flow: DataLoader<string, Flow | null>;
  applicant: DataLoader<string, Applicant | null>;
}

/** Rows by id, in the order of `ids`; ids the caller may not read give null. */
function byId<T extends { id: string }>(ids: readonly string[], rows: T[]): (T | null)[] {
  const found = new Map(rows.map((row) => [row.id, row]));
  return ids.map((id) => found.get(id) ?? null);
}

interface CheckRow {
  id: string;
  verification_id: string;
  type: string;
  status: string;
  required: boolean;
  verdict: VerdictEnum | null;
  score: number | null;
  provider_tier: string;
  reason_codes: string[];
  created_at: string | Date;
  updated_at: string | Date;
}

/**
 * The checks of many verifications as plain rows in one prepared statement. A page of 50
 * verifications carries ~150 checks, and hydrating them as managed entities cost more than
 * the rest of the request; nothing in a GraphQL read writes them back. Raw SQL bypasses the
 * tenancy filters, so the account and the context's environments are bound here.
 */
async function checksOf(ctx: ServiceContext, ids: readonly string[]): Promise<CheckType[][]> {
  const rows = await preparedRows<CheckRow>(
    ctx.runtime.orm.em.getConnection(),
    'idv_graphql_checks_by_verification',
    `select id, verification_id, type, status, required, verdict, score, provider_tier, reason_codes, created_at, updated_at
       from checks where merchant_id = $1 and mode = any($2::text[]) and verification_id = any($3::text[])
      order by verification_id, position`,
    [ctx.merchantId, ctx.modes, [...ids]],
  );
  const grouped = new Map<string, CheckType[]>(ids.map((id) => [id, []]));
  for (const row of rows) {
    grouped.get(row.verification_id)?.push({
      id: row.id,
      type: row.type,
      status: row.status,
      required: row.required,
      verdict: row.verdict,
      score: row.score,
      providerTier: row.provider_tier,
      reasonCodes: row.reason_codes,
      createdAt: asDate(row.created_at),
      updatedAt: asDate(row.updated_at),
    });
  }
  return ids.map((id) => grouped.get(id)!);
}

function createLoaders(ctx: ServiceContext): Loaders {
  // ctx.em carries the request's tenancy filters, so every loader reads only the caller's rows.
  return {
    checksByVerification: new DataLoader((ids) => checksOf(ctx, ids)),
    tagsByVerification: new DataLoader(async (ids) => {
      const tags = await tagsOfVerifications(ctx, [...ids]);
      return ids.map((id) => tags.get(id) ?? []);
    }),
    flow: new DataLoader(async (ids) => byId(ids, await ctx.em.find(Flow, { id: { $in: [...ids] } }))),
    applicant: new DataLoader(async (ids) => byId(ids, await ctx.em.find(Applicant, { id: { $in: [...ids] } }))),
  };
}

/** The request's loaders, created on first use and cached on the request's ServiceContext. */
export function loadersOf(ctx: ServiceContext): Loaders {
  ctx.loaders ??= createLoaders(ctx);
  return ctx.loaders;
}
