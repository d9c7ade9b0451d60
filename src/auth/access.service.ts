import { ForbiddenException, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ApiError } from '../common/api-error';
import { Codes, ErrorCode } from '../common/error-codes';
import { toId } from '../common/pipes';
import { AuthContext } from './auth-context';
import { hashToken } from './crypto';
import { grants, Permission, ProjectGrant } from './permission';
import { ResourceKind } from './access.decorator';
import { AuthRow, GrantRow, grantOn, markTokenUsed, tokenUser, tokenUserAndGrant } from './auth.queries';

/** The code an unknown id of each kind gets when its route declares no other (the OpenAPI document lists it). */
const NOT_FOUND: Record<ResourceKind, ErrorCode> = {
  project: Codes.ProjectNotFound,
  dataset: Codes.DatasetNotFound,
  analysis: Codes.AnalysisNotFound,
  task: Codes.FileOrTaskNotFound,
  prediction: Codes.PredictionNotFound,
  predictionDataset: Codes.PredictionNotFound,
};

export function notFoundCodeOf(kind: ResourceKind): ErrorCode {
  return NOT_FOUND[kind];
}

/** The one place that decides who may do what. Used by the AccessGuard (and multipart routes after parsing). */
@Injectable()
export class AccessService {
  private readonly logger = new Logger('Auth');
  /** When this process last wrote each token's `last_used_at` (ms since the epoch). */
  private readonly usedAt = new Map<string, number>();

  constructor(private readonly db: DataSource) {}

  /** The user of a valid (known, unexpired, unrevoked) token, or undefined. */
  async authenticate(token: string | undefined): Promise<AuthContext | undefined> {
    if (!usable(token)) return undefined;
    const row = await tokenUser(this.db, hashToken(token));
    return row && this.used(authContext(row));
  }

  /**
   * Records that the token was used (`tokens.last_used_at`, which `cli tokens list` shows), at most once a
   * minute per token and process: a write on every request would double a request's queries. The write is
   * not awaited (the request does not wait on it); a failure is logged.
   */
  private used(auth: AuthContext): AuthContext {
    const now = Date.now();
    if (now - (this.usedAt.get(auth.tokenId) ?? 0) < USE_RECORD_MS) return auth;
    if (this.usedAt.size >= 10_000) {
      for (const [id, at] of this.usedAt) if (now - at >= USE_RECORD_MS) this.usedAt.delete(id);
    }
    this.usedAt.set(auth.tokenId, now);
    markTokenUsed(this.db, auth.tokenId).catch((e: Error) =>
      this.logger.warn(`could not record the use of token ${auth.tokenId}: ${e.message}`),
    );
    return auth;
  }

  /**
   * Checks `permission` for `userId` on the project that `rawId` (of `kind`) belongs to, and returns
   * that project's id. Malformed id: badRequest-1-0-2; unknown id: the resource's notFound code;
   * no permission: HTTP 403.
   */
  async require(userId: string, permission: Permission, kind: ResourceKind, rawId: unknown, notFound?: ErrorCode): Promise<string> {
    return granted(await grantOn(this.db, userId, kind, validId(kind, rawId)), permission, kind, notFound);
  }

  /**
   * authenticate() and then require() in one query, for a request's first requirement: the token's user
   * (undefined when the token is not valid: HTTP 403 comes before any check of the id) and `grant`, which
   * resolves to the project or throws require()'s refusal. The caller knows the user before the refusal, so
   * that an error answer of an authenticated request still names its user (in the access line).
   */
  async authenticateAndRequire(
    token: string | undefined,
    permission: Permission,
    kind: ResourceKind,
    rawId: unknown,
    notFound?: ErrorCode,
  ): Promise<{ auth: AuthContext; grant: () => Promise<string> } | undefined> {
    if (!usable(token)) return undefined;
    const id = toId(rawId);
    if (!id) {
      const auth = await this.authenticate(token);
      return auth && { auth, grant: () => this.require(auth.userId, permission, kind, rawId, notFound) };
    }
    const r = await tokenUserAndGrant(this.db, hashToken(token), kind, id);
    if (!r) return undefined;
    return {
      auth: this.used(authContext(r)),
      grant: async () => granted(r.project_id === null ? undefined : r, permission, kind, notFound),
    };
  }
}

/** A token's last use is recorded to this precision (see AccessService.used). */
const USE_RECORD_MS = 60_000;

function usable(token: string | undefined): token is string {
  return !!token && token.length <= 512;
}

function authContext(r: AuthRow): AuthContext {
  return { userId: String(r.user_id), username: r.username, tokenId: String(r.token_id) };
}

function validId(kind: ResourceKind, rawId: unknown): string {
  const id = toId(rawId);
  if (!id) {
    // a string is echoed as sent; anything else only by its kind ("[object Object]", or a rounded number, misled)
    const what =
      typeof rawId === 'string'
        ? `"${rawId.slice(0, 40)}"`
        : `(a JSON ${Array.isArray(rawId) ? 'array' : rawId === null ? 'null' : typeof rawId})`;
    throw new ApiError(Codes.MalformedId, `malformed ${kind} id ${what}: ids are positive integers, as numbers or strings of digits`);
  }
  return id;
}

/** The project's id when its row grants `permission`; the resource's notFound code without a row; else 403. */
function granted(r: GrantRow | undefined, permission: Permission, kind: ResourceKind, notFound?: ErrorCode): string {
  if (!r) throw new ApiError(notFound ?? NOT_FOUND[kind]);
  const grant: ProjectGrant = { owned: r.owned, read: !!r.can_read, write: !!r.can_write, execute: !!r.can_execute };
  if (!grants(grant, permission)) throw new ForbiddenException();
  return String(r.project_id);
}
