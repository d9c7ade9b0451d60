import Ajv, { ValidateFunction } from 'ajv';
import type { ResponseCheck } from '../src/openapi/check-codes';

/** An OpenAPI document, as far as the checks below read it. */
export interface OpenApiDoc {
  paths: Record<string, Record<string, unknown>>;
}

/**
 * Validates JSON answers against the document's schema of their operation's HTTP 200 answer (the success
 * envelope with its payload, or the error envelope with the route's codes). Returns what is wrong, or undefined.
 */
export function responseValidator(doc: OpenApiDoc): (method: string, openApiPath: string, body: unknown) => string | undefined {
  const ajv = new Ajv({ strict: false, allErrors: true });
  // the API writes timestamps in UTC (docs/api-reference.md)
  ajv.addFormat('date-time', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
  ajv.addSchema(doc, 'doc');
  const compiled = new Map<string, ValidateFunction>();
  return (method, openApiPath, body) => {
    if (!doc.paths[openApiPath]?.[method.toLowerCase()]) return `${method} ${openApiPath} is not in the document`;
    const pointer = ['paths', openApiPath, method.toLowerCase(), 'responses', '200', 'content', 'application/json', 'schema']
      .map((x) => x.replace(/~/g, '~0').replace(/\//g, '~1'))
      .join('/');
    let validate = compiled.get(pointer);
    if (!validate) compiled.set(pointer, (validate = ajv.compile({ $ref: `doc#/${pointer}` })));
    if (validate(body)) return undefined;
    return `${method} ${openApiPath}: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(body).slice(0, 300)}`;
  };
}

/** The test app's check of every JSON answer of a route (src/openapi/check-codes.ts). */
export function documentCheck(document: object): ResponseCheck {
  const validate = responseValidator(document as OpenApiDoc);
  return (route, body) => validate(route.method, route.path.replace(/:(\w+)/g, '{$1}'), body);
}
