import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { buildOpenApiDocument, openApiPath } from '../../src/rest/openapi/document.js';

/**
 * Every `/v1` answer the suite receives is checked against the served OpenAPI document: the
 * operation's schema for that status (or `default` for another failure), the error envelope
 * for a path no operation has. A mismatch throws from the request helper, failing the test.
 */

const DOC_ID = 'openapi.json';
const doc = buildOpenApiDocument() as unknown as {
  paths: Record<
    string,
    Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>
  >;
};
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ??
  addFormatsModule) as unknown as (ajv: Ajv2020) => void;
const ajv = new Ajv2020({ strict: false, validateSchema: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(doc, DOC_ID);

const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');
const compiled = new Map<string, ValidateFunction>();
const validatorAt = (ref: string): ValidateFunction => {
  let validate = compiled.get(ref);
  if (!validate) compiled.set(ref, (validate = ajv.compile({ $ref: ref })));
  return validate;
};
const ENVELOPE = `${DOC_ID}#/components/schemas/ErrorEnvelope`;

/** Documented paths as patterns, literal ones first (`/v1/verifications/lookup` before `/v1/verifications/{id}`). */
const templates = Object.keys(doc.paths)
  .map((template) => ({
    template,
    params: (template.match(/\{/g) ?? []).length,
    pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
  }))
  .sort((a, b) => a.params - b.params);

export class OpenApiMismatch extends Error {}

/** Throws OpenApiMismatch when a `/v1` answer does not match the document. */
export function checkAgainstOpenApi(
  method: string,
  url: string,
  status: number,
  contentType: string | null,
  body: unknown,
): void {
  const path = url.split('?')[0]!;
  if (!(path === '/v1' || path.startsWith('/v1/')) || method === 'HEAD') return;
  const where = `${method} ${path} answered ${status}`;
  const template = templates.find((t) => t.pattern.test(path))?.template;
  const operation = template ? doc.paths[template]![method.toLowerCase()] : undefined;
  // A documented CSV answer (exports): the media type must be CSV and the body text.
  if (operation?.responses[String(status)]?.content?.['text/csv']) {
    if (!/^text\/csv/.test(contentType ?? '') || typeof body !== 'string')
      throw new OpenApiMismatch(`${where} with content-type ${contentType}, not the documented text/csv`);
    return;
  }
  if (!/application\/json/.test(contentType ?? ''))
    throw new OpenApiMismatch(`${where} with content-type ${contentType}, not JSON (OpenAPI)`);
  let ref: string;
  if (!operation) {
    if (status < 400)
      throw new OpenApiMismatch(
        `${where}, but the OpenAPI document has no ${method} ${template ?? path}: document the route in src/rest/openapi/routes.ts`,
      );
    ref = ENVELOPE;
  } else {
    const key = operation.responses[String(status)]
      ? String(status)
      : operation.responses[`${String(status)[0]}XX`]
        ? `${String(status)[0]}XX`
        : status >= 400
          ? 'default'
          : undefined;
    if (!key)
      throw new OpenApiMismatch(`${where}, a status the OpenAPI document does not list for ${method} ${template}`);
    ref = `${DOC_ID}#/${pointer('paths', template!, method.toLowerCase(), 'responses', key, 'content', 'application/json', 'schema')}`;
  }
  const validate = validatorAt(ref);
  if (!validate(body)) {
    const problems = (validate.errors ?? [])
      .slice(0, 5)
      .map(
        (e) =>
          `${e.instancePath || '(body)'} ${e.message}${e.params && 'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : ''}`,
      );
    throw new OpenApiMismatch(
      `${where}: the body does not match the OpenAPI document: ${problems.join('; ')}\n${JSON.stringify(body).slice(0, 600)}`,
    );
  }
}

export { openApiPath };
