import 'reflect-metadata';
/**
 * A text search's page is cut one severity at a time (`severity-page.ts`): for every term,
 * limit, offset and combined filter it must hold exactly the rows of the plain
 * `ORDER BY severity, id LIMIT … OFFSET …` over the same filter, with the same exact total.
 */
import type { FindingFilter } from '@corpus-chat/contracts';
import { generateCorpus } from '@corpus-chat/ingest';
import { createTestDatabase, type TestDatabase } from '@corpus-chat/persistence/testing';
import { buildFindingWhere } from './finding-filter';
import { normaliseFilter } from './query-validation';
import { runReadOnly } from './read-only';
import { findingRows, searchFindings } from './search-findings';
import { pagedBySeverity } from './severity-page';

let db: TestDatabase;
let filters: FindingFilter[];
beforeAll(async () => {
  db = await createTestDatabase();
  await generateCorpus(db.dataSource, { findings: 10_000, findingsPerReport: 1000, seed: 23 });
  const m = db.dataSource.manager;
  const reports: { id: number }[] = await m.query(`SELECT id FROM reports ORDER BY id`);
  // One archived report, so archived findings are there to be excluded (or included).
  await m.query(`UPDATE reports SET archived = true WHERE id = $1`, [reports[1].id]);
  const [{ cwe }]: { cwe: number }[] = await m.query(
    `SELECT c AS cwe FROM findings, unnest(cwe) c GROUP BY c ORDER BY count(*) DESC, c LIMIT 1`,
  );
  filters = [
    {},
    { severity: 'high' },
    { severity: 'info' },
    { reportId: reports[0].id },
    { reportId: reports[1].id },
    { cwe },
    { severity: 'medium', cwe },
    { includeArchived: true },
  ];
}, 120_000);
afterAll(async () => {
  await db?.drop();
}, 30_000);

/** The plain page and total, straight from the filter's WHERE clause. */
async function plain(filter: FindingFilter, limit: number, offset: number) {
  const m = db.dataSource.manager;
  const where = await buildFindingWhere(m, normaliseFilter(filter));
  const ids: { id: number }[] = await m.query(
    `SELECT f.id FROM findings f WHERE ${where.sql} ORDER BY f.severity, f.id LIMIT ${limit} OFFSET ${offset}`,
    where.params.values,
  );
  const [{ n }]: { n: number }[] = await m.query(
    `SELECT count(*)::int AS n FROM findings f WHERE ${where.sql}`,
    where.params.values,
  );
  return { total: n, ids: ids.map((r) => r.id) };
}

const TERMS = [
  'ldap',
  'cookie',
  'application',
  'XSS',
  'session cookie',
  '"directory search" -ldap',
  'nosuchword',
];
const PAGES = [
  [1, 0],
  [7, 0],
  [50, 0],
  [7, 3],
  [50, 50],
  [20, 400],
  [50, 100_000],
];

test.each(TERMS)(
  '"%s": pages under every combined filter equal the plain ORDER BY severity, id',
  async (text) => {
    for (const extra of filters) {
      const filter = { ...extra, text };
      for (const [limit, offset] of PAGES) {
        const result = await runReadOnly(db.dataSource, (m) =>
          searchFindings(m, { ...filter, limit, offset }, { cache: false }),
        );
        expect({ filter, limit, offset, total: result.total, ids: result.rows.map((r) => r.id) }).toEqual({
          filter,
          limit,
          offset,
          ...(await plain(filter, limit, offset)),
        });
      }
    }
  },
);

test('a first page crossing severities is cut one severity at a time and keeps the order', async () => {
  const m = db.dataSource.manager;
  const where = await buildFindingWhere(m, normaliseFilter({ text: 'ldap' }));
  expect(pagedBySeverity(where)).toBe(true);
  const { total, ids } = await plain({ text: 'ldap' }, 50, 0);
  const rows = await findingRows(m, where, 50, 0);
  expect(rows.map((r) => r.id)).toEqual(ids);
  // The page holds more than one severity, so the cut crossed at least one boundary.
  expect(new Set(rows.map((r) => r.severity)).size).toBeGreaterThan(1);
  expect(total).toBeGreaterThan(50);
});
