import 'reflect-metadata';
/**
 * The `format` and `scanner` filter fields and the `format` / `title` groupings, each against an
 * independent SQL count over reports joined by hand. A SARIF file written by ZAP is format `sarif`.
 */
import { createTestDatabase, type TestDatabase } from '@corpus-chat/persistence/testing';
import { importCorpusFiles } from '@corpus-chat/ingest/testing';
import { setReportArchived } from './archive-report';
import { countFindingsBy } from './count-findings-by';
import { QueryValidationError } from './query-validation';
import { searchFindings } from './search-findings';

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
  const outcomes = await importCorpusFiles(db.dataSource, [
    'scans/trivy/scb__juice-shop-v12.10.2.json',
    'scans/zap/dd__zap-results-first-scan.xml',
    'scans/sarif/sechub__brakeman.sarif.json',
    'scans/sarif/sechub__owaspzap-mock-large.sarif.json',
    'scans/sarif/dd__codeQL-output.sarif',
    'scans/nuclei/dd__issue_14071.jsonl',
  ]);
  expect(outcomes.every((o) => o.ok)).toBe(true);
}, 60_000);
afterAll(() => db?.drop());

const sqlCount = async (where: string, params: unknown[] = []) =>
  Number(
    (
      await db.dataSource.query(
        `SELECT count(*)::int AS n FROM findings f JOIN reports r ON r.id = f.report_id WHERE NOT r.archived AND ${where}`,
        params,
      )
    )[0].n,
  );

it('counts the findings of one format, a ZAP-written SARIF file being sarif', async () => {
  for (const format of ['sarif', 'zap', 'nuclei', 'trivy'] as const) {
    const r = await searchFindings(db.dataSource.manager, { format, limit: 1 });
    expect(r.total).toBe(await sqlCount('r.format = $1', [format]));
    expect(r.filter.format).toBe(format);
  }
  expect((await searchFindings(db.dataSource.manager, { format: 'burp' })).total).toBe(0);
  const high = await searchFindings(db.dataSource.manager, { format: 'sarif', severity: 'high' });
  expect(high.total).toBe(await sqlCount(`r.format = 'sarif' AND f.severity = 'high'`));
});

it('filters by scanner name, case-insensitively, and combines with format', async () => {
  const scanners: { name: string }[] = await db.dataSource.query(
    `SELECT DISTINCT doc_metadata->'tool'->>'name' AS name FROM reports`,
  );
  expect(scanners.length).toBeGreaterThan(2);
  for (const { name } of scanners) {
    const r = await searchFindings(db.dataSource.manager, { scanner: name.toUpperCase() });
    expect(r.total).toBe(
      await sqlCount(`strpos(lower(r.doc_metadata->'tool'->>'name'), lower($1)) > 0`, [name]),
    );
  }
  const zapInSarif = await countFindingsBy(db.dataSource.manager, {
    groupBy: 'format',
    filter: { scanner: 'zap' },
  });
  expect(zapInSarif.groups.map((g) => g.key).sort()).toEqual(['sarif', 'zap']);
});

it('groups by format and by exact title, most first', async () => {
  const byFormat = await countFindingsBy(db.dataSource.manager, { groupBy: 'format' });
  const expected: { format: string; n: number }[] = await db.dataSource.query(
    `SELECT r.format, count(*)::int AS n FROM findings f JOIN reports r ON r.id = f.report_id WHERE NOT r.archived GROUP BY r.format ORDER BY n DESC, r.format`,
  );
  expect(byFormat.groups.map((g) => [g.key, g.count])).toEqual(expected.map((e) => [e.format, e.n]));

  const byTitle = await countFindingsBy(db.dataSource.manager, {
    groupBy: 'title',
    filter: { format: 'zap' },
  });
  const titles: { title: string; n: number }[] = await db.dataSource.query(
    `SELECT v.title, count(*)::int AS n FROM findings f JOIN reports r ON r.id = f.report_id
     JOIN finding_versions v ON v.finding_id = f.id AND v.version = (SELECT max(version) FROM finding_versions WHERE finding_id = f.id)
     WHERE NOT r.archived AND r.format = 'zap' GROUP BY v.title`,
  );
  expect(titles.length).toBeLessThan(50);
  titles.sort((a, b) => b.n - a.n || a.title.localeCompare(b.title));
  expect(byTitle.groups.map((g) => [g.key, g.count])).toEqual(titles.map((t) => [t.title, t.n]));
  expect(byTitle.total).toBe(await sqlCount(`r.format = 'zap'`));
});

it('leaves archived reports out of a format unless asked', async () => {
  const [nuclei] = await db.dataSource.query(`SELECT id FROM reports WHERE format = 'nuclei'`);
  const before = (await searchFindings(db.dataSource.manager, { format: 'nuclei' })).total;
  expect(before).toBeGreaterThan(0);
  await setReportArchived(db.dataSource.manager, nuclei.id, true);
  try {
    expect((await searchFindings(db.dataSource.manager, { format: 'nuclei' })).total).toBe(0);
    expect(
      (
        await countFindingsBy(db.dataSource.manager, {
          groupBy: 'report',
          filter: { format: 'nuclei', includeArchived: true },
        })
      ).total,
    ).toBe(before);
  } finally {
    await setReportArchived(db.dataSource.manager, nuclei.id, false);
  }
});

it('refuses an unknown format with the accepted values', async () => {
  await expect(searchFindings(db.dataSource.manager, { format: 'docx' as never })).rejects.toThrow(
    QueryValidationError,
  );
  await expect(searchFindings(db.dataSource.manager, { format: 'docx' as never })).rejects.toThrow(
    /format must be one of sarif, zap/,
  );
});
