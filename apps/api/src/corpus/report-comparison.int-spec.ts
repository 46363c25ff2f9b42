/**
 * Scan comparison over HTTP on the real auth guard, Postgres and Redis: an uploaded re-scan reports
 * what changed since the previous scan; `GET /api/reports/compare` (JSON and streamed CSV) and
 * `GET /api/reports/:id/scans` answer what the query functions answer, with clear 4xx refusals.
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
import { dataSourceOptions } from '@corpus-chat/corpus-queries';
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
  @Module({ imports: [TypeOrmModule.forRoot(dataSourceOptions(db.url)), AuthModule.forRoot(env), CorpusModule.forRoot()] })
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
}, 60_000);
afterAll(async () => {
  await app?.close();
  await db?.drop();
}, 60_000);

const V211 = 'bcgov-pipeline-templates__zap-2.11.0-itsecgames.json';
const V212 = 'bcgov-pipeline-templates__zap-2.12.0-itsecgames.json';
const OTHER = 'dd__zap-results-first-scan.xml';
let ids: Record<string, number>;

describe('scan comparison', () => {
  it('an uploaded re-scan reports what changed since the previous scan of its target', async () => {
    const res = await upload(file(`scans/zap/${V211}`), file(`scans/zap/${V212}`), file(`scans/zap/${OTHER}`)).expect(201);
    ids = Object.fromEntries(res.body.results.map((r: { file: string; reportId: number }) => [r.file, r.reportId]));
    expect(res.body.results[0].sincePrevious).toBeUndefined();
    expect(res.body.results[1].sincePrevious).toEqual({ baselineReportId: ids[V211], baselineFilename: V211, new: 0, fixed: 2, unchanged: 8 });
    expect(res.body.results[2].sincePrevious).toBeUndefined();
  });

  it('GET /api/reports/compare: counts and the new and fixed findings', async () => {
    const res = await http().get('/api/reports/compare').query({ baseline: ids[V211], report: ids[V212] }).set(headers).expect(200);
    expect(res.body).toMatchObject({ new: 0, fixed: 2, unchanged: 8, target: ['http://www.itsecgames.com'], baseline: { id: ids[V211], filename: V211 }, report: { id: ids[V212] } });
    expect(res.body.fixedFindings.map((f: { title: string }) => f.title)).toEqual(['Reverse Tabnabbing', 'Timestamp Disclosure - Unix']);
  });

  it('format=csv streams one row per new and fixed finding', async () => {
    const res = await http().get('/api/reports/compare').query({ baseline: ids[V212], report: ids[V211], format: 'csv' }).set(headers).expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    expect(res.headers['content-disposition']).toContain(`comparison-${ids[V212]}-${ids[V211]}.csv`);
    const lines = res.text.trimEnd().split('\r\n');
    expect(lines[0]).toBe('change,finding_id,title,severity,report_id,report');
    expect(lines.slice(1).map((l) => l.split(',')[0])).toEqual(['new', 'new']);
    expect(lines.slice(1).map((l) => l.split(',')[2]).sort()).toEqual(['Reverse Tabnabbing', 'Timestamp Disclosure - Unix']);
  });

  it('refuses with a message a person can act on', async () => {
    const other = await http().get('/api/reports/compare').query({ baseline: ids[V211], report: ids[OTHER] }).set(headers).expect(422);
    expect(other.body).toMatchObject({ error: 'NOT_SAME_TARGET' });
    expect(other.body.message).toContain('http://www.itsecgames.com');
    expect(other.body.message).toContain('http://bodgeit.securecodebox-demo.svc:8080');
    const missing = await http().get('/api/reports/compare').query({ baseline: ids[V211], report: 999_999 }).set(headers).expect(404);
    expect(missing.body.message).toBe('there is no report 999999');
    await http().get('/api/reports/compare').query({ baseline: ids[V211], report: ids[V211] }).set(headers).expect(400);
    const bad = await http().get('/api/reports/compare').query({ baseline: 'first', report: ids[V211] }).set(headers).expect(400);
    expect(JSON.stringify(bad.body.message)).toContain('baseline must be the id of the older report');
    await http().get('/api/reports/compare').query({ baseline: ids[V211], report: ids[V212] }).expect(401);
  });

  it('GET /api/reports/:id/scans lists the scans of the same target by recorded scan time', async () => {
    const res = await http().get(`/api/reports/${ids[V212]}/scans`).set(headers).expect(200);
    expect(res.body.target).toEqual(['http://www.itsecgames.com']);
    expect(res.body.scans.map((s: { filename: string; scannedAt: string }) => [s.filename, s.scannedAt])).toEqual([
      [V211, '2021-11-23T22:36:55.000Z'],
      [V212, '2023-07-04T20:03:01.000Z'],
    ]);
    await http().get('/api/reports/999999/scans').set(headers).expect(404);
  });
});
