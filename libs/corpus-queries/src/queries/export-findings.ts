import type { EntityManager } from 'typeorm';
import type { FindingFilter, FindingRow } from '@corpus-chat/contracts';
import { buildFindingWhere } from './finding-filter';
import { PAGE_COLUMNS, ROW_SELECT, toRow, type RowRecord } from './finding-rows';
import { normaliseFilter } from './query-validation';

/** Rows read per statement while exporting (memory stays bounded by one page). */
export const EXPORT_PAGE_SIZE = 500;

/**
 * Every current finding matching `filter`, in pages of at most `pageSize` rows, most severe first,
 * then by id (the order of `searchFindings`). Pages follow a keyset on `(severity, id)`, so no page
 * re-reads the ones before it and nothing is buffered beyond one page. Call it inside `runReadOnly`
 * so all pages come from one snapshot: the rows then number exactly `searchFindings(filter).total`.
 *
 * @throws QueryValidationError for a bad filter value (as `searchFindings`).
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
