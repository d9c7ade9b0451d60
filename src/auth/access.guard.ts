import { CanActivate, ExecutionContext, ForbiddenException, Injectable } from '@nestjs/common';
import { AccessService } from './access.service';
import { accessOf } from './access.decorator';
import { AuthedRequest } from './auth-context';
import { Permission } from './permission';
import { ApiError } from '../common/api-error';
import { Codes } from '../common/error-codes';

/** Reads `Authorization: Bearer <token>`; anything else is no token. */
export function bearerToken(header: string | undefined): string | undefined {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return m?.[1];
}

/**
 * The one global guard: authenticates the token, then answers a body the parser refused (see
 * AuthedRequest.bodyFault) and checks every @Access requirement of the route. A route without a
 * declaration is closed (403): access is never granted by omission.
 */
@Injectable()
export class AccessGuard implements CanActivate {
  constructor(private readonly access: AccessService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const requirements = accessOf(context.getHandler());
    if (!requirements?.length) throw new ForbiddenException();
    const req = context.switchToHttp().getRequest<AuthedRequest>();
    if (requirements.some((r) => r.permission === Permission.Public)) {
      if (req.bodyFault) throw req.bodyFault;
      return true;
    }

    const token = bearerToken(req.headers.authorization);
    if (req.bodyFault) {
      // a body or query the parser refused: answered only to a caller with a valid token
      req.auth = await this.access.authenticate(token);
      if (!req.auth) throw new ForbiddenException();
      throw req.bodyFault;
    }
    const targets = requirements.filter((r) => r.target && r.kind);
    req.projectOf = {};
    if (!targets.length) {
      const auth = await this.access.authenticate(token);
      if (!auth) throw new ForbiddenException();
      req.auth = auth;
      return true;
    }
    for (const [i, r] of targets.entries()) {
      const target = r.target!;
      const raw = target.startsWith('body.') ? (req.body as Record<string, unknown> | undefined)?.[target.slice(5)] : req.params[target];
      let projectId: string;
      if (raw === undefined || raw === null) {
        // the token still comes first: without a valid one, 403 whatever the request holds
        if (i === 0) req.auth = await this.access.authenticate(token);
        if (!req.auth) throw new ForbiddenException();
        throw new ApiError(Codes.MissingField, `${target.replace(/^body\./, '')} is required`);
      }
      if (i === 0) {
        // the first requirement shares one query with the token's check
        const checked = await this.access.authenticateAndRequire(token, r.permission, r.kind!, raw, r.notFound);
        if (!checked) throw new ForbiddenException();
        req.auth = checked.auth;
        projectId = await checked.grant();
      } else {
        projectId = await this.access.require(req.auth!.userId, r.permission, r.kind!, raw, r.notFound);
      }
      // a second requirement on the same id (a prediction's dataset) must not hide the first's project
      req.projectOf[target] ??= projectId;
    }
    return true;
  }
}
