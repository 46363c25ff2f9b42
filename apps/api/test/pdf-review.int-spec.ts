import 'reflect-metadata';
import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import type { Socket } from 'socket.io-client';
import { corpusPath } from '@corpus-chat/ingest/testing';
import { createTestDatabase, type TestDatabase } from '@corpus-chat/persistence/testing';
import { type ApiInstance, newDeployment, signIn, startApiInstance } from './support/chat-harness';
import { ImportViews } from './support/import-views';
import { connectChatSocket, type LoginSession } from './support/login';
import { spawnWorkerProcess, type WorkerProcess } from './support/worker-process';

jest.setTimeout(120_000);

/**
 * A PDF report with the built-in back end (no model): uploaded like any report, its text stored by
 * the worker process, the report waiting in `needs_review`; an operator reads the text, enters
 * findings by hand (validated, audited, counted at once) and marks it reviewed.
 */
describe('PDF reports reviewed by hand', () => {
  let db: TestDatabase;
  let api: ApiInstance;
  let worker: WorkerProcess;
  let alice: LoginSession;
  let socket: Socket;
  const views = new ImportViews();
  const deployment = newDeployment();
  const http = () => request(api.app.getHttpServer());
  const upload = (rel: string) =>
    http()
      .post('/api/reports/import')
      .set(alice.headers)
      .attach('files', fs.readFileSync(corpusPath(rel)), path.basename(rel))
      .expect(202);

  beforeAll(async () => {
    db = await createTestDatabase();
    api = await startApiInstance({ databaseUrl: db.url, ...deployment });
    alice = await signIn(api, db.dataSource);
    socket = await connectChatSocket(api.baseUrl, alice);
    views.listen(socket);
    worker = await spawnWorkerProcess({ databaseUrl: db.url, redisPrefix: deployment.redisPrefix });
  });
  afterAll(async () => {
    socket?.close();
    await worker?.stop();
    await api?.close();
    await db?.drop();
  });

  it('stores the text, waits for review, takes findings by hand that count at once, then is marked reviewed', async () => {
    const queued = await upload('pdf/k8s__2019-TrailOfBits-Kubernetes-Final-Report.pdf');
    const id: string = queued.body.imports[0].id;
    const ended = await views.reached(id, 'ready');
    expect(ended.outcome).toMatchObject({ ok: true, format: 'pdf', findingCount: 0 });
    expect(ended.extraction).toMatchObject({ reportStatus: 'needs_review', model: null, chunksTotal: 0 });
    const reportId = ended.outcome!.ok ? ended.outcome!.reportId : 0;

    const report = await http().get(`/api/reports/${reportId}`).set(alice.headers).expect(200);
    expect(report.body).toMatchObject({
      id: reportId,
      format: 'pdf',
      status: 'needs_review',
      findingCount: 0,
      model: null,
    });
    const text = await http().get(`/api/reports/${reportId}/text?limit=5000`).set(alice.headers).expect(200);
    expect(text.body).toMatchObject({ reportId, pageCount: 117, offset: 0, nextOffset: 5000 });
    expect(text.body.totalChars).toBeGreaterThan(100_000);
    const all = await http().get(`/api/reports/${reportId}/text`).set(alice.headers).expect(200);
    expect(all.body.text).toMatch(/TOB-K8S-\d{3}/);
    await http().get(`/api/reports/${reportId}/text?limit=0`).set(alice.headers).expect(400);

    // Bad input is refused at the edge with what to fix; nothing is written.
    const bad = await http()
      .post(`/api/reports/${reportId}/findings`)
      .set(alice.headers)
      .send({ title: '', severity: 'urgent' })
      .expect(400);
    expect(JSON.stringify(bad.body.message)).toMatch(
      /severity must be one of critical, high, medium, low, info/,
    );
    await http()
      .post(`/api/reports/${reportId}/findings`)
      .set(alice.headers)
      .send({ title: 'x', severity: 'low', cwe: ['CWE-79'] })
      .expect(400);
    await http()
      .post('/api/reports/999999/findings')
      .set(alice.headers)
      .send({ title: 'x', severity: 'low' })
      .expect(404);

    const before = (await http().get('/api/corpus/overview').set(alice.headers).expect(200)).body;
    const added = await http()
      .post(`/api/reports/${reportId}/findings`)
      .set(alice.headers)
      .send({
        title: 'Hostpath volumes allow access to the node',
        severity: 'high',
        cwe: [284],
        description: 'TOB-K8S-038',
        location: 'kubelet',
      })
      .expect(201);
    expect(added.body).toEqual({ findingId: expect.any(Number), reportId, findingCount: 1 });
    await http()
      .post(`/api/reports/${reportId}/findings`)
      .set(alice.headers)
      .send({ title: 'Secrets logged', severity: 'medium' })
      .expect(201);

    // Counted at once, while the report still needs review.
    const high = await http()
      .get(`/api/findings?reportId=${reportId}&severity=high`)
      .set(alice.headers)
      .expect(200);
    expect(high.body.total).toBe(1);
    // The findings list filters by origin: these were entered by hand, and a person's are open.
    const byOrigin = async (origin: string) =>
      (await http().get(`/api/findings?reportId=${reportId}&origin=${origin}`).set(alice.headers).expect(200))
        .body;
    expect(await byOrigin('manual')).toMatchObject({ total: 2, filter: { origin: 'manual' } });
    expect((await byOrigin('manual')).rows.map((r: { status: string }) => r.status)).toEqual([
      'open',
      'open',
    ]);
    expect((await byOrigin('extraction')).total).toBe(0);
    expect((await byOrigin('import')).total).toBe(0);
    await http().get('/api/findings?origin=scanner').set(alice.headers).expect(400);
    const after = (await http().get('/api/corpus/overview').set(alice.headers).expect(200)).body;
    expect(after.findings.total).toBe(before.findings.total + 2);
    expect(after.reports.byStatus.needs_review).toBe(1);
    const detail = await http().get(`/api/findings/${added.body.findingId}`).set(alice.headers).expect(200);
    expect(detail.body.current).toMatchObject({
      version: 1,
      origin: 'manual',
      title: 'Hostpath volumes allow access to the node',
      cwe: [284],
      affectedEndpoints: ['kubelet'],
      editedBy: alice.operator.username,
    });

    const reviewed = await http()
      .post(`/api/reports/${reportId}/review-complete`)
      .set(alice.headers)
      .expect(200);
    expect(reviewed.body).toMatchObject({ id: reportId, status: 'ready', findingCount: 2 });
    const again = await http()
      .post(`/api/reports/${reportId}/review-complete`)
      .set(alice.headers)
      .expect(409);
    expect(again.body.message).toMatch(/is ready, not waiting for review/);
    const late = await http()
      .post(`/api/reports/${reportId}/findings`)
      .set(alice.headers)
      .send({ title: 'Late', severity: 'low' })
      .expect(409);
    expect(late.body.message).toMatch(/only while a report needs review/);

    const audit: { action: string; subject_id: string }[] = await db.dataSource.query(
      `SELECT action, subject_id FROM audit_events WHERE action IN ('report.import', 'finding.create', 'report.review_complete') ORDER BY id`,
    );
    expect(audit.map((a) => a.action)).toEqual([
      'report.import',
      'finding.create',
      'finding.create',
      'report.review_complete',
    ]);
  });

  it('fails a scanned PDF with the reason and writes nothing', async () => {
    const reportsBefore = (await db.dataSource.query(`SELECT count(*)::int AS n FROM reports`))[0].n;
    const queued = await upload('edge/pdf__ppr__CPTC-2020-Finals-G-image-only.pdf');
    const ended = await views.reached(queued.body.imports[0].id, 'failed');
    expect(ended).toMatchObject({
      error: 'no text layer (scanned image); OCR is not supported',
      outcome: { ok: false, code: 'NO_TEXT_LAYER' },
    });
    expect((await db.dataSource.query(`SELECT count(*)::int AS n FROM reports`))[0].n).toBe(reportsBefore);
  });
});
