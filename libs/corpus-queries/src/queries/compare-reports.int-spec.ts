/**
 * Scan comparison against the real Postgres: the four itsecgames ZAP scans of shared/corpus give
 * exactly the numbers and names of questions r16, r17 and r18 of shared/questions/questions-r2.json.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ImportOutcome } from '@corpus-chat/contracts';
import { importReport } from '@corpus-chat/ingest';
import { corpusPath, importCorpusFiles, sharedDir, type SharedQuestion } from '@corpus-chat/ingest/testing';
import { createTestDatabase, type TestDatabase } from '@corpus-chat/persistence/testing';
import { ScanComparisonError, compareReports, sameTargetScans } from './compare-reports';

const V211 = 'bcgov-pipeline-templates__zap-2.11.0-itsecgames.json';
const V212 = 'bcgov-pipeline-templates__zap-2.12.0-itsecgames.json';
const V214 = 'bcgov-pipeline-templates__zap-2.14.0-itsecgames.json';
const RESCAN = 'zap__bcgov-pin-mgmt-be__zap-2.14.0-itsecgames-rescan.json';

const questions: SharedQuestion[] = JSON.parse(
  fs.readFileSync(path.join(sharedDir(), 'questions', 'questions-r2.json'), 'utf8'),
).questions;
const question = (id: string): SharedQuestion => questions.find((q) => q.id === id)!;

let db: TestDatabase;
let outcomes: ImportOutcome[];

beforeAll(async () => {
  db = await createTestDatabase();
  // The rescan (December 2023) is imported last although it was recorded before the 2.14.0 scan (January 2024).
  outcomes = await importCorpusFiles(db.dataSource, [
    `scans/zap/${V211}`,
    `scans/zap/${V212}`,
    `scans/zap/${V214}`,
    `edge/${RESCAN}`,
    'scans/zap/dd__zap-results-first-scan.xml',
  ]);
  const failed = outcomes.filter((o) => !o.ok);
  if (failed.length) throw new Error(`imports failed: ${JSON.stringify(failed)}`);
}, 120_000);

afterAll(async () => {
  await db?.drop();
}, 60_000);

const m = () => db.dataSource.manager;

async function refusal(p: Promise<unknown>): Promise<ScanComparisonError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!(e instanceof ScanComparisonError))
    throw new Error(`expected a ScanComparisonError, got ${String(e)}`);
  return e;
}

describe('the comparison questions of questions-r2.json', () => {
  test('r16: what is new in 2.14.0 compared with 2.12.0', async () => {
    const q = question('r16');
    expect(q.turns[0]).toContain(`new in ${V214} compared with ${V212}`);
    const c = await compareReports(m(), { baseline: V212, report: V214 });
    expect([c.new]).toEqual(q.expect.numbers);
    expect(c.newFindings.map((f) => f.title).sort()).toEqual([...q.expect.names!].sort());
    expect({ fixed: c.fixed, unchanged: c.unchanged }).toEqual({ fixed: 0, unchanged: 8 });
    expect(c.newFindings.every((f) => f.severity && f.id > 0)).toBe(true);
  });
  test('r17: fixed between 2.11.0 and 2.12.0 (the renamed and re-referenced checks stay unchanged)', async () => {
    const q = question('r17');
    const c = await compareReports(m(), { baseline: V211, report: V212 });
    expect([c.fixed]).toEqual(q.expect.numbers);
    expect(c.fixedFindings.map((f) => f.title).sort()).toEqual([...q.expect.names!].sort());
    expect({ new: c.new, unchanged: c.unchanged }).toEqual({ new: 0, unchanged: 8 });
  });
  test('r18: unchanged between the rescan and 2.14.0', async () => {
    const c = await compareReports(m(), { baseline: RESCAN, report: V214 });
    expect([c.unchanged]).toEqual(question('r18').expect.numbers);
    expect({ new: c.new, fixed: c.fixed }).toEqual({ new: 0, fixed: 0 });
  });
});

describe('compareReports', () => {
  test('counts add up to each report and the baseline is the one the caller named', async () => {
    const c = await compareReports(m(), { baseline: V214, report: V211 });
    expect(c.baseline.filename).toBe(V214);
    expect(c.baselineBy).toBe('caller');
    expect(c.new + c.unchanged).toBe(c.report.findingCount);
    expect(c.fixed + c.unchanged).toBe(c.baseline.findingCount);
    expect(c.target).toEqual(['http://www.itsecgames.com']);
  });
  test('two scans named without an order: the earlier recorded scan time is the baseline', async () => {
    const c = await compareReports(m(), { baseline: V214, report: V212, ordered: false });
    expect([c.baseline.filename, c.report.filename, c.baselineBy]).toEqual([V212, V214, 'scan_time']);
    expect(c.baseline.scannedAt).toBe('2023-07-04T20:03:01.000Z');
  });
  test('"since X": the latest later scan of the same target', async () => {
    const c = await compareReports(m(), { baseline: V211 });
    expect(c.report.filename).toBe(V214);
    expect({ new: c.new, fixed: c.fixed }).toEqual({ new: 4, fixed: 2 });
    expect((await refusal(compareReports(m(), { baseline: V214 }))).code).toBe('NO_LATER_SCAN');
  });
  test('reports by id work like file names; a report against itself is refused', async () => {
    const ids = outcomes.map((o) => (o.ok ? o.reportId : 0));
    const c = await compareReports(m(), { baseline: ids[1], report: `#${ids[2]}` });
    expect([c.baseline.filename, c.report.filename, c.new]).toEqual([V212, V214, 4]);
    expect((await refusal(compareReports(m(), { baseline: ids[0], report: V211 }))).code).toBe('SAME_REPORT');
    expect((await refusal(compareReports(m(), { baseline: 'nope.json', report: V211 }))).message).toContain(
      "no report is named 'nope.json'",
    );
  });
  test('scans of another target are not compared; the error names both targets', async () => {
    const e = await refusal(
      compareReports(m(), { baseline: V211, report: 'dd__zap-results-first-scan.xml' }),
    );
    expect(e.code).toBe('NOT_SAME_TARGET');
    expect(e.message).toContain('http://www.itsecgames.com');
    expect(e.message).toContain('http://bodgeit.securecodebox-demo.svc:8080');
  });
  test('equal recorded scan times and no order given: the caller is asked which is the baseline', async () => {
    const doc = JSON.parse(fs.readFileSync(corpusPath(`scans/zap/${V214}`), 'utf8'));
    doc.site[0].alerts = doc.site[0].alerts.slice(1);
    const o = await importReport(db.dataSource, {
      filename: 'same-time.json',
      bytes: Buffer.from(JSON.stringify(doc)),
    });
    expect(o.ok).toBe(true);
    const e = await refusal(
      compareReports(m(), { baseline: V214, report: 'same-time.json', ordered: false }),
    );
    expect(e.code).toBe('ORDER_UNKNOWN');
    expect(e.message).toContain('say which one is the baseline');
    // With the order given it is compared.
    expect((await compareReports(m(), { baseline: V214, report: 'same-time.json' })).fixed).toBe(1);
    await db.dataSource.query(`UPDATE reports SET archived = true WHERE filename = 'same-time.json'`);
  });
});

describe('scans of the same target and the import summary', () => {
  test('a report lists its scans of the same target by recorded scan time, not import order', async () => {
    const s = await sameTargetScans(m(), V212);
    expect(s.target).toEqual(['http://www.itsecgames.com']);
    expect(s.scans.map((r) => r.filename)).toEqual([V211, V212, RESCAN, V214]);
    const other = await sameTargetScans(m(), 'dd__zap-results-first-scan.xml');
    expect(other.scans.map((r) => r.filename)).toEqual(['dd__zap-results-first-scan.xml']);
  });
  test('importing a re-scan reports what changed since the scan recorded just before it', () => {
    const since = outcomes.map((o) => (o.ok ? o.sincePrevious : undefined));
    expect(since[0]).toBeUndefined();
    expect(since[1]).toMatchObject({ baselineFilename: V211, new: 0, fixed: 2, unchanged: 8 });
    expect(since[2]).toMatchObject({ baselineFilename: V212, new: 4, fixed: 0, unchanged: 8 });
    // Recorded before 2.14.0 although imported after it: compared with 2.12.0.
    expect(since[3]).toMatchObject({ baselineFilename: V212, new: 4, fixed: 0, unchanged: 8 });
    expect(since[4]).toBeUndefined();
  });
});
