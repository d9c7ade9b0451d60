import { createHash } from 'node:crypto';
import type { Pool, PoolClient } from 'pg';
import { DataSource, EntityManager } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';

/**
 * Runs a statement with RETURNING and gives its rows. TypeORM's postgres driver answers UPDATE and DELETE
 * with `[rows, rowCount]` but INSERT and SELECT with `rows`; this hides the difference.
 */
export async function returning<T>(db: DataSource | EntityManager, sql: string, params: unknown[] = []): Promise<T[]> {
  const out: unknown = await db.query(sql, params);
  if (Array.isArray(out) && out.length === 2 && Array.isArray(out[0]) && typeof out[1] === 'number') {
    return out[0] as T[];
  }
  return out as T[];
}

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

/** Tables whose rows other rows refer to, as keepRow locks them. */
export type ParentTable = 'users' | 'projects' | 'datasets' | 'analyses';

/**
 * Keeps the row `id` of `table` from being deleted until the transaction `tx` ends (FOR KEY SHARE: its delete
 * waits), or throws `gone` when it is deleted already. A request that checked access, then inserts rows that refer
 * to it, calls this first in its transaction: a concurrent delete then comes before (the caller answers `gone`) or
 * after (it deletes the new rows with the rest), never in between as a foreign-key error.
 */
export async function keepRow(tx: EntityManager, table: ParentTable, id: string, gone: Error): Promise<void> {
  const rows = await tx.query(`SELECT 1 FROM ${table} WHERE id = $1 FOR KEY SHARE`, [id]);
  if (!rows.length) throw gone;
}

/** A statement referred to a row that is gone (SQLSTATE 23503): it was deleted while the request ran. */
export function isForeignKeyViolation(e: unknown): boolean {
  const err = e as { code?: string; driverError?: { code?: string } };
  return err?.code === '23503' || err?.driverError?.code === '23503';
}
