import DataLoader from 'dataloader';
import { Applicant } from '../entities/applicant.entity.js';
import { Flow } from '../entities/flow.entity.js';
import type { CheckType } from '../schema/verification.types.js';
import type { ServiceContext } from '../services/shared/index.js';
import {
  checksOfVerifications,
  decidersOf,
  verificationItemsByIds,
  type DecidedBy,
  type VerificationListItem,
} from '../services/verifications/index.js';
import { presenceOf, type Presence } from '../services/review/index.js';
import { Member } from '../entities/member.entity.js';
import { tagReferencesFor } from '../services/catalog/index.js';

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
  verification: DataLoader<string, VerificationListItem | null>;
  member: DataLoader<string, Member | null>;
  presenceByReview: DataLoader<string, Presence[]>;
  decidedBy: DataLoader<string, DecidedBy>;
}

/** Rows by id, in the order of `ids`; ids the caller may not read give null. */
function byId<T extends { id: string }>(ids: readonly string[], rows: T[]): (T | null)[] {
  const found = new Map(rows.map((row) => [row.id, row]));
  return ids.map((id) => found.get(id) ?? null);
}

function createLoaders(ctx: ServiceContext): Loaders {
  // ctx.em carries the request's tenancy filters, so every loader reads only the caller's rows.
  return {
    checksByVerification: new DataLoader(async (ids) => {
      const checks = await checksOfVerifications(ctx, ids);
      return ids.map((id) => checks.get(id)!.map(({ position: _position, ...check }) => check as CheckType));
    }),
    tagsByVerification: new DataLoader(async (ids) => {
      const tags = await tagReferencesFor(ctx, [...ids]);
      return ids.map((id) => tags.get(id) ?? []);
    }),
    flow: new DataLoader(async (ids) => byId(ids, await ctx.em.find(Flow, { id: { $in: [...ids] } }))),
    applicant: new DataLoader(async (ids) => byId(ids, await ctx.em.find(Applicant, { id: { $in: [...ids] } }))),
    verification: new DataLoader(async (ids) => {
      const items = await verificationItemsByIds(ctx, ids);
      return ids.map((id) => items.get(id) ?? null);
    }),
    member: new DataLoader(async (ids) => byId(ids, await ctx.em.find(Member, { id: { $in: [...ids] } }))),
    decidedBy: new DataLoader(async (ids) => {
      const deciders = await decidersOf(ctx, [...ids]);
      return ids.map((id) => deciders.get(id) ?? null);
    }),
    presenceByReview: new DataLoader(async (ids) => {
      const presence = await presenceOf(ctx, ids);
      return ids.map((id) => presence.get(id) ?? []);
    }),
  };
}

/** The request's loaders, created on first use and cached on the request's ServiceContext. */
export function loadersOf(ctx: ServiceContext): Loaders {
  ctx.loaders ??= createLoaders(ctx);
  return ctx.loaders as Loaders;
}
