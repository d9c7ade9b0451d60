import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { APP_CONFIG, AppConfig } from '../config/config';
import { ApiError } from '../common/api-error';
import { Codes } from '../common/error-codes';
import { USER_DELETION_STEP, UserDeletionStep } from '../common/user-deletion';
import * as queries from './auth.queries';
import { hashPassword, hashToken, newToken, randomPassword, verifyPasswordOrDummy } from './crypto';
import { LoginThrottle } from './login-throttle';
import { UserEntity } from './user.entity';
import { TokenEntity } from './token.entity';

export class UserInputError extends Error {}

const USERNAME = /^[A-Za-z0-9._-]{1,64}$/;
const EMAIL = /^[^@\s]+@[^@\s]+$/;
/** The largest core quota a user may have (WORKER_CORES' own bound): beyond, PostgreSQL's integer overflowed in its own words. */
export const MAX_CORES = 1024;

/** A core quota, or the error that says why it is not one. */
function assertCores(cores: number | undefined): void {
  if (cores !== undefined && !(Number.isInteger(cores) && cores > 0 && cores <= MAX_CORES)) {
    throw new UserInputError(`cores must be an integer from 1 to ${MAX_CORES}`);
  }
}

/** Users and their tokens: login, logout, the CLI's user and token commands, the admin bootstrap. */
/** What deleting a user removed, and what it kept (their work in projects of others, now their owners'). */
export interface DeletedUser {
  userId: string;
  deletedProjects: number;
  deletedFiles: number;
  passedToProjectOwners: { tasks: number; analyses: number; predictions: number };
}

@Injectable()
export class UsersService {
  private readonly logger = new Logger('Users');

  private readonly throttle: LoginThrottle;

  constructor(
    private readonly db: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    /** the jobs module's part of deleting a user (its jobs follow the work that passed on) */
    @Inject(USER_DELETION_STEP) private readonly deletionStep: UserDeletionStep,
  ) {
    this.throttle = new LoginThrottle(db, config);
  }

  /** `address` is the client's, for the per-address limit of the login policy (login-throttle.ts). */
  async login(usernameOrEmail: string, password: string, address?: string): Promise<{ token: string }> {
    if (await this.throttle.blocked(usernameOrEmail, address)) {
      throw new ApiError(Codes.LoginThrottled, 'too many failed logins: try again later');
    }
    const user = await this.db
      .getRepository(UserEntity)
      .createQueryBuilder('u')
      .where('(u.username = :v OR lower(u.email) = lower(:v))', { v: usernameOrEmail })
      // A disabled user is treated as unknown (TypeORM does not parenthesise string conditions: hence the brackets).
      .andWhere('u.disabled_at IS NULL')
      .orderBy('u.username = :v', 'DESC')
      .getOne();
    // the same scrypt work whether or not the user exists (verifyPasswordOrDummy)
    if (!(await verifyPasswordOrDummy(password, user?.passwordHash)) || !user) {
      await this.throttle.failed(usernameOrEmail, address);
      throw new ApiError(Codes.InvalidCredentials, 'invalid username, email or password');
    }
    await this.throttle.succeeded(usernameOrEmail);
    return { token: await this.issueToken(user.id) };
  }

  async logout(tokenId: string): Promise<void> {
    await this.db.getRepository(TokenEntity).update({ id: tokenId }, { revokedAt: new Date() });
  }

  async issueToken(userId: string): Promise<string> {
    const token = newToken();
    await this.db.getRepository(TokenEntity).insert({
      userId,
      tokenHash: hashToken(token),
      expiresAt: new Date(Date.now() + this.config.tokenTtlHours * 3600_000),
    });
    return token;
  }

  async createUser(input: {
    username: string;
    password: string;
    email?: string;
    cores?: number;
  }): Promise<{ userId: string; token: string }> {
    if (!USERNAME.test(input.username)) throw new UserInputError('username must be 1 to 64 of A-Za-z0-9._-');
    if (input.password.length < 8) throw new UserInputError('password must have at least 8 characters');
    if (input.email !== undefined && !EMAIL.test(input.email)) {
      throw new UserInputError('email is not an email address');
    }
    assertCores(input.cores);
    const repo = this.db.getRepository(UserEntity);
    if (await repo.exists({ where: { username: input.username } })) {
      throw new UserInputError(`user ${input.username} already exists`);
    }
    // as `users set`: an email is one user's, whatever its case (login by email must name one user)
    if (input.email !== undefined && (await queries.emailTaken(this.db, input.email, '0'))) {
      throw new UserInputError(`email ${input.email} belongs to another user`);
    }
    const user = repo.create({
      username: input.username,
      email: input.email ?? null,
      passwordHash: await hashPassword(input.password),
      coreQuota: input.cores ?? null,
    });
    const saved = await repo.save(user).catch((e: unknown) => {
      // the same name created meanwhile by another process (two HTTP processes bootstrapping the admin)
      const driver = (e as { driverError?: { code?: string; constraint?: string } }).driverError;
      if (driver?.code === '23505') {
        throw new UserInputError(
          driver.constraint?.includes('email') ? `email ${input.email} belongs to another user` : `user ${input.username} already exists`,
        );
      }
      throw e;
    });
    return { userId: String(saved.id), token: await this.issueToken(saved.id) };
  }

  async createTokenFor(username: string): Promise<{ userId: string; token: string }> {
    const user = await this.db.getRepository(UserEntity).findOne({ where: { username } });
    if (!user) throw new UserInputError(`no user ${username}`);
    return { userId: String(user.id), token: await this.issueToken(user.id) };
  }

  private async userNamed(username: string): Promise<UserEntity> {
    const user = await this.db.getRepository(UserEntity).findOne({ where: { username } });
    if (!user) throw new UserInputError(`no user ${username}`);
    return user;
  }

  /** The id of the user of that name; UserInputError `no user <name>` when there is none. */
  async userIdOf(username: string): Promise<string> {
    return String((await this.userNamed(username)).id);
  }

  /** The user's live tokens (neither revoked nor expired), oldest first: never the token, only its dates. */
  async listTokens(username: string): Promise<{ tokenId: string; createdAt: string; lastUsedAt: string | null; expiresAt: string }[]> {
    const user = await this.userNamed(username);
    const rows = await queries.liveTokens(this.db, user.id);
    return rows.map((r) => ({
      tokenId: String(r.id),
      createdAt: r.created_at.toISOString(),
      lastUsedAt: r.last_used_at?.toISOString() ?? null,
      expiresAt: r.expires_at.toISOString(),
    }));
  }

  /**
   * Changes a user's core quota and/or email (validated as at creation; an email another user has is refused,
   * as login by email must name one user). Returns the user's settings after the change.
   */
  async updateUser(
    username: string,
    change: { cores?: number; email?: string },
  ): Promise<{ userId: string; username: string; email: string | null; cores: number | null }> {
    if (change.cores === undefined && change.email === undefined) throw new UserInputError('give --cores and/or --email');
    assertCores(change.cores);
    if (change.email !== undefined && !EMAIL.test(change.email)) throw new UserInputError(`email ${change.email} is not an email address`);
    const user = await this.userNamed(username);
    if (change.email !== undefined) {
      if (await queries.emailTaken(this.db, change.email, user.id))
        throw new UserInputError(`email ${change.email} belongs to another user`);
    }
    await this.db.getRepository(UserEntity).update(
      { id: user.id },
      {
        ...(change.cores !== undefined ? { coreQuota: change.cores } : {}),
        ...(change.email !== undefined ? { email: change.email } : {}),
      },
    );
    return {
      userId: String(user.id),
      username: user.username,
      email: change.email ?? user.email,
      cores: change.cores ?? user.coreQuota,
    };
  }

  /** Every user, oldest first, with how many projects they own and how many live tokens they have. */
  async listUsers(): Promise<
    {
      userId: string;
      username: string;
      email: string | null;
      cores: number | null;
      disabled: boolean;
      projects: number;
      activeTokens: number;
      createdAt: string;
    }[]
  > {
    const rows = await queries.listUsers(this.db);
    return rows.map((r) => ({
      userId: String(r.id),
      username: r.username,
      email: r.email,
      cores: r.core_quota,
      disabled: r.disabled_at !== null,
      projects: Number(r.projects),
      activeTokens: Number(r.tokens),
      createdAt: r.created_at.toISOString(),
    }));
  }

  /** Disables (or enables again) a user: a disabled user cannot log in and every token of theirs is refused. */
  async setDisabled(username: string, disabled: boolean): Promise<{ userId: string; disabled: boolean }> {
    const user = await this.userNamed(username);
    await this.db.getRepository(UserEntity).update({ id: user.id }, { disabledAt: disabled ? new Date() : null });
    return { userId: String(user.id), disabled };
  }

  /**
   * Deletes a user: their projects (and everything in them), their files, shares and tokens go with them. What they
   * did in projects of others (image and dataset tasks, analyses, predictions made with an analysis of such a
   * project) stays, and passes to that project's owner (with its queued or running jobs, which count for the owner
   * from then on). Returns what was deleted and what was kept.
   */
  async deleteUser(username: string): Promise<DeletedUser> {
    const user = await this.userNamed(username);
    return this.db.transaction(async (m) => {
      // the user's row first: no new work of theirs can start meanwhile
      await queries.lockUser(m, user.id);
      const passed = await queries.passWorkToProjectOwners(m, user.id);
      await this.deletionStep(m, user.id);
      const owned = await queries.ownedCounts(m, user.id);
      await queries.deleteUserRow(m, user.id);
      return {
        userId: String(user.id),
        deletedProjects: owned.projects,
        deletedFiles: owned.files,
        passedToProjectOwners: passed,
      };
    });
  }

  /** Sets a new password; the user's existing tokens stay valid (revoke them with revokeTokens). */
  async setPassword(username: string, password: string): Promise<{ userId: string }> {
    if (password.length < 8) throw new UserInputError('password must have at least 8 characters');
    const user = await this.userNamed(username);
    await this.db.getRepository(UserEntity).update({ id: user.id }, { passwordHash: await hashPassword(password) });
    return { userId: String(user.id) };
  }

  /** Revokes every live token of the user. */
  async revokeTokens(username: string): Promise<{ userId: string; revokedTokens: number }> {
    const user = await this.userNamed(username);
    return { userId: String(user.id), revokedTokens: await queries.revokeLiveTokens(this.db, user.id) };
  }

  /** The user's core quota: their own setting, else WORKER_CORES. */
  async coreQuota(userId: string): Promise<number> {
    const user = await this.db.getRepository(UserEntity).findOne({ where: { id: userId } });
    return user?.coreQuota ?? this.config.workerCores;
  }

  /** On the first start with no users, creates `admin` and writes its credentials to the data dir. */
  async bootstrapAdmin(): Promise<void> {
    const count = await this.db.getRepository(UserEntity).count();
    if (count > 0) return;
    const password = randomPassword();
    let token: string;
    try {
      ({ token } = await this.createUser({ username: 'admin', password }));
    } catch (e) {
      if (e instanceof UserInputError) return; // another process bootstrapped it first
      throw e;
    }
    const file = path.join(this.config.dataDir, 'admin-credentials.json');
    fs.mkdirSync(this.config.dataDir, { recursive: true });
    fs.writeFileSync(file, JSON.stringify({ username: 'admin', password, token }, null, 2) + '\n', { mode: 0o600 });
    fs.chmodSync(file, 0o600);
    this.logger.log(`first start: created user "admin"; credentials written to ${file}`);
  }
}
