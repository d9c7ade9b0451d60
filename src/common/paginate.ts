import { ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { Page } from './pipes';

/**
 * One page of a list query: `data` has min(count, totalCount - offset) items (0 past the end).
 * The query must already carry its stable order (creation, then id).
 */
export async function paginate<T extends ObjectLiteral, V>(
  qb: SelectQueryBuilder<T>,
  offset: number,
  count: number,
  view: (row: T) => V,
): Promise<Page<V>> {
  const totalCount = await qb.getCount();
  const rows = count === 0 || offset >= totalCount ? [] : await qb.offset(offset).limit(count).getMany();
  return { offset, totalCount, data: rows.map(view) };
}

/**
 * The same with plain SQL: a page of `SELECT <columns> FROM <table> WHERE <where>` ordered by creation
 * then id. `where` uses $1.. for `params`; the table and column list are code, never input.
 */
export async function paginateSql<R, V>(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- TypeORM's query() is typed any
  db: { query: (sql: string, params?: unknown[]) => Promise<any> },
  sql: { table: string; columns: string; where: string; params: unknown[] },
  offset: number,
  count: number,
  view: (row: R) => V,
): Promise<Page<V>> {
  const [{ n }] = await db.query(`SELECT count(*)::int AS n FROM ${sql.table} WHERE ${sql.where}`, sql.params);
  const k = sql.params.length;
  const rows: R[] =
    count === 0 || offset >= n
      ? []
      : await db.query(
          `SELECT ${sql.columns} FROM ${sql.table} WHERE ${sql.where} ORDER BY created_at, id OFFSET $${k + 1} LIMIT $${k + 2}`,
          [...sql.params, offset, count],
        );
  return { offset, totalCount: n, data: rows.map(view) };
}
