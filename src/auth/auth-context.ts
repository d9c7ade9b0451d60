import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import type { ApiError } from '../common/api-error';

/** The caller, as the AccessGuard authenticated it. */
export interface AuthContext {
  userId: string;
  username: string;
  tokenId: string;
}

export interface AuthedRequest extends Request {
  auth?: AuthContext;
  /** Project id that each checked target resolved to, by target name. */
  projectOf?: Record<string, string>;
  /**
   * What was wrong with the JSON body or the query string (set by the body parser, which runs before
   * routing): answered by the AccessGuard once the token has been checked, so a caller without a valid
   * token gets 403 whatever it sent.
   */
  bodyFault?: ApiError;
}

/** `@Auth() auth: AuthContext` in a controller method. */
export const Auth = createParamDecorator((_data: unknown, ctx: ExecutionContext): AuthContext => {
  const req = ctx.switchToHttp().getRequest<AuthedRequest>();
  if (!req.auth) throw new Error('no auth context: route is not behind the AccessGuard');
  return req.auth;
});
