import { createConfig, lintFromString } from '@redocly/openapi-core';
import { buildOpenApiDocument, openApiPath } from '../../src/rest/openapi/document.js';
import { ROUTES } from '../../src/rest/openapi/routes.js';
import { withTestServer } from '../support/account.js';
import type { TestServer } from '../support/test-server.js';

// Issue 19 item 7: an OpenAPI 3.1 document generated from the zod schemas, served without a
// key, covering every /v1 route with its errors, and linting clean.

let server: TestServer;
withTestServer((s) => (server = s));

describe('GET /v1/openapi.json', () => {
  it('is served without a key as an OpenAPI 3.1 document', async () => {
    const res = await server.request('/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(res.body.openapi).toBe('3.1.0');
    expect(res.body.paths['/v1/verifications'].post.responses['201']).toBeDefined();
  });

  it('documents every /v1 route of the routers, each with the error envelope for its failures', async () => {
    const doc = buildOpenApiDocument() as any;
    for (const route of ROUTES) {
      const operation = doc.paths[openApiPath(route.path)]?.[route.method];
      expect(operation).toBeDefined();
      for (const status of ['400', 'default']) {
        expect(operation.responses[status].content['application/json'].schema).toEqual({
          $ref: '#/components/schemas/ErrorEnvelope',
        });
      }
    }
    // Every route a router registers is documented (a route added without its line fails here).
    const registered = await registeredRoutes();
    const documented = new Set(ROUTES.map((r) => `${r.method.toUpperCase()} ${r.path}`));
    expect(registered.filter((r) => !documented.has(r))).toEqual([]);
  });

  it("lints clean with Redocly's recommended rules", async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({
      source: JSON.stringify(buildOpenApiDocument()),
      absoluteRef: 'openapi.json',
      config,
    });
    expect(problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`)).toEqual([]);
  });
});

/** METHOD /path of every route the /v1 routers register (their layers, read from @koa/router). */
async function registeredRoutes(): Promise<string[]> {
  const { v1Routers } = await import('../../src/rest/index.js');
  return v1Routers(server.runtime).flatMap((router) =>
    router.stack.flatMap((layer) => layer.methods.filter((m) => m !== 'HEAD').map((m) => `${m} ${layer.path}`)),
  );
}

describe('the answers are closed', () => {
  /** Objects that are open on purpose: what the engine found varies by check (each item has its code). */
  const OPEN = new Set(['components/schemas/Check/properties/findings/items']);

  it('every object of every documented answer lists its properties and allows no other', () => {
    const doc = buildOpenApiDocument() as any;
    const open: string[] = [];
    let objects = 0;
    const walk = (node: unknown, at: string) => {
      if (Array.isArray(node)) return node.forEach((item, i) => walk(item, `${at}/${i}`));
      if (!node || typeof node !== 'object') return;
      const schema = node as Record<string, unknown>;
      if (schema.type === 'object' && schema.properties) {
        objects++;
        if (schema.additionalProperties !== false && !OPEN.has(at)) open.push(at);
      }
      for (const [key, value] of Object.entries(schema)) walk(value, `${at}/${key}`);
    };
    walk(doc.components.schemas, 'components/schemas');
    for (const [path, operations] of Object.entries(doc.paths))
      for (const [method, operation] of Object.entries(operations as Record<string, any>))
        walk(operation.responses, `${method} ${path}`);
    expect(open).toEqual([]);
    // Not vacuous: the walk saw the resources' objects.
    expect(objects).toBeGreaterThan(60);
  });
});

describe('the test helper checks every /v1 answer against the document', () => {
  it('accepts a documented answer and refuses one that does not match', async () => {
    const { checkAgainstOpenApi } = await import('../support/openapi.js');
    const envelope = { error: { type: 'not_found_error', code: 'ROUTE_NOT_FOUND', message: 'x', request_id: 'req_1' } };
    expect(() => checkAgainstOpenApi('GET', '/v1/nowhere', 404, 'application/json', envelope)).not.toThrow();
    expect(() =>
      checkAgainstOpenApi('GET', '/v1/merchant', 200, 'application/json', { id: 'mer_1', object: 'merchant' }),
    ).toThrow(/does not match/);
    expect(() => checkAgainstOpenApi('GET', '/v1/merchant', 500, 'application/json', { error: { code: 'X' } })).toThrow(
      /does not match/,
    );
    expect(() => checkAgainstOpenApi('GET', '/v1/merchant', 201, 'application/json', {})).toThrow(/does not list/);
    expect(() => checkAgainstOpenApi('GET', '/v1/not-documented', 200, 'application/json', {})).toThrow(/no GET/);
  });
});
