import { RequestMethod, Type } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { accessOf } from '../auth/access.decorator';
import { notFoundCodeOf } from '../auth/access.service';
import { Permission } from '../auth/permission';
import { API_PREFIX } from '../common/api-prefix';
import { Codes, ErrorCode, ERROR_CODES } from '../common/error-codes';
import { API_ERRORS, API_PAYLOAD, PayloadDeclaration } from '../common/api-docs.decorators';

/** One route of the application with everything the OpenAPI document and the code check need. */
export interface ApiRoute {
  method: 'GET' | 'POST';
  /** Express form, with the prefix: `/api/public/v1/project/:projectId`. */
  path: string;
  controller: string;
  handler: string;
  public: boolean;
  payload?: PayloadDeclaration;
  /** Every error code the route can answer, in catalogue order. */
  codes: ErrorCode[];
}

/**
 * Codes any route can answer: the JSON body parser runs before routing (malformed, too large, not
 * UTF-8 or breaking the text rule, also in the query string), and a busy database pool.
 */
const EVERY_ROUTE: ErrorCode[] = [Codes.BodyTooLarge, Codes.MalformedBody, Codes.WrongType, Codes.ServiceBusy, Codes.BodyStalled];

const CATALOGUE_ORDER = new Map(Object.keys(ERROR_CODES).map((c, i) => [c, i]));

function codesOf(handler: object, path: string): ErrorCode[] {
  const codes = new Set<ErrorCode>(EVERY_ROUTE);
  for (const r of accessOf(handler) ?? []) {
    if (!r.target || !r.kind) continue;
    // the guard: a missing or malformed id, or an id the caller cannot see (unknown and forbidden look alike)
    if (r.target.startsWith('body.')) codes.add(Codes.MissingField);
    codes.add(Codes.MalformedId);
    codes.add(r.notFound ?? notFoundCodeOf(r.kind));
  }
  if (/\/:(offset|count)\b/.test(path)) codes.add(Codes.BadPagination);
  if (/\/:\w+Id\b/.test(path) && !path.includes(':fileId')) codes.add(Codes.MalformedId);
  for (const c of (Reflect.getMetadata(API_ERRORS, handler) as ErrorCode[] | undefined) ?? []) codes.add(c);
  return [...codes].sort((a, b) => (CATALOGUE_ORDER.get(a) ?? 0) - (CATALOGUE_ORDER.get(b) ?? 0));
}

const join = (...parts: string[]) =>
  '/' +
  parts
    .map((p) => p.replace(/^\/|\/$/g, ''))
    .filter(Boolean)
    .join('/');

/** Every route of these controllers, read from their decorators (no application instance needed). */
export function apiRoutes(controllers: Type[]): ApiRoute[] {
  const out: ApiRoute[] = [];
  for (const controller of controllers) {
    const base = String(Reflect.getMetadata(PATH_METADATA, controller) ?? '');
    const proto = controller.prototype as Record<string, object>;
    for (const name of Object.getOwnPropertyNames(proto)) {
      const handler = proto[name];
      if (name === 'constructor' || typeof handler !== 'function') continue;
      const paths = Reflect.getMetadata(PATH_METADATA, handler) as string | string[] | undefined;
      if (paths === undefined) continue;
      const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as number] as ApiRoute['method'];
      for (const p of Array.isArray(paths) ? paths : [paths]) {
        const path = join(API_PREFIX, base, p);
        out.push({
          method,
          path,
          controller: controller.name,
          handler: name,
          public: (accessOf(handler) ?? []).some((r) => r.permission === Permission.Public),
          payload: Reflect.getMetadata(API_PAYLOAD, handler) as PayloadDeclaration | undefined,
          codes: codesOf(handler, path),
        });
      }
    }
  }
  return out;
}

/** The route that answers `method path` (a concrete path such as `/api/public/v1/project/12`), if any. */
export function routeMatcher(routes: ApiRoute[]): (method: string, path: string) => ApiRoute | undefined {
  const compiled = routes.map((r) => ({
    r,
    re: new RegExp('^' + r.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:\w+/g, '[^/]+') + '/?$'),
  }));
  return (method, path) => compiled.find((c) => c.r.method === method && c.re.test(path))?.r;
}
