import type { z } from 'zod';
import { invalidRequest, parameterInvalid, parameterMissing, parameterUnknown, type ApiError } from '../../errors.js';

/** Validation shared by both surfaces: a zod schema's first problem becomes the spec's error. */

type Path = readonly PropertyKey[];

/** `applicant.email`, `checks[0].type`: the `param` of a validation error. */
export function formatParam(path: Path): string {
  return path.reduce<string>(
    (out, part) => (typeof part === 'number' ? `${out}[${part}]` : out ? `${out}.${String(part)}` : String(part)),
    '',
  );
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

/**
 * A schema's shape under other key names (top level only): the REST body's snake_case names
 * of a domain input, so one set of field rules serves both surfaces.
 */
export function renamedShape<Shape extends Record<string, z.ZodType>>(
  shape: Shape,
  names: Partial<Record<keyof Shape, string>>,
): Record<string, z.ZodType> {
  return Object.fromEntries(Object.entries(shape).map(([key, schema]) => [names[key as keyof Shape] ?? key, schema]));
}

/** The inverse of renamedShape on a parsed value: wire names back to the domain's. */
export function fromWireNames<T>(value: Record<string, unknown>, names: Record<string, string>): T {
  const back = new Map(Object.entries(names).map(([domain, wire]) => [wire, domain]));
  return Object.fromEntries(Object.entries(value).map(([key, v]) => [back.get(key) ?? key, v])) as T;
}
