/** The error classes of the spec, each with its HTTP status. */
export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'idempotency_error'
  | 'rate_limit_error'
  | 'api_error';

export interface ApiErrorOptions {
  param?: string;
  detail?: Record<string, unknown>;
  headers?: Record<string, string>;
}

/** A failure the caller can act on; rendered as the spec's envelope by REST and as extensions by GraphQL. */
export class ApiError extends Error {
  readonly param?: string;
  readonly detail?: Record<string, unknown>;
  readonly headers?: Record<string, string>;

  constructor(
    readonly status: number,
    readonly type: ErrorType,
    readonly code: string,
    message: string,
    options: ApiErrorOptions = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.param = options.param;
    this.detail = options.detail;
    this.headers = options.headers;
  }

  /** The `error` object of the envelope. */
  toEnvelope(requestId: string): Record<string, unknown> {
    const error: Record<string, unknown> = { type: this.type, code: this.code, message: this.message };
    if (this.param !== undefined) error.param = this.param;
    error.request_id = requestId;
    if (this.detail !== undefined) error.detail = this.detail;
    return error;
  }
}

export const invalidRequest = (code: string, message: string, options?: ApiErrorOptions) =>
  new ApiError(400, 'invalid_request_error', code, message, options);

export const conflict = (code: string, message: string, options?: ApiErrorOptions) =>
  new ApiError(409, 'invalid_request_error', code, message, options);

export const parameterMissing = (param: string) =>
  invalidRequest('PARAMETER_MISSING', `Missing required parameter: ${param}.`, { param });

export const parameterInvalid = (param: string, message: string) =>
  invalidRequest('PARAMETER_INVALID', message, { param });

export const parameterUnknown = (param: string) =>
  invalidRequest('PARAMETER_UNKNOWN', `Received unknown parameter: ${param}.`, { param });

export const authenticationError = (code: string, message: string) =>
  new ApiError(401, 'authentication_error', code, message);

export const permissionError = (code: string, message: string, options?: ApiErrorOptions) =>
  new ApiError(403, 'permission_error', code, message, options);

export const notFound = (resource: string, id?: string) =>
  new ApiError(
    404,
    'not_found_error',
    'RESOURCE_NOT_FOUND',
    id ? `No such ${resource}: '${id}'.` : `No such ${resource}.`,
    {
      param: id ? 'id' : undefined,
    },
  );

export const idempotencyError = (code: string, message: string) =>
  new ApiError(409, 'idempotency_error', code, message);

export const rateLimited = (retryAfterSeconds: number) =>
  new ApiError(
    429,
    'rate_limit_error',
    'RATE_LIMITED',
    'Too many requests: the key has spent its budget. Retry after the Retry-After seconds.',
    {
      headers: { 'Retry-After': String(retryAfterSeconds) },
    },
  );

export const serviceUnavailable = (code: string, message: string) => new ApiError(503, 'api_error', code, message);

/** Anything that is not an ApiError is an internal failure; its details stay in the log. */
export const internalError = () =>
  new ApiError(
    500,
    'api_error',
    'INTERNAL_ERROR',
    'An internal error occurred. It is safe to retry with backoff; quote the request id when reporting it.',
  );

/**
 * PostgreSQL's data-exception class (SQLSTATE 22xxx: a NUL character, a malformed uuid, a value
 * out of range) means the request carried a value the store cannot hold: bad input, never a 500.
 */
export function fromDatabaseError(caught: unknown): ApiError | null {
  const code = (caught as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !/^22[0-9A-Z]{3}$/.test(code)) return null;
  return invalidRequest(
    'PARAMETER_INVALID',
    'A value in the request is not acceptable (for example a NUL character or a malformed identifier).',
  );
}
