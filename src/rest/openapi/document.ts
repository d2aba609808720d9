import { z } from 'zod';
import {
  createDocument,
  type ZodOpenApiOperationObject,
  type ZodOpenApiPathsObject,
  type ZodOpenApiResponsesObject,
  type ZodOpenApiResponseObject,
} from 'zod-openapi';
import { errorEnvelope } from '../../contracts/index.js';
import { ROUTES, type RouteDoc } from './routes.js';

export const OPENAPI_PATH = '/v1/openapi.json';

const STATUS_TEXT: Record<number, string> = {
  400: 'Invalid request (PARAMETER_INVALID, PARAMETER_MISSING, PARAMETER_UNKNOWN, INVALID_JSON...)',
  401: 'Missing, invalid, revoked or expired credentials',
  403: 'The caller lacks the permission, or the key is read-only',
  404: "Not found in the caller's account and environment",
  409: 'Conflict with the current state (code says which)',
  413: 'Payload too large',
  429: 'Rate limited (Retry-After, RateLimit-* headers)',
  503: 'A dependency is unavailable; retry',
};

/** `/v1/flows/:id` as OpenAPI writes it: `/v1/flows/{id}`. */
export const openApiPath = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

const SCHEME = { key: 'secretKey', member: 'memberSession', client: 'clientToken' } as const;
/** The spec's export headers (Back-office endpoints: exports are capped at 5,000 rows). */
const csvHeaders = {
  'X-Rows': { description: 'Rows returned', schema: { type: 'integer' as const } },
  'X-Truncated': {
    description: 'true when the 5,000-row cap cut the export',
    schema: { type: 'string' as const, enum: ['true', 'false'] },
  },
};

const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: errorEnvelope } },
});

function responsesOf(route: RouteDoc): ZodOpenApiResponsesObject {
  const status = route.status ?? 200;
  const errors = new Set([
    400,
    ...(route.auth === 'none' ? [] : [401, 403, 404]),
    ...(route.auth === 'key' ? [429] : []),
    ...(route.errors ?? []),
  ]);
  const responses: Record<string, ZodOpenApiResponseObject> = {};
  const media = route.contentType ?? 'application/json';
  const headers = route.contentType === 'text/csv' ? csvHeaders : undefined;
  for (const code of [status, ...(route.alsoStatus ?? [])])
    responses[String(code)] = {
      description: route.summary,
      ...(headers ? { headers } : {}),
      content: { [media]: { schema: route.response } },
    };
  for (const code of [...errors].sort()) responses[String(code)] = errorResponse(STATUS_TEXT[code] ?? 'Error');
  responses.default = errorResponse('Any other failure (500 api_error carries only the request id)');
  return responses;
}

function operationOf(route: RouteDoc): ZodOpenApiOperationObject {
  const names = [...route.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]!);
  const path = names.length ? z.object(Object.fromEntries(names.map((name) => [name, z.string()]))) : undefined;
  const tag = route.path.startsWith('/v1/console/') ? 'console' : route.path.split('/')[2]!;
  return {
    operationId: `${route.method}${openApiPath(route.path)
      .replace(/^\/v1/, '')
      .replace(/[{}]/g, '')
      .replace(/[/_-]+(\w)/g, (_, c: string) => c.toUpperCase())}`,
    summary: route.summary,
    ...(route.permission ? { description: `Requires the key scope \`${route.permission}\`.` } : {}),
    tags: [tag],
    security: route.auth === 'none' ? [] : [{ [SCHEME[route.auth]]: [] }],
    ...(path || route.query || route.headers
      ? {
          requestParams: {
            ...(path ? { path } : {}),
            ...(route.query ? { query: route.query } : {}),
            ...(route.headers ? { header: route.headers } : {}),
          },
        }
      : {}),
    ...(route.body ? { requestBody: { required: true, content: { 'application/json': { schema: route.body } } } } : {}),
    responses: responsesOf(route),
  };
}

/** The OpenAPI 3.1 document of `/v1`, generated from the routers' zod schemas and the response schemas. */
export function buildOpenApiDocument(routes: RouteDoc[] = ROUTES): ReturnType<typeof createDocument> {
  const paths: ZodOpenApiPathsObject = {};
  for (const route of routes) {
    const path = (paths[openApiPath(route.path)] ??= {});
    (path as Record<string, ZodOpenApiOperationObject>)[route.method] = operationOf(route);
  }
  paths[OPENAPI_PATH] = {
    get: {
      operationId: 'getOpenApiDocument',
      summary: 'This document',
      tags: ['meta'],
      security: [],
      responses: {
        '200': {
          description: 'The OpenAPI 3.1 document',
          content: { 'application/json': { schema: z.record(z.string(), z.unknown()) } },
        },
        '4XX': errorResponse('A request the service could not route (e.g. 404 ROUTE_NOT_FOUND)'),
      },
    },
  };
  const tags = [
    ...new Set(
      Object.values(paths).flatMap((p) =>
        Object.values(p as Record<string, { tags?: string[] }>).flatMap((o) => o.tags ?? []),
      ),
    ),
  ].sort();
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'idv-platform API',
      version: '1',
      description: 'Identity verification: the `/v1` REST API. Errors are the error envelope (`ErrorEnvelope`).',
      license: { name: 'UNLICENSED', identifier: 'UNLICENSED' },
    },
    servers: [{ url: 'http://127.0.0.1:8080', description: 'npm start with the defaults' }],
    tags: tags.map((name) => ({
      name,
      description: name === 'console' ? 'Back office, for team members' : `The ${name} resource`,
    })),
    security: [{ secretKey: [] }],
    components: {
      securitySchemes: {
        secretKey: { type: 'http', scheme: 'bearer', description: 'A secret API key, sk_test_... or sk_live_...' },
        memberSession: {
          type: 'http',
          scheme: 'bearer',
          description: 'A console session token (POST /v1/console/sessions), mst_...',
        },
        clientToken: {
          type: 'http',
          scheme: 'bearer',
          description:
            "A session's client token (create response or POST /v1/verifications/{id}/client_token), vct_...; the hosted page only",
        },
      },
    },
    paths,
  });
}

let served: string | undefined;

/** The document as served (built once per process). */
export const openApiJson = (): string => (served ??= JSON.stringify(buildOpenApiDocument()));
