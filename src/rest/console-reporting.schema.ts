import { z } from 'zod';
import { listQuery } from './validate.js';

const reportingShape = {
  /** `sandbox` or `live`; omitted: every environment the seat holds; one it lacks: empty figures. */
  mode: z.enum(['sandbox', 'live']).optional(),
  /** RFC 3339 date-time lower bound on creation (usage: on the metered run). */
  since: z.iso.datetime({ offset: true }).optional(),
};

export const overviewQuery = z.strictObject(reportingShape);
export const analyticsQuery = z.strictObject(reportingShape);
export const consoleUsageQuery = z.strictObject(reportingShape);
export const listPersonsQuery = listQuery(/^app_[0-9A-Za-z]+$/, { mode: reportingShape.mode });
