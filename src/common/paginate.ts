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
