/** The synthetic corpus generator: consistent rows, realistic mix, demo labelling, index rebuild. */
import 'reflect-metadata';
import { countFindingsBy, corpusOverview, corpusVersion, searchFindings } from '@corpus-chat/corpus-queries';
import { createTestDatabase, type TestDatabase } from '@corpus-chat/persistence/testing';
import { generateCorpus, generateDemoCorpus } from './generate-corpus';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.drop();
});

test('generated findings are consistent with their versions and reports, with a realistic mix', async () => {
  const before = await corpusVersion(db.dataSource.manager);
  // rebuildIndexes forced on so the drop-and-rebuild path is exercised at a small size.
  const result = await generateCorpus(db.dataSource, {
    findings: 6000,
    findingsPerReport: 1000,
    seed: 7,
    rebuildIndexes: true,
  });
  expect(result).toMatchObject({ reports: 6, findings: 6000 });
  expect(await corpusVersion(db.dataSource.manager)).not.toBe(before);

  const [check] = await db.dataSource.query(`
    SELECT count(*)::int AS findings,
           count(*) FILTER (WHERE f.severity <> fv.severity OR f.cwe <> fv.cwe)::int AS mismatched,
           count(*) FILTER (WHERE fv.version <> (SELECT max(x.version) FROM finding_versions x WHERE x.finding_id = f.id))::int AS not_newest,
           count(*) FILTER (WHERE cardinality(f.cwe) = 0)::int AS without_cwe,
           count(*) FILTER (WHERE f.latest_verdict IS DISTINCT FROM
             (SELECT v.status FROM verdicts v WHERE v.finding_id = f.id ORDER BY v.created_at DESC, v.id DESC LIMIT 1))::int AS wrong_verdict,
           (SELECT count(*)::int FROM finding_versions WHERE version = 2) AS edited,
           (SELECT sum(finding_count)::int FROM reports) AS report_total
    FROM findings f JOIN finding_versions fv ON fv.id = f.current_version_id`);
  expect(check).toMatchObject({
    findings: 6000,
    mismatched: 0,
    not_newest: 0,
    wrong_verdict: 0,
    report_total: 6000,
  });
  expect(check.edited).toBeGreaterThan(50);
  expect(check.without_cwe / 6000).toBeGreaterThan(0.1);
  expect(check.without_cwe / 6000).toBeLessThan(0.35);

  const sev = await countFindingsBy(db.dataSource.manager, { groupBy: 'severity' });
  const share = Object.fromEntries(sev.groups.map((g) => [g.key, g.count / 6000]));
  expect(share['critical']).toBeGreaterThan(0.02);
  expect(share['critical']).toBeLessThan(0.1);
  expect(share['medium']).toBeGreaterThan(share['critical']);
  expect(share['info']).toBeGreaterThan(0.03);

  // The benchmark's terms have the frequencies the vocabulary promises.
  const pct = async (text: string) =>
    (await searchFindings(db.dataSource.manager, { text, limit: 0 })).total / 6000;
  expect(await pct('ldap')).toBeLessThanOrEqual(0.015);
  expect(await pct('cookie')).toBeGreaterThan(0.07);
  expect(await pct('cookie')).toBeLessThan(0.14);
  expect(await pct('application')).toBeGreaterThan(0.4);
  expect(await pct('application')).toBeLessThan(0.5);

  // Dropped indexes were rebuilt.
  const indexes: { indexname: string }[] = await db.dataSource.query(
    `SELECT indexname FROM pg_indexes WHERE tablename = 'findings'`,
  );
  expect(indexes.map((i) => i.indexname)).toEqual(
    expect.arrayContaining(['ix_findings_search', 'ix_findings_cwe', 'ix_findings_live_severity']),
  );
});

test('the demo corpus is labelled as demo data and generated once', async () => {
  const first = await generateDemoCorpus(db.dataSource, { findings: 1200 });
  expect(first).toMatchObject({ skipped: false, findings: 1200 });
  const demo: { filename: string; doc_metadata: Record<string, unknown> }[] = await db.dataSource.query(
    `SELECT filename, doc_metadata FROM reports WHERE doc_metadata ->> 'demo' = 'true'`,
  );
  expect(demo.length).toBe(first.reports);
  for (const r of demo) {
    expect(r.filename).toMatch(/^demo__synthetic-/);
    expect(r.doc_metadata['note']).toMatch(/synthetic demo data/i);
  }
  const again = await generateDemoCorpus(db.dataSource, { findings: 1200 });
  expect(again.skipped).toBe(true);
  expect((await corpusOverview(db.dataSource.manager)).findings.total).toBe(7200);
});
