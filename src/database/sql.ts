import { DataSource, EntityManager } from 'typeorm';

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
