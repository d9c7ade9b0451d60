import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type { OperationObject, ParameterObject, PathItemObject, ReferenceObject, SchemaObject } from '@nestjs/swagger';
import { ERROR_CODES } from '../common/error-codes';
import { SERVICE_VERSION } from '../version';
import { ApiRoute } from './routes';
import { ID_PATTERN, refTo as ref } from '../common/api-schema';
import { Components, componentName } from './components';
import { answerSchema, ERROR_ENVELOPE, HTTP_ERROR, successEnvelope } from './envelopes';

const DESCRIPTION = `Automated machine-learning analyses: projects, datasets, analyses, plots, predictions.

Every JSON answer is an envelope with HTTP 200: \`{ "status": "success", "payload": ... }\` or
\`{ "status": "error", "code": "...", "message": "..." }\`. \`code\` is for programs (each operation lists
the codes it can answer in \`x-error-codes\`); \`message\` is for humans. Each operation's answer is the
named schema \`<Payload>Response\`: its success envelope \`<Payload>Success\` or the \`ErrorEnvelope\`.
HTTP 403 means authorization failed (no valid token, or no permission on the project); HTTP 404 an
undefined endpoint; HTTP 500 a fault of the service (their bodies, \`HttpError\`, are not part of the API).

Log in with \`POST /api/public/v1/login\`, then send \`Authorization: Bearer <token>\`.`;

const BEARER = `An opaque token (a random string, not a JWT): the \`token\` of POST /api/public/v1/login (or of the CLI's
\`tokens create\`), sent as \`Authorization: Bearer <token>\`. It is valid until logout, revocation or TOKEN_TTL_HOURS.`;

/** What each tag holds (a tag the controllers add without a line here is described by its words). */
const TAGS: Record<string, string> = {
  auth: 'log in and out',
  operations: 'version and health of the service',
  projects: 'projects and their sharing',
  datasets: 'uploaded files and the tabular datasets made from them',
  imageDatasets: 'image datasets: a CSV of samples, then one image per sample',
  analyses: 'analyses: check, start, status, result',
  plots: "the plots of an analysis' models",
  predictions: 'a model of an analysis applied to a dataset',
  reports: 'the report of an analysis: one self-contained HTML page',
};

const METHODS = ['get', 'post'] as const;

/** `/api/public/v1/project/{projectId}` -> `/api/public/v1/project/:projectId` */
const expressPath = (openApiPath: string) => openApiPath.replace(/\{(\w+)\}/g, ':$1');

/** Path parameters as the spec has them: ids are strings of digits, pagination non-negative integers. */
function pathParameterSchema(name: string): SchemaObject {
  if (name === 'fileId') return { type: 'string', pattern: '^[A-Za-z0-9._-]{1,64}$', description: 'chosen by the client' };
  if (name === 'offset') return { type: 'integer', minimum: 0 };
  if (name === 'count') return { type: 'integer', minimum: 0, maximum: 100 };
  return { type: 'string', pattern: ID_PATTERN, example: '1' };
}

const json = (schema: SchemaObject | ReferenceObject) => ({ 'application/json': { schema } });

/** The generic answers, whose bodies are not part of the API (docs/api-reference.md: Errors), described all the same. */
const HTTP_FAULTS = {
  '403': 'authorization failed: no valid token, or no permission on the project',
  '404': 'undefined endpoint',
  '500': 'the service failed (the body carries a correlation id that names the fault in its log)',
};

/**
 * The responses of one operation, all with named schemas: its answer (`<Payload>Response`: the success
 * envelope `<Payload>Success` or the `ErrorEnvelope`), and the generic 403 (unless public), 404 and 500.
 */
function describe(op: OperationObject, route: ApiRoute, tags: Map<string, string>, components: Components): void {
  if (!route.payload) throw new Error(`OpenAPI: ${route.method} ${route.path} declares no payload (@ApiEnvelope)`);
  const name = route.payload.schema ? components.add(route.payload.schema) : '';
  const table = route.codes.map((c) => `- \`${c}\`: ${ERROR_CODES[c]}`).join('\n');
  const responses: OperationObject['responses'] = {};
  if (route.payload.html) {
    responses['200'] = {
      description: `The HTML document, or the error envelope with one of these codes:\n\n${table}`,
      content: {
        'text/html': { schema: { type: 'string', description: 'one self-contained HTML document' } },
        ...json(ref('ErrorEnvelope')),
      },
    };
  } else if (route.payload.file) {
    responses['200'] = {
      description: `The file, or the error envelope with one of these codes:\n\n${table}`,
      content: {
        [route.payload.file]: { schema: { type: 'string', format: 'binary', description: 'the file' } },
        ...json(ref('ErrorEnvelope')),
      },
    };
  } else if (route.payload.raw) {
    responses['200'] = { description: 'the answer, not in an envelope', content: json(ref(name)) };
    // readiness answers 503 when the database does not answer
    if (route.path.endsWith('/ready')) responses['503'] = { description: 'the database does not answer', content: json(ref(name)) };
  } else {
    const content: Record<string, { schema: SchemaObject | ReferenceObject }> = json(ref(`${name}Response`));
    if (route.payload.csv) content['text/csv'] = { schema: { type: 'string', description: 'with format=csv: one line per row' } };
    responses['200'] = { description: `The success envelope, or the error envelope with one of these codes:\n\n${table}`, content };
  }
  for (const [status, description] of Object.entries(HTTP_FAULTS)) {
    if (status === '403' && route.public) continue;
    responses[status] = { description, content: json(ref('HttpError')) };
  }
  op.responses = responses;
  op.security = route.public ? [] : [{ bearer: [] }];
  (op as OperationObject & { 'x-error-codes': string[] })['x-error-codes'] = route.payload.raw ? [] : route.codes;
  // one word per tag: generators make module and class names of them (`image datasets` -> `imageDatasets`)
  op.tags = (op.tags ?? []).map((tag) => {
    const word = tag.replace(/\s+(\w)/g, (_, c: string) => c.toUpperCase());
    tags.set(word, tag);
    return word;
  });

  // every {name} of the path is a parameter, typed as the spec has it
  const others = ((op.parameters ?? []) as ParameterObject[]).filter((p) => p.in !== 'path');
  const names = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]);
  op.parameters = [
    ...names.map((name): ParameterObject => ({ name, in: 'path', required: true, schema: pathParameterSchema(name) })),
    ...others,
  ];
}

/** The named schemas of the answers: each enveloped payload's `<Payload>Success` and `<Payload>Response`, the two error bodies. */
function answerSchemas(routes: ApiRoute[]): Record<string, SchemaObject> {
  const out: Record<string, SchemaObject> = { ErrorEnvelope: ERROR_ENVELOPE, HttpError: HTTP_ERROR };
  for (const route of routes) {
    if (!route.payload?.schema || route.payload.raw || route.payload.html || route.payload.file) continue;
    const name = componentName(route.payload.schema);
    out[`${name}Success`] = successEnvelope(name);
    out[`${name}Response`] = answerSchema(name);
  }
  return out;
}

/**
 * The OpenAPI document of the application, from its controllers' decorators, completed from the route
 * table (payload envelopes, error codes, security, path parameters). `app` may be a preview application
 * (no database): only metadata is read.
 */
export function buildOpenApiDocument(app: INestApplication, routes: ApiRoute[]): OpenAPIObject {
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Signet API')
      .setDescription(DESCRIPTION)
      .setVersion(SERVICE_VERSION)
      .setLicense('UNLICENSED', 'https://en.wikipedia.org/wiki/Proprietary_software')
      .addServer('/', 'the service that serves this document')
      .addBearerAuth({ type: 'http', scheme: 'bearer', description: BEARER }, 'bearer')
      .build(),
    // `projectsGet`, `analysesResult`, `plotsAvailableByQuery`: names a generated client can use as they are
    {
      operationIdFactory: (controller, method) =>
        controller.replace(/Controller$/, '').replace(/^./, (c) => c.toLowerCase()) + method.replace(/^./, (c) => c.toUpperCase()),
    },
  );
  // an opaque token, not a JWT (Nest's addBearerAuth says JWT unless told otherwise)
  delete (document.components?.securitySchemes?.bearer as { bearerFormat?: string } | undefined)?.bearerFormat;
  const tags = new Map<string, string>();
  const components = new Components();
  for (const [path, item] of Object.entries<PathItemObject>(document.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const route = routes.find((r) => r.method === method.toUpperCase() && r.path === expressPath(path));
      if (!route) throw new Error(`OpenAPI: ${method.toUpperCase()} ${path} is not in the route table`);
      describe(op, route, tags, components);
    }
  }
  const schemas: Record<string, SchemaObject | ReferenceObject> = { ...document.components?.schemas, ...components.all() };
  for (const [name, schema] of Object.entries(answerSchemas(routes))) {
    if (name in schemas) throw new Error(`OpenAPI: the schema ${name} is defined twice`);
    schemas[name] = schema;
  }
  document.components = { ...document.components, schemas };
  document.tags = [...tags].sort(([a], [b]) => a.localeCompare(b)).map(([name, words]) => ({ name, description: TAGS[name] ?? words }));
  return document;
}
