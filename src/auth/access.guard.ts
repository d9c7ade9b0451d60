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
 * The one global guard: authenticates the token, then checks every @Access requirement of the route.
 * A route without a declaration is closed (403): access is never granted by omission.
 */
@Injectable()
export class AccessGuard implements CanActivate {
  constructor(private readonly access: AccessService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const requirements = accessOf(context.getHandler());
    if (!requirements?.length) throw new ForbiddenException();
    if (requirements.some((r) => r.permission === Permission.Public)) return true;

    const req = context.switchToHttp().getRequest<AuthedRequest>();
    const auth = await this.access.authenticate(bearerToken(req.headers.authorization));
    if (!auth) throw new ForbiddenException();
    req.auth = auth;
    req.projectOf = {};
    for (const r of requirements) {
      if (!r.target || !r.kind) continue;
      const raw = r.target.startsWith('body.')
        ? (req.body as Record<string, unknown> | undefined)?.[r.target.slice(5)]
        : req.params[r.target];
      if (raw === undefined || raw === null) {
        throw new ApiError(Codes.MissingField, `${r.target.replace(/^body\./, '')} is required`);
      }
      const projectId = await this.access.require(auth.userId, r.permission, r.kind, raw, r.notFound);
      // a second requirement on the same id (a prediction's dataset) must not hide the first's project
      req.projectOf[r.target] ??= projectId;
    }
    return true;
  }
}
