import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import Ajv from 'ajv';
import express from 'express';
import request from 'supertest';
import { ERROR_CODES } from '../src/common/error-codes';
import { PLOT_KINDS, PLOT_NAMES } from '../src/engine/plots';
import { checkDeclaredCodes } from '../src/openapi/check-codes';
import { API_PREFIX } from '../src/common/api-prefix';
import { ApiRoute } from '../src/openapi/routes';
import { API, createTestApp, expectError, TestApp } from './utils';

/* eslint-disable @typescript-eslint/no-explicit-any -- the document is read as the JSON it is */

const ROOT = path.resolve(__dirname, '..');
const PUBLIC = [
  'POST /api/public/v1/login',
  'GET /api/public/v1/version',
  'GET /api/public/v1/health/live',
  'GET /api/public/v1/health/ready',
  // a report link: the token in its path is the permission
  'GET /api/public/v1/sharedReport/:token',
];
/** Served by the OpenAPI module itself, not operations of the API. */
const DOCS = /\/(docs|openapi\.json|openapi\.yaml)/;

/** Every route Express really dispatches, as `METHOD /path/{param}`. */
function expressRoutes(t: TestApp): string[] {
  const instance = t.app.getHttpAdapter().getInstance() as { router?: { stack: any[] }; _router?: { stack: any[] } };
  const stack = (instance.router ?? instance._router)?.stack ?? [];
  const out: string[] = [];
  for (const layer of stack) {
    const route = layer.route as { path: string; methods: Record<string, boolean> } | undefined;
    // the documentation routes, and the catch-all that binds each request's logger (nestjs-pino), are no operations
    if (!route || DOCS.test(route.path) || route.path.includes('*') || route.path === `/${API_PREFIX}`) continue;
    for (const m of Object.keys(route.methods)) out.push(`${m.toUpperCase()} ${route.path.replace(/:(\w+)/g, '{$1}')}`);
  }
  return out.sort((a, b) => a.localeCompare(b));
}

function operations(doc: any): [string, any][] {
  const out: [string, any][] = [];
  for (const [p, item] of Object.entries<any>(doc.paths)) {
    for (const m of ['get', 'post', 'put', 'patch', 'delete']) if (item[m]) out.push([`${m.toUpperCase()} ${p}`, item[m]]);
  }
  return out.sort(([a], [b]) => a.localeCompare(b));
}

let t: TestApp;
let doc: any;
beforeAll(async () => {
  t = await createTestApp();
  const res = await t.http().get(`${API}/openapi.json`);
  expect(res.status).toBe(200);
  doc = res.body;
});
afterAll(() => t.close());

describe('the OpenAPI document', () => {
  it('has every route of the app with the same method and path, and nothing else', () => {
    const routes = expressRoutes(t);
    expect(routes.length).toBeGreaterThanOrEqual(44);
    expect(operations(doc).map(([k]) => k)).toEqual(routes);
  });

  it('gives every operation a summary, a tag, and bearer security except login, version and health', () => {
    for (const [key, op] of operations(doc)) {
      expect({ key, summary: typeof op.summary === 'string' && op.summary.length > 5, tags: op.tags?.length }).toEqual({
        key,
        summary: true,
        tags: 1,
      });
      const expected = PUBLIC.includes(key.replace(/\{(\w+)\}/g, ':$1')) ? [] : [{ bearer: [] }];
      expect({ key, security: op.security }).toEqual({ key, security: expected });
    }
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.security).toBeUndefined();
    expect(doc.servers).toEqual([{ url: '/', description: expect.any(String) }]);
  });

  it('lists for every enveloped operation its error codes, all from the catalogue, in its answer description too', () => {
    for (const [key, op] of operations(doc)) {
      if (key.includes('/health/')) continue;
      const codes: string[] = op['x-error-codes'];
      expect({ key, unknown: codes.filter((c) => !(c in ERROR_CODES)) }).toEqual({ key, unknown: [] });
      // the body parser runs before routing: every route can answer a malformed body and a busy pool
      expect(codes).toEqual(expect.arrayContaining(['badRequest-1-0-4', 'unavailable-1-0-1']));
      const listed = [...(op.responses['200'].description as string).matchAll(/^- `([^`]+)`: /gm)].map((m) => m[1]);
      expect({ key, listed }).toEqual({ key, listed: codes });
      // a document (the report): the HTML, or the ErrorEnvelope
      const content = op.responses['200'].content;
      if (content['text/html']) {
        expect({ key, html: content['text/html'].schema.type, json: content['application/json'].schema.$ref }).toEqual({
          key,
          html: 'string',
          json: '#/components/schemas/ErrorEnvelope',
        });
        continue;
      }
      // a file (a model's ONNX file): the bytes, or the ErrorEnvelope
      if (content['application/octet-stream']) {
        expect({ key, file: content['application/octet-stream'].schema, json: content['application/json'].schema.$ref }).toEqual({
          key,
          file: expect.objectContaining({ type: 'string', format: 'binary' }),
          json: '#/components/schemas/ErrorEnvelope',
        });
        continue;
      }
      // the answer: <Payload>Response, the success envelope <Payload>Success or the ErrorEnvelope
      const answer = content['application/json'].schema.$ref.split('/').pop();
      expect(answer).toMatch(/^\w+Response$/);
      const [success, error] = doc.components.schemas[answer].oneOf.map((r: any) => doc.components.schemas[r.$ref.split('/').pop()]);
      expect(success.properties.status.enum).toEqual(['success']);
      expect(success.required).toEqual(['status', 'payload']);
      expect(doc.components.schemas[success.properties.payload.$ref.split('/').pop()]).toBeInstanceOf(Object);
      expect(error).toBe(doc.components.schemas.ErrorEnvelope);
    }
    expect(doc.components.schemas.ErrorEnvelope).toMatchObject({
      required: ['status', 'code', 'message'],
      properties: { status: { enum: ['error'] }, code: { type: 'string' }, message: { type: 'string' } },
    });
  });

  it('names every schema a generator makes a type of: answers, error bodies, no inline objects in a oneOf', () => {
    const inline: string[] = [];
    for (const [key, op] of operations(doc)) {
      for (const [status, response] of Object.entries<any>(op.responses)) {
        // every response has a schema, a named one for JSON (HTTP 403, 404 and 500 included)
        expect({ key, status, json: response.content?.['application/json']?.schema?.$ref }).toEqual({
          key,
          status,
          json: expect.stringMatching(/^#\/components\/schemas\/\w+$/),
        });
        if (['403', '404', '500'].includes(status))
          expect(response.content['application/json'].schema.$ref).toBe('#/components/schemas/HttpError');
      }
      expect({ key, statuses: Object.keys(op.responses) }).toEqual({
        key,
        statuses:
          key.includes('/health/') || PUBLIC.includes(key.replace(/\{(\w+)\}/g, ':$1'))
            ? expect.arrayContaining(['200', '404', '500'])
            : ['200', '403', '404', '500'],
      });
    }
    // a oneOf of anonymous objects is what made openapi-generator write `OneOfobjectobject`; an object with
    // neither properties nor additionalProperties is typed as an object with no keys (Record<string, never>)
    const walk = (node: any, where: string): void => {
      if (!node || typeof node !== 'object') return;
      for (const member of node.oneOf ?? []) if (member.type === 'object' || member.properties) inline.push(where);
      if (node.type === 'object' && !node.properties && !node.additionalProperties) inline.push(`${where}: a map of nothing`);
      for (const [k, v] of Object.entries(node)) walk(v, `${where}/${k}`);
    };
    walk(doc.paths, '#/paths');
    walk(doc.components.schemas, '#/components/schemas');
    expect(inline).toEqual([]);
  });

  it('has one-word tags, each listed with a description, and an opaque bearer token', () => {
    const used = new Set(operations(doc).flatMap(([, op]) => op.tags as string[]));
    expect([...used].filter((tag) => !/^[A-Za-z][A-Za-z0-9]*$/.test(tag))).toEqual([]);
    expect(used).toContain('imageDatasets');
    expect(doc.tags.map((t: any) => t.name).sort()).toEqual([...used].sort());
    for (const tag of doc.tags) expect(tag.description.length).toBeGreaterThan(5);
    expect(doc.components.securitySchemes.bearer.bearerFormat).toBeUndefined();
    expect(doc.components.securitySchemes.bearer.description).toContain('opaque');
  });

  it('describes the bodies of HTTP 403 and 404 as they are (HttpError)', async () => {
    const validate = new Ajv({ strict: false }).compile(doc.components.schemas.HttpError);
    const forbidden = await t.http().get(`${API}/project/1`);
    expect(forbidden.status).toBe(403);
    const missing = await t.http().get(`${API}/no/such/route`);
    expect(missing.status).toBe(404);
    for (const body of [forbidden.body, missing.body]) expect({ body, valid: validate(body) }).toEqual({ body, valid: true });
    expect(validate({ status: 'error' })).toBe(false);
  });

  it('lists the codes of the spec and of the access rules where they apply', () => {
    const codes = (key: string) => Object.fromEntries(operations(doc))[key]['x-error-codes'];
    expect(codes('GET /api/public/v1/analysis/{analysisId}/result')).toEqual(
      expect.arrayContaining(['notFound-120-2-1', 'notFound-120-2-3', 'badRequest-1-0-2']),
    );
    expect(codes('GET /api/public/v1/analysis/{analysisId}/result')).not.toContain('notFound-120-1-1');
    expect(codes('POST /api/public/v1/login')).toEqual(expect.arrayContaining(['auth-10-3', 'auth-10-4', 'badRequest-1-0-5']));
    expect(codes('GET /api/public/v1/projects/owned/{offset}/{count}')).toContain('badRequest-1-0-1');
    expect(codes('POST /api/public/v1/file/{fileId}/createDataset')).toEqual(
      expect.arrayContaining(['notFound-100-1-1', 'badRequest-110-0-2', 'conflict-110-0-1', 'badRequest-115-0-1']),
    );
    expect(codes('POST /api/public/v1/dataset/{datasetId}/analyze')).toEqual(
      expect.arrayContaining(['badRequest-120-0-1', 'badRequest-120-0-4', 'badRequest-120-1-7', 'notFound-110-1-1']),
    );
  });

  it("has every plot kind's schema as a component, and Plot giving each plot name its kind's schema", () => {
    expect(Object.keys(doc.components.schemas.Plot.properties)).toEqual(PLOT_NAMES);
    for (const kind of PLOT_KINDS) {
      expect(doc.components.schemas.Plot.properties[kind.name]).toEqual({ $ref: `#/components/schemas/${kind.schemaName}` });
      expect(doc.components.schemas[kind.schemaName]).toEqual(JSON.parse(JSON.stringify(kind.schema)));
    }
  });

  it('types ids as strings of digits, in paths and in payloads', () => {
    for (const [key, op] of operations(doc)) {
      for (const p of op.parameters.filter((x: any) => x.in === 'path' && /Id$/.test(x.name) && x.name !== 'fileId')) {
        expect({ key, name: p.name, schema: p.schema }).toEqual({
          key,
          name: p.name,
          schema: expect.objectContaining({ type: 'string', pattern: '^[1-9][0-9]{0,18}$' }),
        });
      }
    }
    expect(doc.components.schemas.CreateDatasetDto.properties.projectId).toMatchObject({ type: 'string', pattern: '^[1-9][0-9]{0,18}$' });
    expect(doc.components.schemas.Dataset.properties.datasetId).toMatchObject({ type: 'string' });
    expect(doc.components.schemas.AnalysisResult.properties.analysisId).toMatchObject({ type: 'string' });
  });

  it('is what the committed TypeScript client was generated from (npm run generate in clients/typescript)', () => {
    const generated = fs.readFileSync(path.join(ROOT, 'clients', 'typescript', 'src', 'schema.ts'), 'utf8');
    const paths = [...generated.matchAll(/^ {4}"(\/api\/[^"]+)": \{$/gm)].map((m) => m[1]);
    expect(paths.sort()).toEqual(Object.keys(doc.paths).sort());
    const schemas = generated.slice(generated.indexOf('    schemas: {'));
    for (const name of Object.keys(doc.components.schemas))
      expect({ name, generated: schemas.includes(`        ${name}: `) }).toEqual({ name, generated: true });
    // every operation's error codes, as the generated types list them (in the comment of its answer)
    for (const [key, op] of operations(doc)) {
      const section = generated.slice(generated.indexOf(`    ${op.operationId}: {`));
      const comment = section.slice(0, section.indexOf('200: {'));
      for (const c of op['x-error-codes'] as string[])
        expect({ key, code: c, generated: comment.includes(`\`${c}\`: `) }).toEqual({ key, code: c, generated: true });
    }
  });

  it('is the document npm run lint:openapi writes without a database', async () => {
    const { stdout } = await promisify(execFile)('node', [path.join(ROOT, 'dist', 'src', 'openapi', 'write-document.js')], { cwd: ROOT });
    expect(JSON.parse(stdout)).toEqual(doc);
  });
});

describe('the declared-codes check of the test app', () => {
  const routes: ApiRoute[] = [
    { method: 'GET', path: '/api/public/v1/thing/:thingId', controller: 'C', handler: 'h', public: true, codes: ['notFound-100-1-1'] },
  ];
  const app = express();
  // a success payload must have a name (as a document's schema would say)
  app.use(
    checkDeclaredCodes(
      routes,
      () => (_route, body) => ((body as any).status === 'error' || (body as any).payload?.name ? undefined : 'payload has no name'),
    ),
  );
  app.get('/api/public/v1/thing/:thingId', (req, res) => {
    if (req.params.thingId === '3') res.json({ status: 'success', payload: { name: 'three' } });
    else if (req.params.thingId === '4') res.json({ status: 'success', payload: { nom: 'four' } });
    else res.json({ status: 'error', code: req.params.thingId === '1' ? 'notFound-100-1-1' : 'notFound-110-1-1', message: 'x' });
  });

  it('lets a declared code through and turns an undeclared one into HTTP 500 naming the route', async () => {
    expectError(await request(app).get('/api/public/v1/thing/1'), 'notFound-100-1-1');
    const undeclared = await request(app).get('/api/public/v1/thing/2');
    expect(undeclared.status).toBe(500);
    expect(undeclared.body.message).toContain('"notFound-110-1-1" is not declared for GET /api/public/v1/thing/:thingId');
  });

  it('turns an answer its schema does not describe into HTTP 500 too', async () => {
    expect((await request(app).get('/api/public/v1/thing/3')).body).toEqual({ status: 'success', payload: { name: 'three' } });
    const wrong = await request(app).get('/api/public/v1/thing/4');
    expect(wrong.status).toBe(500);
    expect(wrong.body.message).toContain('C.h is not what the OpenAPI document says: payload has no name');
  });

  it('is on in the test app: every error code a test provokes must be declared for its route', () => {
    const instance = t.app.getHttpAdapter().getInstance() as { router?: { stack: any[] }; _router?: { stack: any[] } };
    const names = ((instance.router ?? instance._router)?.stack ?? []).map((l) => l.name as string);
    expect(names).toContain('checkDeclaredCodes');
  });
});
