import type { NextFunction, Request, Response } from 'express';
import { ApiRoute, routeMatcher } from './routes';

/** What is wrong with a JSON answer of a route, by the OpenAPI document (tests supply one: test/response-schemas.ts). */
export type ResponseCheck = (route: ApiRoute, body: unknown) => string | undefined;

/**
 * Test-mode middleware (app.ts: AppOptions.checkErrorCodes): an error envelope whose code is not declared for
 * its route, or (with `check`) an answer its schema in the document does not describe, becomes HTTP 500
 * naming the route and the fault, so the test that provoked it fails and the OpenAPI document cannot
 * fall behind what the routes really answer.
 */
export function checkDeclaredCodes(routes: ApiRoute[], check: () => ResponseCheck | undefined = () => undefined) {
  const match = routeMatcher(routes);
  // named: the test app's router stack shows it is installed
  return function checkDeclaredCodes(req: Request, res: Response, next: NextFunction) {
    const json = res.json.bind(res);
    res.json = (body: unknown) => {
      const route = res.statusCode < 300 ? match(req.method, req.path) : undefined;
      if (!route) return json(body);
      const envelope = body as { status?: unknown; code?: unknown } | null;
      const code = envelope?.status === 'error' ? envelope.code : undefined;
      let fault: string | undefined;
      if (code !== undefined && !route.codes.includes(code as ApiRoute['codes'][number])) {
        fault = `error code ${JSON.stringify(code)} is not declared for ${route.method} ${route.path} (${route.controller}.${route.handler}): add it with @ApiErrors`;
      } else {
        const problem = check()?.(route, body);
        if (problem) fault = `the answer of ${route.controller}.${route.handler} is not what the OpenAPI document says: ${problem}`;
      }
      if (!fault) return json(body);
      process.stderr.write(`${fault}\n`);
      res.status(500);
      return json({ statusCode: 500, message: fault, status: 'undeclared', code });
    };
    next();
  };
}
