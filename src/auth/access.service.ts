import { ForbiddenException, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ApiError } from '../common/api-error';
import { prepared } from '../database/sql';
import { Codes, ErrorCode } from '../common/error-codes';
import { toId } from '../common/pipes';
import { AuthContext } from './auth-context';
import { hashToken } from './crypto';
import { grants, Permission, ProjectGrant } from './permission';
import { ResourceKind } from './access.decorator';

/** How each kind of id reaches its project, in one query. */
const RESOLVE: Record<ResourceKind, { from: string; notFound: ErrorCode }> = {
  project: { from: 'projects p', notFound: Codes.ProjectNotFound },
  dataset: { from: 'datasets r JOIN projects p ON p.id = r.project_id', notFound: Codes.DatasetNotFound },
  analysis: { from: 'analyses r JOIN projects p ON p.id = r.project_id', notFound: Codes.AnalysisNotFound },
  task: { from: 'tasks r JOIN projects p ON p.id = r.project_id', notFound: Codes.FileOrTaskNotFound },
  prediction: {
    from: 'predictions r JOIN analyses a ON a.id = r.analysis_id JOIN projects p ON p.id = a.project_id',
    notFound: Codes.PredictionNotFound,
  },
  // the other project of a prediction: its rows carry this dataset's sample ids (decisions.md)
  predictionDataset: {
    from: 'predictions r JOIN datasets d ON d.id = r.dataset_id JOIN projects p ON p.id = d.project_id',
    notFound: Codes.PredictionNotFound,
  },
};

/** The code an unknown id of this kind gets when its route declares no other (the OpenAPI document lists it). */
export function notFoundCodeOf(kind: ResourceKind): ErrorCode {
  return RESOLVE[kind].notFound;
}

/**
 * SQL condition: the project whose id is the expression `project` is readable by the user whose id is
 * parameter `user`, by the rule of grants() (the owner, or a share with read: sharing write or execute
 * records read too). For lists that mix projects, such as an analysis's predictions on datasets of
 * other projects.
 */
export function readableBy(project: string, user: string): string {
  return `(EXISTS (SELECT 1 FROM projects rp WHERE rp.id = ${project} AND rp.owner_id = ${user})
        OR EXISTS (SELECT 1 FROM project_shares rs WHERE rs.project_id = ${project} AND rs.user_id = ${user} AND rs.can_read))`;
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
    const rows: AuthRow[] = await prepared(this.db, `${AUTHENTICATED} SELECT * FROM a`, [hashToken(token)]);
    return rows.length ? this.used(authContext(rows[0])) : undefined;
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
    this.db
      .query('UPDATE tokens SET last_used_at = now() WHERE id = $1', [auth.tokenId])
      .catch((e: Error) => this.logger.warn(`could not record the use of token ${auth.tokenId}: ${e.message}`));
    return auth;
  }

  /**
   * Checks `permission` for `userId` on the project that `rawId` (of `kind`) belongs to, and returns
   * that project's id. Malformed id: badRequest-1-0-2; unknown id: the resource's notFound code;
   * no permission: HTTP 403.
   */
  async require(userId: string, permission: Permission, kind: ResourceKind, rawId: unknown, notFound?: ErrorCode): Promise<string> {
    const id = validId(kind, rawId);
    const rows: GrantRow[] = await prepared(
      this.db,
      `SELECT x.project_id, x.owner_id = $2 AS owned, s.can_read, s.can_write, s.can_execute
         FROM ${resolved(kind, '$1')} x
         LEFT JOIN project_shares s ON s.project_id = x.project_id AND s.user_id = $2`,
      [id, userId],
    );
    return granted(rows[0], permission, kind, notFound);
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
    if (!toId(rawId)) {
      const auth = await this.authenticate(token);
      return auth && { auth, grant: () => this.require(auth.userId, permission, kind, rawId, notFound) };
    }
    const rows: (AuthRow & GrantRow)[] = await prepared(
      this.db,
      `${AUTHENTICATED}
       SELECT a.*, x.project_id, x.owner_id = a.user_id AS owned, s.can_read, s.can_write, s.can_execute
         FROM a
         LEFT JOIN ${resolved(kind, '$2')} x ON true
         LEFT JOIN project_shares s ON s.project_id = x.project_id AND s.user_id = a.user_id`,
      [hashToken(token), toId(rawId)],
    );
    if (!rows.length) return undefined;
    const r = rows[0];
    return {
      auth: this.used(authContext(r)),
      grant: async () => granted(r.project_id === null ? undefined : r, permission, kind, notFound),
    };
  }
}

/** A token's last use is recorded to this precision (see AccessService.used). */
const USE_RECORD_MS = 60_000;

/** The valid token's row as CTE `a` ($1: the token's hash). */
const AUTHENTICATED = `WITH a AS (
  SELECT t.id AS token_id, u.id AS user_id, u.username
    FROM tokens t JOIN users u ON u.id = t.user_id
   WHERE t.token_hash = $1 AND t.revoked_at IS NULL AND t.expires_at > now() AND u.disabled_at IS NULL)`;

interface AuthRow {
  token_id: string;
  user_id: string;
  username: string;
}

interface GrantRow {
  project_id: string | null;
  owned: boolean;
  can_read: boolean | null;
  can_write: boolean | null;
  can_execute: boolean | null;
}

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

/** A derived table (project_id, owner_id) of the project that the id `param` of `kind` belongs to. */
function resolved(kind: ResourceKind, param: string): string {
  const alias = kind === 'project' ? 'p' : 'r';
  return `(SELECT p.id AS project_id, p.owner_id FROM ${RESOLVE[kind].from} WHERE ${alias}.id = ${param})`;
}

/** The project's id when its row grants `permission`; the resource's notFound code without a row; else 403. */
function granted(r: GrantRow | undefined, permission: Permission, kind: ResourceKind, notFound?: ErrorCode): string {
  if (!r) throw new ApiError(notFound ?? RESOLVE[kind].notFound);
  const grant: ProjectGrant = { owned: r.owned, read: !!r.can_read, write: !!r.can_write, execute: !!r.can_execute };
  if (!grants(grant, permission)) throw new ForbiddenException();
  return String(r.project_id);
}
