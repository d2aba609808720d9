import { z } from 'zod';
import { invalidRequest, parameterInvalid, parameterMissing, parameterUnknown, type ApiError } from '../errors.js';
import { MAX_PAGE_SIZE, DEFAULT_PAGE_SIZE, type PageParams } from '../services/shared/index.js';

type Path = readonly PropertyKey[];

/** `applicant.email`, `checks[0].type`: the `param` of a validation error. */
export function formatParam(path: Path): string {
  return path.reduce<string>((out, part) => (typeof part === 'number' ? `${out}[${part}]` : out ? `${out}.${String(part)}` : String(part)), '');
}

function valueAt(input: unknown, path: Path): unknown {
  let current = input;
  for (const part of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[part];
  }
  return current;
}

function issueToError(issue: z.core.$ZodIssue, input: unknown): ApiError {
  if (issue.code === 'unrecognized_keys') return parameterUnknown(formatParam([...issue.path, issue.keys[0]]));
  const param = formatParam(issue.path);
  if (issue.path.length > 0 && valueAt(input, issue.path) === undefined) return parameterMissing(param);
  return parameterInvalid(param, `Invalid ${param || 'request'}: ${issue.message}`);
}

/** Validates a request body or query against a zod schema; the first problem becomes the spec's error. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  if (input === undefined || input === null) input = {};
  if (typeof input !== 'object' || Array.isArray(input)) {
    throw invalidRequest('PARAMETER_INVALID', 'The request body must be a JSON object.');
  }
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw issueToError(result.error.issues[0], input);
}

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
