/** Values that grow with the file (hosts of a target, a title, an endpoint, a file name) still import. */
import { createTestDatabase, type TestDatabase } from '@corpus-chat/persistence/testing';
import { sameTargetScans } from '@corpus-chat/corpus-queries';
import { importReport } from './import-report';
import { TEXT_MAX_CHARS, TITLE_MAX_CHARS } from './report-text';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.drop();
});

const HEADER = 'Plugin ID,Risk,Host,Protocol,Port,Name,Synopsis,Description';
const csv = (rows: string[]): Uint8Array => Buffer.from([HEADER, ...rows].join('\n') + '\n');
const hostRows = (n: number, plugin: number): string[] =>
  Array.from(
    { length: n },
    (_, i) => `${plugin},High,10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255},tcp,443,TLS weak,s,d`,
  );

test('a CSV export naming 10,000 hosts imports, and its re-scan is compared with it', async () => {
  const first = await importReport(db.dataSource, {
    filename: 'many-hosts.csv',
    bytes: csv(hostRows(10_000, 1)),
  });
  expect(first).toMatchObject({ ok: true, format: 'csv', findingCount: 10_000 });
  const [{ hosts }] = await db.dataSource.query(
    `SELECT cardinality(scan_target) AS hosts FROM reports WHERE id = $1`,
    [first.ok ? first.reportId : -1],
  );
  expect(hosts).toBe(10_000);

  // The same target scanned again: found through the scan_target index and compared.
  const rescan = await importReport(db.dataSource, {
    filename: 'many-hosts-rescan.csv',
    bytes: csv([...hostRows(10_000, 1).slice(1), ...hostRows(1, 1)].reverse()),
  });
  expect(rescan).toMatchObject({ ok: true, findingCount: 10_000 });
  const same = await sameTargetScans(db.dataSource.manager, rescan.ok ? rescan.reportId : -1);
  expect(same.scans.map((s) => s.id)).toEqual([first, rescan].map((o) => (o.ok ? o.reportId : -1)));
});

test('a 1 MB title and description, a 1 MB host name and a long file name import', async () => {
  const words = 'the TLS certificate chain presented by the service is weak and expired '.repeat(15_000);
  const longHost = `h${'a'.repeat(1_000_000)}.example`;
  const filename = `${'report-'.repeat(1_000)}.csv`;
  const outcome = await importReport(db.dataSource, {
    filename,
    bytes: csv([
      `2,Medium,10.0.0.1,tcp,22,"${words}",s,"${words}"`,
      `3,Low,${longHost},tcp,80,Plain HTTP,s,d`,
    ]),
  });
  expect(outcome).toMatchObject({ ok: true, file: filename, findingCount: 2 });
  const [row] = await db.dataSource.query(
    `SELECT r.finding_count, max(length(fv.title)) AS title, max(length(fv.description)) AS description
     FROM reports r JOIN findings f ON f.report_id = r.id JOIN finding_versions fv ON fv.id = f.current_version_id
     WHERE lower(r.filename) = lower($1) GROUP BY r.id`,
    [filename],
  );
  expect(row).toMatchObject({ finding_count: 2, title: TITLE_MAX_CHARS, description: TEXT_MAX_CHARS });
});
