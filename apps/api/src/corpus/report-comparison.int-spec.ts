/**
 * Scan comparison over HTTP on the real auth guard, Postgres and Redis: an uploaded re-scan reports
 * what changed since the previous scan; `GET /api/reports/compare` (JSON and streamed CSV) and
 * `GET /api/reports/:id/scans` answer what the query functions answer, with clear 4xx refusals.
 */
import 'reflect-metadata';
import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { importReport } from '@corpus-chat/ingest';
import { corpusPath } from '@corpus-chat/ingest/testing';
import { createTestDatabase, type TestDatabase } from '@corpus-chat/persistence/testing';
import { type ApiInstance, newDeployment, signIn, startApiInstance } from '../../test/support/chat-harness';

let db: TestDatabase;
let api: ApiInstance;
let headers: Record<string, string>;
let operatorId: string;

const http = () => request(api.app.getHttpServer());
const importFile = async (rel: string) => {
  const outcome = await importReport(db.dataSource, {
    filename: path.basename(rel),
    bytes: fs.readFileSync(corpusPath(rel)),
  });
  if (!outcome.ok) throw new Error(outcome.error);
  return outcome;
};

beforeAll(async () => {
  db = await createTestDatabase();
  api = await startApiInstance({ databaseUrl: db.url, ...newDeployment() });
  const session = await signIn(api, db.dataSource);
  headers = session.headers;
  operatorId = session.operator.id;
}, 60_000);
afterAll(async () => {
  await api?.close();
  await db?.drop();
}, 60_000);

const V211 = 'bcgov-pipeline-templates__zap-2.11.0-itsecgames.json';
const V212 = 'bcgov-pipeline-templates__zap-2.12.0-itsecgames.json';
const OTHER = 'dd__zap-results-first-scan.xml';
let ids: Record<string, number>;

describe('scan comparison', () => {
  it('an imported re-scan reports what changed since the previous scan of its target', async () => {
    const results = [
      await importFile(`scans/zap/${V211}`),
      await importFile(`scans/zap/${V212}`),
      await importFile(`scans/zap/${OTHER}`),
    ];
    ids = Object.fromEntries(results.map((r) => [r.file, r.reportId]));
    expect(results[0].sincePrevious).toBeUndefined();
    expect(results[1].sincePrevious).toEqual({
      baselineReportId: ids[V211],
      baselineFilename: V211,
      new: 0,
      fixed: 2,
      unchanged: 8,
      carried: { falsePositive: 0, riskAccepted: 0, confirmed: 0, reopened: 0 },
    });
    expect(results[2].sincePrevious).toBeUndefined();
  });

  it('GET /api/reports/compare: counts and the new and fixed findings', async () => {
    const res = await http()
      .get('/api/reports/compare')
      .query({ baseline: ids[V211], report: ids[V212] })
      .set(headers)
      .expect(200);
    expect(res.body).toMatchObject({
      new: 0,
      fixed: 2,
      unchanged: 8,
      target: ['http://www.itsecgames.com'],
      baseline: { id: ids[V211], filename: V211 },
      report: { id: ids[V212] },
    });
    expect(res.body.fixedFindings.map((f: { title: string }) => f.title)).toEqual([
      'Reverse Tabnabbing',
      'Timestamp Disclosure - Unix',
    ]);
  });

  it('format=csv streams one row per new and fixed finding', async () => {
    const res = await http()
      .get('/api/reports/compare')
      .query({ baseline: ids[V212], report: ids[V211], format: 'csv' })
      .set(headers)
      .expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    expect(res.headers['content-disposition']).toContain(`comparison-${ids[V212]}-${ids[V211]}.csv`);
    const lines = res.text.trimEnd().split('\r\n');
    expect(lines[0]).toBe('change,finding_id,title,severity,report_id,report');
    expect(lines.slice(1).map((l) => l.split(',')[0])).toEqual(['new', 'new']);
    expect(
      lines
        .slice(1)
        .map((l) => l.split(',')[2])
        .sort(),
    ).toEqual(['Reverse Tabnabbing', 'Timestamp Disclosure - Unix']);
    // The download is audited; the JSON answers above are not exports and left no event.
    const events = await db.dataSource.query(
      `SELECT actor_id, subject_type, subject_id, after FROM audit_events WHERE action = 'comparison.export'`,
    );
    expect(events).toEqual([
      {
        actor_id: operatorId,
        subject_type: 'report',
        subject_id: String(ids[V211]),
        after: { baselineReportId: ids[V212], new: 2, fixed: 0, rows: 2 },
      },
    ]);
  });

  it('refuses with a message a person can act on', async () => {
    const other = await http()
      .get('/api/reports/compare')
      .query({ baseline: ids[V211], report: ids[OTHER] })
      .set(headers)
      .expect(422);
    expect(other.body).toMatchObject({ error: 'NOT_SAME_TARGET' });
    expect(other.body.message).toContain('http://www.itsecgames.com');
    expect(other.body.message).toContain('http://bodgeit.securecodebox-demo.svc:8080');
    const missing = await http()
      .get('/api/reports/compare')
      .query({ baseline: ids[V211], report: 999_999 })
      .set(headers)
      .expect(404);
    expect(missing.body.message).toBe('there is no report 999999');
    await http()
      .get('/api/reports/compare')
      .query({ baseline: ids[V211], report: ids[V211] })
      .set(headers)
      .expect(400);
    const bad = await http()
      .get('/api/reports/compare')
      .query({ baseline: 'first', report: ids[V211] })
      .set(headers)
      .expect(400);
    expect(JSON.stringify(bad.body.message)).toContain('baseline must be the id of the older report');
    await http().get('/api/reports/compare').query({ baseline: ids[V211], report: ids[V212] }).expect(401);
  });

  it('GET /api/reports/:id/scans lists the scans of the same target by recorded scan time', async () => {
    const res = await http().get(`/api/reports/${ids[V212]}/scans`).set(headers).expect(200);
    expect(res.body.target).toEqual(['http://www.itsecgames.com']);
    expect(
      res.body.scans.map((s: { filename: string; scannedAt: string }) => [s.filename, s.scannedAt]),
    ).toEqual([
      [V211, '2021-11-23T22:36:55.000Z'],
      [V212, '2023-07-04T20:03:01.000Z'],
    ]);
    await http().get('/api/reports/999999/scans').set(headers).expect(404);
  });
});
