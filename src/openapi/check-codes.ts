import type { NextFunction, Request, Response } from 'express';
import { ApiRoute, routeMatcher } from './routes';

/**
 * Test-mode middleware (AppOptions.checkErrorCodes): an error envelope whose code is not declared for
 * its route becomes HTTP 500 naming the route and the code, so the test that provoked it fails and the
 * OpenAPI document cannot fall behind what the routes really answer.
 */
export function checkDeclaredCodes(routes: ApiRoute[]) {
  const match = routeMatcher(routes);
  // named: the test app's router stack shows it is installed
  return function checkDeclaredCodes(req: Request, res: Response, next: NextFunction) {
    const json = res.json.bind(res);
    res.json = (body: unknown) => {
      const code =
        (body as { status?: unknown; code?: unknown } | null)?.status === 'error' ? (body as { code?: unknown }).code : undefined;
      const route = typeof code === 'string' ? match(req.method, req.path) : undefined;
      if (route && !route.codes.includes(code as ApiRoute['codes'][number])) {
        const message = `error code ${String(code)} is not declared for ${route.method} ${route.path} (${route.controller}.${route.handler}): add it with @ApiErrors`;
        process.stderr.write(`${message}\n`);
        res.status(500);
        return json({ statusCode: 500, message, status: 'undeclared', code });
      }
      return json(body);
    };
    next();
  };
}
