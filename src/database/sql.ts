import { createHash } from 'node:crypto';
import type { Pool, PoolClient } from 'pg';
import { DataSource, EntityManager } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';

/** Where a statement runs: the pool, or a transaction's connection. */
export type Db = DataSource | EntityManager;

/**
 * The rows of a statement (a SELECT, or an INSERT, UPDATE or DELETE with RETURNING), as the row type `T` that the
 * query file declares for it. TypeORM's postgres driver answers UPDATE and DELETE with `[rows, rowCount]` but
 * INSERT and SELECT with `rows`; this hides the difference.
 */
export async function rows<T>(db: Db, sql: string, params: unknown[] = []): Promise<T[]> {
  const out: unknown = await db.query(sql, params);
  if (Array.isArray(out) && out.length === 2 && Array.isArray(out[0]) && typeof out[1] === 'number') {
    return out[0] as T[];
  }
  return out as T[];
}

/** Runs a statement for its effect alone (no rows wanted). */
export async function execute(db: Db, sql: string, params: unknown[] = []): Promise<void> {
  await db.query(sql, params);
}

/** Runs an UPDATE or DELETE (without RETURNING) and gives the number of rows it changed. */
export async function affected(db: Db, sql: string, params: unknown[] = []): Promise<number> {
  const out: unknown = await db.query(sql, params);
  return Array.isArray(out) && typeof out[1] === 'number' ? out[1] : 0;
}

/** The same as rows (the name older call sites use for statements with RETURNING). */
export const returning = rows;

/** Statement names by text: each distinct text of `prepared` gets one name, the same in every connection. */
const statementNames = new Map<string, string>();

function statementName(text: string): string {
  let name = statementNames.get(text);
  if (!name) {
    name = `signet_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
    statementNames.set(text, name);
  }
  return name;
}

/**
 * A statement that requests make all the time, as a named prepared statement: each pooled connection parses and
 * plans it once instead of on every call (on two cores shared by the API, PostgreSQL and the engine, that is
 * a fifth of the database's work per request). `text` must be fixed SQL (the code's own, with $n parameters
 * for every value): each distinct text stays prepared on every connection. On the connection of the transaction
 * `db` is one of, or else on a pooled connection of its own.
 */
export async function prepared<T>(db: DataSource | EntityManager, text: string, values: unknown[] = []): Promise<T[]> {
  const query = { name: statementName(text), text, values };
  const runner = db instanceof EntityManager ? db.queryRunner : undefined;
  if (!runner) return (await poolOf(db instanceof EntityManager ? db.connection : db).query(query)).rows as T[];
  const client = (await runner.connect()) as PoolClient;
  return (await client.query(query)).rows as T[];
}

/** The node-postgres pool under TypeORM's connection: for what TypeORM cannot do (prepared statements, COPY). */
export function poolOf(db: DataSource): Pool {
  return (db.driver as PostgresDriver).master as Pool;
}

/** The node-postgres client under a transaction's EntityManager: for what TypeORM cannot do there (COPY). */
export function clientOf(tx: EntityManager): PoolClient {
  const client = (tx.queryRunner as { databaseConnection?: PoolClient } | undefined)?.databaseConnection;
  if (!client) throw new Error('not in a transaction of its own connection');
  return client;
}

/** The connection URL of the service's database (engine processes that read or write it open their own connections). */
export function urlOf(db: DataSource): string {
  const url = (db.options as { url?: string }).url;
  if (!url) throw new Error('the database has no connection URL');
  return url;
}

/** Tables whose rows other rows refer to, as keepRow locks them. */
export type ParentTable = 'users' | 'projects' | 'datasets' | 'analyses';

/**
 * Keeps the row `id` of `table` from being deleted until the transaction `tx` ends (FOR KEY SHARE: its delete
 * waits), or throws `gone` when it is deleted already. A request that checked access, then inserts rows that refer
 * to it, calls this first in its transaction: a concurrent delete then comes before (the caller answers `gone`) or
 * after (it deletes the new rows with the rest), never in between as a foreign-key error.
 */
export async function keepRow(tx: EntityManager, table: ParentTable, id: string, gone: Error): Promise<void> {
  const kept = await rows<{ id: string }>(tx, `SELECT id FROM ${table} WHERE id = $1 FOR KEY SHARE`, [id]);
  if (!kept.length) throw gone;
}

/** A statement referred to a row that is gone (SQLSTATE 23503): it was deleted while the request ran. */
export function isForeignKeyViolation(e: unknown): boolean {
  const err = e as { code?: string; driverError?: { code?: string } };
  return err?.code === '23503' || err?.driverError?.code === '23503';
}
