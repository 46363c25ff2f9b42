/**
 * Triage carried over to a re-scan, against Postgres, over the shared re-scan pairs of
 * questions-r2.json (r17: ZAP 2.11.0 → 2.12.0 of http://www.itsecgames.com, 8 unchanged and 2 fixed;
 * r16/r18: 2.12.0 → the pin-mgmt rescan → 2.14.0): statuses set on the earlier report, read on the
 * findings of the later one with the same identity.
 */
import 'reflect-metadata';
import type { ImportOutcome, TriageStatus } from '@corpus-chat/contracts';
import { compareReports } from '../queries/compare-reports';
import { searchFindings } from '../queries/search-findings';
import { createTestDatabase, insertTestOperator, type TestDatabase } from '@corpus-chat/persistence/testing';
import { importCorpusFiles, loadQuestions } from '@corpus-chat/ingest/testing';
import { findingHistory } from './finding-history';
import { setFindingStatus } from './finding-status';

const V211 = 'bcgov-pipeline-templates__zap-2.11.0-itsecgames.json';
const V212 = 'bcgov-pipeline-templates__zap-2.12.0-itsecgames.json';
const V214 = 'bcgov-pipeline-templates__zap-2.14.0-itsecgames.json';
const RESCAN = 'zap__bcgov-pin-mgmt-be__zap-2.14.0-itsecgames-rescan.json';

let db: TestDatabase;
let actor: { id: string; username: string };
beforeAll(async () => {
  db = await createTestDatabase();
  actor = await insertTestOperator(db.dataSource);
}, 120_000);
afterAll(async () => db?.drop());

const m = () => db.dataSource.manager;
const ok = (o: ImportOutcome) => {
  if (!o.ok) throw new Error(`import failed: ${o.error}`);
  return o;
};
async function importOne(file: string) {
  const [o] = await importCorpusFiles(db.dataSource, [file]);
  return ok(o);
}
/** Findings of a report by identity key, in id order. */
async function byIdentity(
  reportId: number,
): Promise<{ id: number; identity: string; status: TriageStatus }[]> {
  return db.dataSource.query(
    `SELECT id, identity_key AS identity, status FROM findings WHERE report_id = $1 ORDER BY id`,
    [reportId],
  );
}
async function mark(ids: number[], status: TriageStatus) {
  const r = await setFindingStatus(m(), {
    ids,
    status,
    reason: status === 'confirmed' || status === 'fixed' ? null : 'checked by hand',
    actor,
  });
  expect(r.status).toBe('ok');
}

test('the re-scan questions of questions-r2.json are the pairs used here', () => {
  const turns = loadQuestions('questions-r2.json').questions.flatMap((q) => q.turns);
  expect(turns.some((t) => t.includes(V211) && t.includes(V212))).toBe(true);
  expect(turns.some((t) => t.includes(RESCAN) && t.includes(V214))).toBe(true);
});

describe('statuses carry over to the same identity in the next scan of the target', () => {
  let first: { reportId: number };
  let second: Extract<ImportOutcome, { ok: true }>;
  let earlier: Awaited<ReturnType<typeof byIdentity>>;

  beforeAll(async () => {
    first = await importOne(`scans/zap/${V211}`);
    earlier = await byIdentity(first.reportId);
    expect(earlier).toHaveLength(10);
  });

  test('false positive, risk accepted and confirmed stay; fixed and seen again is reopened; the summary says so', async () => {
    // The two 2.11.0 findings 2.12.0 no longer reports (r17's names): marked false positive, they carry nothing.
    const titles: { id: number; title: string }[] = await db.dataSource.query(
      `SELECT f.id, fv.title FROM findings f JOIN finding_versions fv ON fv.id = f.current_version_id WHERE f.report_id = $1`,
      [first.reportId],
    );
    const r17 = loadQuestions('questions-r2.json').questions.find((q) => q.id === 'r17')!;
    const gone = new Set(titles.filter((t) => r17.expect.names!.includes(t.title)).map((t) => t.id));
    expect(gone.size).toBe(2);
    const kept = earlier.filter((f) => !gone.has(f.id));
    const [fp, ra, conf, fixedA, fixedB] = kept;
    await mark([fp.id, ...gone], 'false_positive');
    await mark([ra.id], 'risk_accepted');
    await mark([conf.id], 'confirmed');
    await mark([fixedA.id, fixedB.id], 'fixed');

    second = await importOne(`scans/zap/${V212}`);
    expect(second.sincePrevious).toEqual({
      baselineReportId: first.reportId,
      baselineFilename: V211,
      new: 0,
      fixed: 2,
      unchanged: 8,
      carried: { falsePositive: 1, riskAccepted: 1, confirmed: 1, reopened: 2 },
    });
    const now = new Map((await byIdentity(second.reportId)).map((f) => [f.identity, f]));
    expect(now.get(fp.identity)?.status).toBe('false_positive');
    expect(now.get(ra.identity)?.status).toBe('risk_accepted');
    expect(now.get(conf.identity)?.status).toBe('confirmed');
    expect([now.get(fixedA.identity)?.status, now.get(fixedB.identity)?.status]).toEqual(['open', 'open']);
    // Only the carried ones changed: the other three 2.12.0 findings start open with no history.
    const counts = await searchFindings(m(), { reportId: second.reportId, status: 'open', limit: 0 });
    expect(counts.total).toBe(5);

    const carried = await findingHistory(m(), now.get(fp.identity)!.id);
    expect(carried?.statusChanges).toEqual([
      expect.objectContaining({
        from: 'open',
        to: 'false_positive',
        actorName: 'import',
        actorId: null,
        carriedFromFindingId: fp.id,
        reason: `carried over from finding #${fp.id} of report ${V211}`,
      }),
    ]);
    const reopened = await findingHistory(m(), now.get(fixedA.identity)!.id);
    expect(reopened?.statusChanges).toEqual([
      expect.objectContaining({
        from: 'fixed',
        to: 'open',
        carriedFromFindingId: fixedA.id,
        reason: `seen again in ${V212} after being marked fixed (finding #${fixedA.id} of report ${V211})`,
      }),
    ]);
    const untouched = [...now.values()].filter(
      (f) => ![fp, ra, conf, fixedA, fixedB].some((e) => e.identity === f.identity),
    );
    expect(untouched).toHaveLength(3);
    for (const f of untouched) expect((await findingHistory(m(), f.id))?.statusChanges).toEqual([]);
    // The earlier report keeps its own statuses.
    expect((await byIdentity(first.reportId)).find((f) => f.id === fixedA.id)?.status).toBe('fixed');
  });

  test('the next scan carries from the one recorded just before it, which is what the comparison pairs', async () => {
    // Recorded after 2.12.0 and before 2.14.0: its baseline is 2.12.0, whose reopened findings are open again.
    const rescan = await importOne(`edge/${RESCAN}`);
    expect(rescan.sincePrevious).toMatchObject({
      baselineFilename: V212,
      new: 4,
      unchanged: 8,
      carried: { falsePositive: 1, riskAccepted: 1, confirmed: 1, reopened: 0 },
    });
    const latest = await importOne(`scans/zap/${V214}`);
    expect(latest.sincePrevious?.baselineFilename).toBe(RESCAN);
    expect(latest.sincePrevious?.carried).toEqual({
      falsePositive: 1,
      riskAccepted: 1,
      confirmed: 1,
      reopened: 0,
    });
    const c = await compareReports(m(), { baseline: RESCAN, report: V214 });
    expect(c.unchanged).toBe(12);
    const statuses = await db.dataSource.query(
      `SELECT status, count(*)::int AS n FROM findings WHERE report_id = $1 GROUP BY status ORDER BY status`,
      [latest.reportId],
    );
    expect(statuses).toEqual([
      { status: 'confirmed', n: 1 },
      { status: 'false_positive', n: 1 },
      { status: 'open', n: 9 },
      { status: 'risk_accepted', n: 1 },
    ]);
  });
});

test('a first scan of a target and a refused import carry nothing', async () => {
  const other = await importOne('scans/zap/dd__zap-results-first-scan.xml');
  expect(other.sincePrevious).toBeUndefined();
  const before = await db.dataSource.query(
    `SELECT count(*)::int AS n FROM finding_status_changes WHERE actor_name = 'import'`,
  );
  const [dup] = await importCorpusFiles(db.dataSource, [`scans/zap/${V212}`]);
  expect(dup).toMatchObject({ ok: false, code: 'DUPLICATE' });
  expect(
    await db.dataSource.query(
      `SELECT count(*)::int AS n FROM finding_status_changes WHERE actor_name = 'import'`,
    ),
  ).toEqual(before);
});
