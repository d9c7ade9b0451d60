import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type { OperationObject, ParameterObject, PathItemObject, ReferenceObject, SchemaObject } from '@nestjs/swagger';
import { ERROR_CODES } from '../common/error-codes';
import { SERVICE_VERSION } from '../version';
import { ApiRoute } from './routes';
import { ID_SCHEMA, PAYLOAD_SCHEMAS } from './schemas';

const DESCRIPTION = `Automated machine-learning analyses: projects, datasets, analyses, plots, predictions.

Every JSON answer is an envelope with HTTP 200: \`{ "status": "success", "payload": ... }\` or
\`{ "status": "error", "code": "...", "message": "..." }\`. \`code\` is for programs (each operation lists
the codes it can answer in \`x-error-codes\`); \`message\` is for humans. HTTP 403 means authorization
failed (no valid token, or no permission on the project); HTTP 404 an undefined endpoint.

Log in with \`POST /api/public/v1/login\`, then send \`Authorization: Bearer <token>\`.`;

const METHODS = ['get', 'post'] as const;

/** `/api/public/v1/project/{projectId}` -> `/api/public/v1/project/:projectId` */
const expressPath = (openApiPath: string) => openApiPath.replace(/\{(\w+)\}/g, ':$1');

/** Path parameters as the spec has them: ids are strings of digits, pagination non-negative integers. */
function pathParameterSchema(name: string): SchemaObject {
  if (name === 'fileId') return { type: 'string', pattern: '^[A-Za-z0-9._-]{1,64}$', description: 'chosen by the client' };
  if (name === 'offset') return { type: 'integer', minimum: 0 };
  if (name === 'count') return { type: 'integer', minimum: 0, maximum: 100 };
  return { ...ID_SCHEMA };
}

function errorEnvelope(codes: string[]): SchemaObject {
  return {
    type: 'object',
    title: 'error envelope',
    required: ['status', 'code', 'message'],
    properties: {
      status: { type: 'string', enum: ['error'] },
      code: { type: 'string', enum: codes, description: 'one of the codes listed for this operation' },
      message: { type: 'string', description: 'for humans; its wording is not part of the API' },
    },
  };
}

function successEnvelope(payload: SchemaObject | ReferenceObject): SchemaObject {
  return {
    type: 'object',
    title: 'success envelope',
    required: ['status', 'payload'],
    properties: { status: { type: 'string', enum: ['success'] }, payload },
  };
}

/** The responses of one operation: the success payload in its envelope beside the route's error envelope; 403 unless public. */
function describe(op: OperationObject, route: ApiRoute): void {
  const payload: SchemaObject | ReferenceObject = route.payload
    ? { $ref: `#/components/schemas/${route.payload.schema}` }
    : { type: 'object' };
  const table = route.codes.map((c) => `- \`${c}\`: ${ERROR_CODES[c]}`).join('\n');
  const responses: OperationObject['responses'] = {};
  if (route.payload?.raw) {
    responses['200'] = { description: 'the answer, not in an envelope', content: { 'application/json': { schema: payload } } };
    // readiness answers 503 when the database does not answer
    if (route.path.endsWith('/ready'))
      responses['503'] = { description: 'the database does not answer', content: { 'application/json': { schema: payload } } };
  } else {
    const content: Record<string, { schema: SchemaObject | ReferenceObject }> = {
      'application/json': { schema: { oneOf: [successEnvelope(payload), errorEnvelope(route.codes)] } },
    };
    if (route.payload?.csv) content['text/csv'] = { schema: { type: 'string', description: 'with format=csv: one line per row' } };
    responses['200'] = { description: `The success envelope, or the error envelope with one of these codes:\n\n${table}`, content };
  }
  if (!route.public) responses['403'] = { description: 'authorization failed: no valid token, or no permission on the project' };
  responses['404'] = { description: 'undefined endpoint' };
  op.responses = responses;
  op.security = route.public ? [] : [{ bearer: [] }];
  (op as OperationObject & { 'x-error-codes': string[] })['x-error-codes'] = route.payload?.raw ? [] : route.codes;

  // every {name} of the path is a parameter, typed as the spec has it
  const others = ((op.parameters ?? []) as ParameterObject[]).filter((p) => p.in !== 'path');
  const names = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]);
  op.parameters = [
    ...names.map((name): ParameterObject => ({ name, in: 'path', required: true, schema: pathParameterSchema(name) })),
    ...others,
  ];
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
      .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'the token of POST /api/public/v1/login' }, 'bearer')
      .build(),
    // `projectsGet`, `analysesResult`, `plotsAvailableByQuery`: names a generated client can use as they are
    {
      operationIdFactory: (controller, method) =>
        controller.replace(/Controller$/, '').replace(/^./, (c) => c.toLowerCase()) + method.replace(/^./, (c) => c.toUpperCase()),
    },
  );
  for (const [path, item] of Object.entries<PathItemObject>(document.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const route = routes.find((r) => r.method === method.toUpperCase() && r.path === expressPath(path));
      if (!route) throw new Error(`OpenAPI: ${method.toUpperCase()} ${path} is not in the route table`);
      describe(op, route);
    }
  }
  document.components = { ...document.components, schemas: { ...document.components?.schemas, ...PAYLOAD_SCHEMAS } };
  return document;
}
