/**
 * `/api/reports`, `/api/findings`, `/api/corpus` on the real auth guard, Postgres and Redis:
 * multipart import with per-file outcomes (201, 409 duplicate, 413 over the limit, 422 refused,
 * 200 mixed), archive, and the query endpoints answering what the query functions answer.
 */
import 'reflect-metadata';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Module } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import { TypeOrmModule } from '@nestjs/typeorm';
import request from 'supertest';
import { CSRF_HEADER, CSRF_HEADER_VALUE } from '@corpus-chat/contracts';
import { countFindingsBy, dataSourceOptions, searchFindings } from '@corpus-chat/corpus-queries';
import { corpusPath, createTestDatabase, insertTestOperator, type TestDatabase, testDataDir, testRedisPrefix } from '@corpus-chat/corpus-queries/testing';
import { AuthModule } from '../auth/auth.module';
import { loadAuthEnv } from '../auth/auth.env';
import { createValidationPipe } from '../errors/validation';
import { CorpusModule } from './corpus.module';

let db: TestDatabase;
let app: NestExpressApplication;
let headers: Record<string, string>;

const file = (rel: string) => ({ bytes: fs.readFileSync(corpusPath(rel)), name: path.basename(rel) });
const http = () => request(app.getHttpServer());
const upload = (...files: { bytes: Buffer; name: string }[]) => {
  let req = http().post('/api/reports/import').set(headers);
  for (const f of files) req = req.attach('files', f.bytes, f.name);
  return req;
};

beforeAll(async () => {
  db = await createTestDatabase();
  const env = loadAuthEnv({
    NODE_ENV: 'test',
    DATABASE_URL: db.url,
    REDIS_PREFIX: testRedisPrefix(),
    JWT_SECRET: crypto.randomBytes(32).toString('hex'),
    DATA_DIR: testDataDir(),
  });
  @Module({ imports: [TypeOrmModule.forRoot(dataSourceOptions(db.url)), AuthModule.forRoot(env), CorpusModule.forRoot({ maxImportBytes: 200_000 })] })
  class CorpusTestModule {}
  const ref = await Test.createTestingModule({ imports: [CorpusTestModule] }).compile();
  app = ref.createNestApplication<NestExpressApplication>({ logger: ['error'] });
  app.setGlobalPrefix('api');
  app.useGlobalPipes(createValidationPipe());
  await app.init();
  const op = await insertTestOperator(db.dataSource, { role: 'operator' });
  const res = await http().post('/api/auth/login').set(CSRF_HEADER, CSRF_HEADER_VALUE).send({ username: op.username, password: op.password });
  expect(res.status).toBe(200);
  const cookie = ([] as string[]).concat(res.headers['set-cookie']).map((c) => c.split(';')[0]).find((c) => c.startsWith('cc_session='))!;
  headers = { Cookie: cookie, [CSRF_HEADER]: CSRF_HEADER_VALUE };
});
afterAll(async () => {
  await app?.close();
  await db?.drop();
});

describe('import', () => {
  it('needs a session', async () => {
    await http().get('/api/reports').expect(401);
    await http().get('/api/findings').expect(401);
    await http().post('/api/reports/import').set(CSRF_HEADER, CSRF_HEADER_VALUE).attach('files', Buffer.from('{}'), 'x.json').expect(401);
  });

  it('imports files with one outcome each (201), refuses a duplicate with 409 naming the report', async () => {
    const first = await upload(file('scans/sarif/dd__flawfinder.sarif'), file('scans/zap/dd__juicy2.xml')).expect(201);
    expect(first.body.results).toEqual([
      { ok: true, file: 'dd__flawfinder.sarif', reportId: expect.any(Number), format: 'sarif', findingCount: 53 },
      { ok: true, file: 'dd__juicy2.xml', reportId: expect.any(Number), format: 'zap', findingCount: 6 },
    ]);
    const exports = await upload(file('scans/csv/dd__generic_report_kev_cvssv4.csv'), file('scans/nessus/dd__nessus_was_many_vuln.nessus')).expect(201);
    expect(exports.body.results).toEqual([
      { ok: true, file: 'dd__generic_report_kev_cvssv4.csv', reportId: expect.any(Number), format: 'csv', findingCount: 1 },
      { ok: true, file: 'dd__nessus_was_many_vuln.nessus', reportId: expect.any(Number), format: 'nessus', findingCount: 5 },
    ]);
    const dup = await upload(file('scans/sarif/dd__flawfinder.sarif')).expect(409);
    expect(dup.body.results[0]).toMatchObject({ ok: false, code: 'DUPLICATE', existingReportId: first.body.results[0].reportId });
    expect(dup.body.message).toContain(`report ${first.body.results[0].reportId} (dd__flawfinder.sarif)`);
  });

  it('answers 422 when every file is refused, 200 for a mixed batch, 400 without files', async () => {
    const refused = await upload(file('pdf/ppr__NCATS-VADR-Sample-Report.pdf')).expect(413);
    expect(refused.body).toMatchObject({ error: 'TOO_LARGE', message: expect.stringMatching(/over the 195\.3 KB import limit/) });
    const junit = await upload(file('edge/burp__dd__dastardly-junit-not-burp-xml.xml')).expect(422);
    expect(junit.body.results[0]).toMatchObject({ ok: false, code: 'UNRECOGNISED_FORMAT', error: expect.stringMatching(/<testsuites>/) });
    const mixed = await upload(file('scans/nuclei/dd__many_findings_new.jsonl'), file('edge/trivy__scb__test-empty-report.json')).expect(200);
    expect(mixed.body.results.map((r: { ok: boolean }) => r.ok)).toEqual([true, false]);
    expect(mixed.body.results[1]).toMatchObject({ code: 'EMPTY', error: 'the file holds no report' });
    await http().post('/api/reports/import').set(headers).expect(400);
  });

  it('refuses a file over the size limit with 413 and writes nothing', async () => {
    const before = await http().get('/api/reports').set(headers).expect(200);
    const big = await upload(file('scans/nuclei/dd__issue_14071.jsonl')).expect(413);
    expect(big.body.message).toMatch(/import limit/);
    const after = await http().get('/api/reports').set(headers).expect(200);
    expect(after.body).toHaveLength(before.body.length);
  });
});

describe('reports', () => {
  it('archives and restores a report; unknown ids are 404, bad bodies 400', async () => {
    const list = await http().get('/api/reports').set(headers).expect(200);
    const juicy = list.body.find((r: { filename: string }) => r.filename === 'dd__juicy2.xml');
    expect(juicy).toMatchObject({ findingCount: 6, archived: false, status: 'ready', bySeverity: { low: 2, medium: 2, info: 2 } });

    const archived = await http().patch(`/api/reports/${juicy.id}`).set(headers).send({ archived: true }).expect(200);
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
    await http().patch(`/api/reports/${juicy.id}`).set(headers).send({ archived: true, extra: 1 }).expect(400);
  });
});

describe('findings', () => {
  it('GET /api/findings answers what searchFindings answers; bad values are 400 naming the field', async () => {
    const res = await http().get('/api/findings').query({ text: 'buffer overflow', limit: 5 }).set(headers).expect(200);
    const direct = await searchFindings(db.dataSource.manager, { text: 'buffer overflow', limit: 5 });
    expect(res.body).toEqual(direct);
    expect(res.body.total).toBeGreaterThan(5);
    expect(res.body.rows).toHaveLength(5);

    const byName = await http().get('/api/findings').query({ reportName: 'DD__FLAWFINDER.SARIF', limit: 0 }).set(headers).expect(200);
    expect(byName.body.total).toBe(53);

    const bad = await http().get('/api/findings').query({ severity: 'urgent' }).set(headers).expect(400);
    expect(JSON.stringify(bad.body)).toContain('severity must be one of');
    await http().get('/api/findings').query({ limit: 51 }).set(headers).expect(400);
    const unknownReport = await http().get('/api/findings').query({ reportName: 'nope.sarif' }).set(headers).expect(400);
    expect(unknownReport.body).toMatchObject({ field: 'reportName' });
  });

  it('GET /api/findings/counts groups exactly', async () => {
    const res = await http().get('/api/findings/counts').query({ groupBy: 'severity', reportName: 'dd__flawfinder.sarif' }).set(headers).expect(200);
    const direct = await countFindingsBy(db.dataSource.manager, { groupBy: 'severity', filter: { reportName: 'dd__flawfinder.sarif' } });
    expect(res.body).toEqual(direct);
    expect(res.body.total).toBe(53);
    await http().get('/api/findings/counts').query({ groupBy: 'colour' }).set(headers).expect(400);
  });

  it('GET /api/findings/counts takes the format and scanner filters and groups by format', async () => {
    const res = await http().get('/api/findings/counts').query({ groupBy: 'format', scanner: 'FLAWFINDER' }).set(headers).expect(200);
    const direct = await countFindingsBy(db.dataSource.manager, { groupBy: 'format', filter: { scanner: 'FLAWFINDER' } });
    expect(res.body).toEqual(direct);
    expect(res.body.groups).toEqual([{ key: 'sarif', label: 'sarif', count: 53 }]);
    const sarif = await http().get('/api/findings').query({ format: 'sarif', limit: 0 }).set(headers).expect(200);
    expect(sarif.body.total).toBe((await searchFindings(db.dataSource.manager, { format: 'sarif', limit: 0 })).total);
    const bad = await http().get('/api/findings').query({ format: 'pdf' }).set(headers).expect(400);
    expect(JSON.stringify(bad.body)).toContain('format must be one of');
  });

  it('GET /api/findings/:id answers the detail, 404 when unknown, 400 when not a number', async () => {
    const page = await http().get('/api/findings').query({ limit: 1 }).set(headers).expect(200);
    const id = page.body.rows[0].id;
    const detail = await http().get(`/api/findings/${id}`).set(headers).expect(200);
    expect(detail.body).toMatchObject({ id, versionCount: 1, current: { version: 1, origin: 'import' }, notes: [], latestVerdict: null });
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
