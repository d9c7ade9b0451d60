import { DataSource } from 'typeorm';
import { Page } from '../common/pipes';
import { prepared } from './sql';

/**
 * A page of a list (common/pipes.ts: Page) with plain SQL: `SELECT <columns> FROM <table> WHERE <where>` ordered by creation
 * then id. `where` uses $1.. for `params`; the table, columns and condition are code, never input (the
 * statements are prepared: sql.ts).
 * One query gives the page and the total (a window count); only a page past the end (or of 0 items),
 * which has no row to carry the total, costs a second query for the count.
 */
export async function paginateSql<R, V>(
  db: DataSource,
  sql: { table: string; columns: string; where: string; params: unknown[] },
  offset: number,
  count: number,
  view: (row: R) => V,
): Promise<Page<V>> {
  const k = sql.params.length;
  const rows: (R & { total_count__: number })[] =
    count === 0
      ? []
      : await prepared<R & { total_count__: number }>(
          db,
          `SELECT ${sql.columns}, count(*) OVER ()::int AS total_count__ FROM ${sql.table} WHERE ${sql.where}
            ORDER BY created_at, id OFFSET $${k + 1} LIMIT $${k + 2}`,
          [...sql.params, offset, count],
        );
  if (rows.length) return { offset, totalCount: rows[0].total_count__, data: rows.map(({ total_count__: _, ...r }) => view(r as R)) };
  const [{ n }] = await prepared<{ n: number }>(db, `SELECT count(*)::int AS n FROM ${sql.table} WHERE ${sql.where}`, sql.params);
  return { offset, totalCount: n, data: [] };
}
