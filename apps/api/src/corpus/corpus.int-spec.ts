/**
 * `/api/reports`, `/api/findings`, `/api/corpus` on the real auth guard, Postgres and Redis:
 * archive, and the query endpoints answering what the query functions answer. The corpus is
 * imported with the library importer; uploads through the ingest worker are tested in
 * `apps/api/test/imports.int-spec.ts`.
 */
import 'reflect-metadata';
import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { countFindingsBy, searchFindings } from '@corpus-chat/corpus-queries';
import { importReport } from '@corpus-chat/ingest';
import { corpusPath } from '@corpus-chat/ingest/testing';
import { createTestDatabase, type TestDatabase } from '@corpus-chat/persistence/testing';
import { type ApiInstance, newDeployment, signIn, startApiInstance } from '../../test/support/chat-harness';

let db: TestDatabase;
let api: ApiInstance;
let headers: Record<string, string>;

const http = () => request(api.app.getHttpServer());

beforeAll(async () => {
  db = await createTestDatabase();
  for (const rel of [
    'scans/sarif/dd__flawfinder.sarif',
    'scans/zap/dd__juicy2.xml',
    'scans/nuclei/dd__many_findings_new.jsonl',
  ]) {
    const outcome = await importReport(db.dataSource, {
      filename: path.basename(rel),
      bytes: fs.readFileSync(corpusPath(rel)),
    });
    expect(outcome.ok).toBe(true);
  }
  api = await startApiInstance({ databaseUrl: db.url, ...newDeployment() });
  headers = (await signIn(api, db.dataSource)).headers;
});
afterAll(async () => {
  await api?.close();
  await db?.drop();
});

it('needs a session', async () => {
  await http().get('/api/reports').expect(401);
  await http().get('/api/findings').expect(401);
});

describe('reports', () => {
  it('archives and restores a report; unknown ids are 404, bad bodies 400', async () => {
    const list = await http().get('/api/reports').set(headers).expect(200);
    const juicy = list.body.find((r: { filename: string }) => r.filename === 'dd__juicy2.xml');
    expect(juicy).toMatchObject({
      findingCount: 6,
      archived: false,
      status: 'ready',
      bySeverity: { low: 2, medium: 2, info: 2 },
    });

    const archived = await http()
      .patch(`/api/reports/${juicy.id}`)
      .set(headers)
      .send({ archived: true })
      .expect(200);
    expect(archived.body).toMatchObject({ id: juicy.id, archived: true });
    const live = await http().get('/api/reports').set(headers).expect(200);
    expect(live.body.map((r: { id: number }) => r.id)).not.toContain(juicy.id);
    const all = await http().get('/api/reports?includeArchived=true').set(headers).expect(200);
    expect(all.body.map((r: { id: number }) => r.id)).toContain(juicy.id);
    const overview = await http().get('/api/corpus/overview').set(headers).expect(200);
    expect(overview.body.perReport.map((r: { id: number }) => r.id)).not.toContain(juicy.id);

    await http().patch(`/api/reports/${juicy.id}`).set(headers).send({ archived: false }).expect(200);
    await http().patch('/api/reports/999999').set(headers).send({ archived: true }).expect(404);
    await http().patch(`/api/reports/${juicy.id}`).set(headers).send({ archived: 'yes' }).expect(400);
    await http()
      .patch(`/api/reports/${juicy.id}`)
      .set(headers)
      .send({ archived: true, extra: 1 })
      .expect(400);
  });
});

describe('findings', () => {
  it('GET /api/findings answers what searchFindings answers; bad values are 400 naming the field', async () => {
    const res = await http()
      .get('/api/findings')
      .query({ text: 'buffer overflow', limit: 5 })
      .set(headers)
      .expect(200);
    const direct = await searchFindings(db.dataSource.manager, { text: 'buffer overflow', limit: 5 });
    expect(res.body).toEqual(direct);
    expect(res.body.total).toBeGreaterThan(5);
    expect(res.body.rows).toHaveLength(5);

    const byName = await http()
      .get('/api/findings')
      .query({ reportName: 'DD__FLAWFINDER.SARIF', limit: 0 })
      .set(headers)
      .expect(200);
    expect(byName.body.total).toBe(53);

    const bad = await http().get('/api/findings').query({ severity: 'urgent' }).set(headers).expect(400);
    expect(JSON.stringify(bad.body)).toContain('severity must be one of');
    await http().get('/api/findings').query({ limit: 51 }).set(headers).expect(400);
    const unknownReport = await http()
      .get('/api/findings')
      .query({ reportName: 'nope.sarif' })
      .set(headers)
      .expect(400);
    expect(unknownReport.body).toMatchObject({ field: 'reportName' });
  });

  it('GET /api/findings/counts groups exactly', async () => {
    const res = await http()
      .get('/api/findings/counts')
      .query({ groupBy: 'severity', reportName: 'dd__flawfinder.sarif' })
      .set(headers)
      .expect(200);
    const direct = await countFindingsBy(db.dataSource.manager, {
      groupBy: 'severity',
      filter: { reportName: 'dd__flawfinder.sarif' },
    });
    expect(res.body).toEqual(direct);
    expect(res.body.total).toBe(53);
    await http().get('/api/findings/counts').query({ groupBy: 'colour' }).set(headers).expect(400);
  });

  it('GET /api/findings/counts takes the format and scanner filters and groups by format', async () => {
    const res = await http()
      .get('/api/findings/counts')
      .query({ groupBy: 'format', scanner: 'FLAWFINDER' })
      .set(headers)
      .expect(200);
    const direct = await countFindingsBy(db.dataSource.manager, {
      groupBy: 'format',
      filter: { scanner: 'FLAWFINDER' },
    });
    expect(res.body).toEqual(direct);
    expect(res.body.groups).toEqual([{ key: 'sarif', label: 'sarif', count: 53 }]);
    const sarif = await http()
      .get('/api/findings')
      .query({ format: 'sarif', limit: 0 })
      .set(headers)
      .expect(200);
    expect(sarif.body.total).toBe(
      (await searchFindings(db.dataSource.manager, { format: 'sarif', limit: 0 })).total,
    );
    const bad = await http().get('/api/findings').query({ format: 'docx' }).set(headers).expect(400);
    expect(JSON.stringify(bad.body)).toContain('format must be one of');
  });

  it('GET /api/findings/:id answers the detail, 404 when unknown, 400 when not a number', async () => {
    const page = await http().get('/api/findings').query({ limit: 1 }).set(headers).expect(200);
    const id = page.body.rows[0].id;
    const detail = await http().get(`/api/findings/${id}`).set(headers).expect(200);
    expect(detail.body).toMatchObject({
      id,
      versionCount: 1,
      current: { version: 1, origin: 'import' },
      notes: [],
      latestVerdict: null,
    });
    await http().get('/api/findings/99999999').set(headers).expect(404);
    await http().get('/api/findings/abc').set(headers).expect(400);
  });

  it('GET /api/corpus/overview totals the live corpus', async () => {
    const res = await http().get('/api/corpus/overview').set(headers).expect(200);
    const total = await searchFindings(db.dataSource.manager, { limit: 0 });
    expect(res.body.findings.total).toBe(total.total);
    expect(res.body.reports.total).toBe(res.body.perReport.length);
  });
});
