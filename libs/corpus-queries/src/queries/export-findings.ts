import type { EntityManager } from 'typeorm';
import type { FindingFilter, FindingRow } from '@corpus-chat/contracts';
import { buildFindingWhere } from './finding-filter';
import { PAGE_COLUMNS, ROW_SELECT, toRow, type RowRecord } from './finding-rows';
import { normaliseFilter } from './query-validation';

/** Rows read per statement while exporting (memory stays bounded by one page). */
export const EXPORT_PAGE_SIZE = 500;

/**
 * Every finding matching `filter` in `searchFindings` order, in keyset pages of `pageSize`. Call it
 * inside `runReadOnly` so all pages share one snapshot.
 *
 * @throws QueryValidationError for a bad filter value.
 */
export async function* exportFindingPages(
  manager: EntityManager,
  filter: FindingFilter = {},
  pageSize = EXPORT_PAGE_SIZE,
): AsyncGenerator<FindingRow[]> {
  const where = await buildFindingWhere(manager, normaliseFilter(filter));
  let after: RowRecord | undefined;
  for (;;) {
    const p = where.params.clone();
    const keyset = after
      ? ` AND (f.severity, f.id) > (${p.add(after.severity)}::finding_severity, ${p.add(after.id)}::int)`
      : '';
    const rows: RowRecord[] = await manager.query(
      `WITH page AS (SELECT ${PAGE_COLUMNS} FROM findings f WHERE (${where.sql})${keyset}
                     ORDER BY f.severity, f.id LIMIT ${p.add(pageSize)})
       ${ROW_SELECT} ORDER BY p.severity, p.id`,
      p.values,
    );
    if (rows.length > 0) yield rows.map(toRow);
    if (rows.length < pageSize) return;
    after = rows[rows.length - 1];
  }
}
