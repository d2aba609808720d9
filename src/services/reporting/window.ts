import type { Mode } from '../../config.js';
import type { ServiceContext } from '../shared/index.js';

/** What a reporting answer covers: the environments, the lower bound, and the analyst's filters. */
export interface ReportingFilter {
  /** One environment the seat holds; omitted: every environment the seat holds. */
  mode?: Mode | null;
  /** Lower bound on the verification's creation time; null: everything on record. */
  since?: Date | null;
  flowId?: string | null;
  tagId?: string | null;
}

/**
 * The context narrowed to the environment asked for; null when the seat lacks it (the answer
 * is then empty, as the console list does, never another environment's numbers).
 */
export function reportingScope(ctx: ServiceContext, mode?: Mode | null): ServiceContext | null {
  if (!mode) return ctx;
  return ctx.modes.includes(mode) ? { ...ctx, modes: [mode] } : null;
}

const DAY_MS = 86_400_000;

/** The UTC day of a time, as YYYY-MM-DD. */
export const utcDay = (date: Date): string => date.toISOString().slice(0, 10);

/**
 * How a lower bound splits between the rollup (whole UTC days) and the rows themselves (the
 * part of the first day after `since`, when `since` is not a UTC midnight).
 */
export interface Window {
  /** First whole day the rollup answers for (inclusive), or null: every day. */
  fromDay: string | null;
  /** The partial first day read from the rows: [since, end). */
  partial: { since: Date; end: Date } | null;
}

export function windowOf(since: Date | null | undefined): Window {
  if (!since) return { fromDay: null, partial: null };
  const midnight = Date.UTC(since.getUTCFullYear(), since.getUTCMonth(), since.getUTCDate());
  if (midnight === since.getTime()) return { fromDay: utcDay(since), partial: null };
  const end = new Date(midnight + DAY_MS);
  return { fromDay: utcDay(end), partial: { since, end } };
}

/** Default window of analytics (decisions.md): 30 days ago. */
export const defaultAnalyticsSince = (now = Date.now()): Date => new Date(now - 30 * DAY_MS);

export const addDays = (day: string, days: number): string =>
  utcDay(new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS));
