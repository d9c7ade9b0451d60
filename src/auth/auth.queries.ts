import type { DataSource, EntityManager } from 'typeorm';
import { affected, execute, prepared, rows } from '../database/sql';
import type { ResourceKind } from './access.decorator';

/**
 * The auth module's SQL: tokens and grants as the AccessGuard resolves them, login failures, and the CLI's reads
 * and changes of users and tokens (the rest goes through UserEntity and TokenEntity).
 */

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

/** The user of a valid token. */
export interface AuthRow {
  token_id: string;
  user_id: string;
  username: string;
}

/** What the caller may do in the project an id belongs to (no row: the id is unknown). */
export interface GrantRow {
  project_id: string | null;
  owned: boolean;
  can_read: boolean | null;
  can_write: boolean | null;
  can_execute: boolean | null;
}

/** How each kind of id reaches its project (`r` the row of the id, `p` its project). */
const PROJECT_OF: Record<ResourceKind, string> = {
  project: 'projects p',
  dataset: 'datasets r JOIN projects p ON p.id = r.project_id',
  analysis: 'analyses r JOIN projects p ON p.id = r.project_id',
  task: 'tasks r JOIN projects p ON p.id = r.project_id',
  prediction: 'predictions r JOIN analyses a ON a.id = r.analysis_id JOIN projects p ON p.id = a.project_id',
  // the other project of a prediction: its rows carry this dataset's sample ids (docs/decisions.md)
  predictionDataset: 'predictions r JOIN datasets d ON d.id = r.dataset_id JOIN projects p ON p.id = d.project_id',
};

/** A derived table (project_id, owner_id) of the project that the id `param` of `kind` belongs to. */
function resolved(kind: ResourceKind, param: string): string {
  const alias = kind === 'project' ? 'p' : 'r';
  return `(SELECT p.id AS project_id, p.owner_id FROM ${PROJECT_OF[kind]} WHERE ${alias}.id = ${param})`;
}

/** The valid token's row as CTE `a` ($1: the token's hash). */
const AUTHENTICATED = `WITH a AS (
  SELECT t.id AS token_id, u.id AS user_id, u.username
    FROM tokens t JOIN users u ON u.id = t.user_id
   WHERE t.token_hash = $1 AND t.revoked_at IS NULL AND t.expires_at > now() AND u.disabled_at IS NULL)`;

/** The user of the token whose hash is `tokenHash`, when it is valid (known, unexpired, unrevoked, user enabled). */
export async function tokenUser(db: DataSource, tokenHash: Buffer): Promise<AuthRow | undefined> {
  const [row] = await prepared<AuthRow>(db, `${AUTHENTICATED} SELECT * FROM a`, [tokenHash]);
  return row;
}

export async function markTokenUsed(db: DataSource, tokenId: string): Promise<void> {
  await execute(db, 'UPDATE tokens SET last_used_at = now() WHERE id = $1', [tokenId]);
}

/** What `userId` may do in the project that the id of `kind` belongs to; undefined for an unknown id. */
export async function grantOn(db: DataSource, userId: string, kind: ResourceKind, id: string): Promise<GrantRow | undefined> {
  const [row] = await prepared<GrantRow>(
    db,
    `SELECT x.project_id, x.owner_id = $2 AS owned, s.can_read, s.can_write, s.can_execute
       FROM ${resolved(kind, '$1')} x
       LEFT JOIN project_shares s ON s.project_id = x.project_id AND s.user_id = $2`,
    [id, userId],
  );
  return row;
}

/** tokenUser and grantOn in one query: undefined for an invalid token; `project_id` null for an unknown id. */
export async function tokenUserAndGrant(
  db: DataSource,
  tokenHash: Buffer,
  kind: ResourceKind,
  id: string,
): Promise<(AuthRow & GrantRow) | undefined> {
  const [row] = await prepared<AuthRow & GrantRow>(
    db,
    `${AUTHENTICATED}
     SELECT a.*, x.project_id, x.owner_id = a.user_id AS owned, s.can_read, s.can_write, s.can_execute
       FROM a
       LEFT JOIN ${resolved(kind, '$2')} x ON true
       LEFT JOIN project_shares s ON s.project_id = x.project_id AND s.user_id = a.user_id`,
    [tokenHash, id],
  );
  return row;
}

/** The failed logins that decide whether a login is refused: by name and by address, within the window. */
export interface FailureLimits {
  perUser: number;
  perAddress: number;
  windowSeconds: number;
}

/** Whether either key has reached its limit of failed logins within the window. */
export async function loginBlocked(db: DataSource, userKey: string, addressKey: string | null, limits: FailureLimits): Promise<boolean> {
  const [row] = await prepared<{ blocked: boolean }>(
    db,
    `SELECT count(*) FILTER (WHERE key = $1) >= $3 OR count(*) FILTER (WHERE key = $2) >= $4 AS blocked
       FROM login_failures WHERE key IN ($1, $2) AND failed_at > now() - make_interval(secs => $5)`,
    [userKey, addressKey, limits.perUser, limits.perAddress, limits.windowSeconds],
  );
  return row.blocked;
}

/** Records a failed login under both keys, dropping the failures older than the window. */
export async function recordLoginFailure(db: DataSource, userKey: string, addressKey: string | null, windowSeconds: number): Promise<void> {
  await prepared(
    db,
    `WITH expired AS (DELETE FROM login_failures WHERE failed_at <= now() - make_interval(secs => $3))
     INSERT INTO login_failures (key) SELECT k FROM unnest(ARRAY[$1, $2]::text[]) AS k WHERE k IS NOT NULL`,
    [userKey, addressKey, windowSeconds],
  );
}

export async function clearLoginFailures(db: DataSource, userKey: string): Promise<void> {
  await prepared(db, `DELETE FROM login_failures WHERE key = $1`, [userKey]);
}

/** A live token, as `cli tokens list` shows it (never the token). */
export interface TokenRow {
  id: string;
  created_at: Date;
  last_used_at: Date | null;
  expires_at: Date;
}

/** The user's live tokens (neither revoked nor expired), oldest first. */
export async function liveTokens(db: DataSource, userId: string): Promise<TokenRow[]> {
  return rows<TokenRow>(
    db,
    `SELECT id, created_at, last_used_at, expires_at FROM tokens
      WHERE user_id = $1 AND revoked_at IS NULL AND expires_at > now() ORDER BY id`,
    [userId],
  );
}

/** Revokes every live token of the user; how many. */
export async function revokeLiveTokens(db: DataSource, userId: string): Promise<number> {
  return affected(db, 'UPDATE tokens SET revoked_at = now() WHERE user_id = $1 AND revoked_at IS NULL AND expires_at > now()', [userId]);
}

/** Whether another user than `userId` has this email (compared case-insensitively). */
export async function emailTaken(db: DataSource, email: string, userId: string): Promise<boolean> {
  const [{ taken }] = await rows<{ taken: boolean }>(
    db,
    'SELECT EXISTS (SELECT 1 FROM users WHERE lower(email) = lower($1) AND id <> $2) AS taken',
    [email, userId],
  );
  return taken;
}

/** A user as `cli users list` shows it, with the projects they own and their live tokens (counts as text). */
export interface UserListRow {
  id: string;
  username: string;
  email: string | null;
  core_quota: number | null;
  disabled_at: Date | null;
  projects: string;
  tokens: string;
  created_at: Date;
}

/** Every user, oldest first. */
export async function listUsers(db: DataSource): Promise<UserListRow[]> {
  return rows<UserListRow>(
    db,
    `SELECT u.id, u.username, u.email, u.core_quota, u.disabled_at, u.created_at,
            (SELECT count(*) FROM projects p WHERE p.owner_id = u.id) AS projects,
            (SELECT count(*) FROM tokens t WHERE t.user_id = u.id AND t.revoked_at IS NULL AND t.expires_at > now()) AS tokens
       FROM users u ORDER BY u.id`,
  );
}

/** Locks the user's row to the end of `tx`: no new work of theirs starts meanwhile. */
export async function lockUser(tx: EntityManager, userId: string): Promise<void> {
  await execute(tx, 'SELECT id FROM users WHERE id = $1 FOR UPDATE', [userId]);
}

/**
 * What the user did in projects of others (tasks, analyses, predictions made with an analysis of such a project)
 * passes to that project's owner (their jobs follow in the jobs module's step, USER_DELETION_STEP); how many of each passed.
 */
export async function passWorkToProjectOwners(
  tx: EntityManager,
  userId: string,
): Promise<{ tasks: number; analyses: number; predictions: number }> {
  const pass = (sql: string) => affected(tx, sql, [userId]);
  const tasks = await pass(
    `UPDATE tasks t SET user_id = p.owner_id FROM projects p WHERE t.project_id = p.id AND t.user_id = $1 AND p.owner_id <> $1`,
  );
  const analyses = await pass(
    `UPDATE analyses a SET user_id = p.owner_id FROM projects p WHERE a.project_id = p.id AND a.user_id = $1 AND p.owner_id <> $1`,
  );
  const predictions = await pass(
    `UPDATE predictions r SET user_id = p.owner_id FROM analyses a JOIN projects p ON p.id = a.project_id
      WHERE r.analysis_id = a.id AND r.user_id = $1 AND p.owner_id <> $1`,
  );
  return { tasks, analyses, predictions };
}

/** The projects the user owns and the files they stored: what deleting the user deletes. */
export async function ownedCounts(tx: EntityManager, userId: string): Promise<{ projects: number; files: number }> {
  const [row] = await rows<{ projects: string; files: string }>(
    tx,
    `SELECT (SELECT count(*) FROM projects WHERE owner_id = $1) AS projects,
            (SELECT count(*) FROM files WHERE user_id = $1 AND state = 'stored') AS files`,
    [userId],
  );
  return { projects: Number(row.projects), files: Number(row.files) };
}

/** Deletes the user; their projects, files, shares and tokens go with them (foreign keys). */
export async function deleteUserRow(tx: EntityManager, userId: string): Promise<void> {
  await execute(tx, 'DELETE FROM users WHERE id = $1', [userId]);
}
