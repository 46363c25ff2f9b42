import 'reflect-metadata';
/**
 * A search's page (plain statements planned by Postgres, one per severity for a text search):
 * for rare, common and very common terms, phrases, negations and weakness classes, at any
 * limit and offset, it equals an independent query over the current versions' own text, and the
 * total is exact.
 */
import { generateCorpus } from '@corpus-chat/ingest';
import { createTestDatabase, type TestDatabase } from '@corpus-chat/persistence/testing';
import { buildFindingWhere } from './finding-filter';
import { normaliseFilter } from './query-validation';
import { runReadOnly } from './read-only';
import { searchFindings } from './search-findings';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  await generateCorpus(db.dataSource, { findings: 10_000, findingsPerReport: 1000, seed: 11 });
}, 120_000);
afterAll(async () => {
  await db?.drop();
}, 30_000);

/** Independent: live findings whose current version (max version) matches `text`, most severe first, then id. */
async function expectedIds(text: string): Promise<number[]> {
  const rows: { id: number }[] = await db.dataSource.query(
    `SELECT f.id FROM findings f
     JOIN finding_versions fv ON fv.finding_id = f.id
       AND fv.version = (SELECT max(x.version) FROM finding_versions x WHERE x.finding_id = f.id)
     LEFT JOIN reports r ON r.id = f.report_id
     WHERE NOT coalesce(r.archived, false)
       AND to_tsvector('english', coalesce(fv.title,'') || ' ' || coalesce(fv.description,'') || ' ' || coalesce(fv.impact,'') || ' ' || coalesce(fv.attack_vector,''))
           @@ websearch_to_tsquery('english', $1)
     ORDER BY array_position(ARRAY['critical','high','medium','low','info'], fv.severity::text), f.id`,
    [text],
  );
  return rows.map((r) => r.id);
}

const TERMS = [
  'ldap',
  'cookie',
  'application',
  'deserialization',
  'session cookie',
  '"directory search" -ldap',
  'nosuchword',
];

test.each(TERMS)(
  '"%s": every page and the total equal an independent ORDER BY severity, id',
  async (text) => {
    const expected = await expectedIds(text);
    for (const [limit, offset] of [
      [1, 0],
      [7, 0],
      [50, 0],
      [7, 3],
      [50, 40],
      [10, expected.length],
    ]) {
      // As the agent's tools and the findings API call it: one read-only snapshot.
      const result = await runReadOnly(db.dataSource, (m) =>
        searchFindings(m, { text, limit, offset }, { cache: false }),
      );
      expect({ limit, offset, total: result.total, ids: result.rows.map((r) => r.id) }).toEqual({
        limit,
        offset,
        total: expected.length,
        ids: expected.slice(offset, offset + limit),
      });
    }
  },
);

test('a weakness class widened by CWE ids pages like a plain ORDER BY over its filter', async () => {
  const m = db.dataSource.manager;
  const where = await buildFindingWhere(m, normaliseFilter({ text: 'SQL injection' }));
  expect(where.applied.weaknessClasses?.length).toBeGreaterThan(0);
  const expected: { id: number }[] = await m.query(
    `SELECT f.id FROM findings f WHERE ${where.sql} ORDER BY f.severity, f.id`,
    where.params.values,
  );
  const result = await searchFindings(m, { text: 'SQL injection', limit: 50, offset: 5 }, { cache: false });
  expect(result.total).toBe(expected.length);
  expect(result.rows.map((r) => r.id)).toEqual(expected.slice(5, 55).map((r) => r.id));
});

test('a rare term’s page and count read the full-text index, not every finding', async () => {
  const m = db.dataSource.manager;
  const where = await buildFindingWhere(m, normaliseFilter({ text: 'ldap' }));
  for (const sql of [
    `SELECT count(*) FROM findings f WHERE ${where.sql}`,
    `SELECT f.id FROM findings f WHERE ${where.sql} ORDER BY f.severity, f.id LIMIT 50`,
  ]) {
    const plan: { 'QUERY PLAN': string }[] = await m.query(`EXPLAIN ${sql}`, where.params.values);
    expect(plan.map((r) => r['QUERY PLAN']).join('\n')).toContain('ix_findings_search');
  }
});
