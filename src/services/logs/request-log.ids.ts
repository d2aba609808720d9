import { randomBase62 } from '../../ids.js';

/**
 * A request-log id: `rlg_`, the call's millisecond in base 36 (9 characters), 15 random
 * characters. Time-ordered, so the index grows at its right edge; and a cursor is its own
 * position: `starting_after` needs no lookup (the table has no index on `id`).
 */
export const requestLogId = (atMs: number): string => `rlg_${atMs.toString(36).padStart(9, '0')}${randomBase62(15)}`;

/** A well-formed request-log id (what `requestLogId` makes). */
export const REQUEST_LOG_ID_PATTERN = /^rlg_[0-9a-z]{9}[0-9A-Za-z]{1,40}$/;

/** The (created_at, id) position a request-log id names; undefined for a malformed one. */
export function requestLogPosition(id: string): { at: Date; id: string } | undefined {
  if (!REQUEST_LOG_ID_PATTERN.test(id)) return undefined;
  return { at: new Date(parseInt(id.slice(4, 13), 36)), id };
}
