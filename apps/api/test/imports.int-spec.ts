/**
 * Imports as jobs of the ingest worker: uploads, the per-operator quota and PDF reports reviewed by
 * hand, one block per area, each on a database, Redis prefix and API of its own. One file, so the
 * API's modules load once (about 5 s of CPU a file).
 */

import 'reflect-metadata';
import fs from 'node:fs';
import path from 'node:path';
import { Queue } from 'bullmq';
import request from 'supertest';
import type { Socket } from 'socket.io-client';
import { type ImportJobView, IMPORTS_QUEUE } from '@corpus-chat/contracts';
import { corpusPath } from '@corpus-chat/ingest/testing';
import { createTestDatabase, eventually, type TestDatabase } from '@corpus-chat/persistence/testing';
import { RedisKeys, redisOptionsFromUrl } from '@corpus-chat/server-core';
import { type ApiInstance, newDeployment, signIn, startApiInstance } from './support/chat-harness';
import { ImportViews } from './support/import-views';
import { connectChatSocket, type LoginSession } from './support/login';
import { spawnWorkerProcess, type WorkerProcess } from './support/worker-process';

jest.setTimeout(120_000);

/**
 * Uploads as background jobs, with the real API, a real agent-worker child process, Postgres and
 * Redis: 202 with one queued import per file, parsing in the worker process (not the API's), status
 * changes on the operator's socket, refusals ending `failed` with the importer's reason and nothing
 * written, cancel, and the size limit enforced while the upload streams.
 */
describe('imports as jobs', () => {
  let db: TestDatabase;
  let api: ApiInstance;
  let worker: WorkerProcess | undefined;
  let alice: LoginSession;
  let socket: Socket;
  let queue: Queue;
  const views = new ImportViews();
  const deployment = newDeployment();

  const http = () => request(api.app.getHttpServer());
  const file = (rel: string) => ({ bytes: fs.readFileSync(corpusPath(rel)), name: path.basename(rel) });
  const upload = (...files: { bytes: Buffer; name: string }[]) => {
    let req = http().post('/api/reports/import').set(alice.headers);
    for (const f of files) req = req.attach('files', f.bytes, f.name);
    return req;
  };
  const count = async (table: 'reports' | 'import_jobs'): Promise<number> =>
    (await db.dataSource.query(`SELECT count(*)::int AS n FROM ${table}`))[0].n;
  const uploadsLeft = () => {
    const dir = path.join(api.env.DATA_DIR, 'uploads');
    return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    api = await startApiInstance({ databaseUrl: db.url, ...deployment, env: { IMPORT_MAX_BYTES: '200000' } });
    alice = await signIn(api, db.dataSource);
    socket = await connectChatSocket(api.baseUrl, alice);
    views.listen(socket);
    queue = new Queue(IMPORTS_QUEUE, {
      connection: redisOptionsFromUrl(process.env['TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379'),
      prefix: new RedisKeys(deployment.redisPrefix).bullPrefix,
    });
  });
  afterAll(async () => {
    socket?.close();
    await worker?.stop();
    await queue?.close();
    await api?.close();
    await db?.drop();
  });

  it('cancels a queued import: it ends cancelled and the worker writes nothing', async () => {
    // No worker yet, so the import is still queued when it is cancelled.
    const res = await upload(file('scans/zap/dd__juicy2.xml')).expect(202);
    expect(res.body.imports).toEqual([
      expect.objectContaining({ file: 'dd__juicy2.xml', status: 'queued', outcome: null }),
    ]);
    const id: string = res.body.imports[0].id;

    const cancelled = await http().post(`/api/imports/${id}/cancel`).set(alice.headers).expect(200);
    expect(cancelled.body).toMatchObject({ id, status: 'cancelled', error: 'cancelled by the operator' });
    await views.reached(id, 'cancelled');
    const again = await http().post(`/api/imports/${id}/cancel`).set(alice.headers).expect(409);
    expect(again.body.message).toMatch(/already ended \(cancelled\)/);

    worker = await spawnWorkerProcess({ databaseUrl: db.url, redisPrefix: deployment.redisPrefix });
    const job = await eventually(
      async () => {
        const j = await queue.getJob(id);
        return j?.finishedOn ? j : undefined;
      },
      60_000,
      'cancelled import job finished',
    );
    expect(job!.returnvalue).toBe('skipped');
    expect(await count('reports')).toBe(0);
    expect(uploadsLeft()).toEqual([]);
  });

  it('answers 202, then the worker process parses and stores each file with its counts', async () => {
    const res = await upload(
      file('scans/sarif/dd__flawfinder.sarif'),
      file('scans/zap/dd__juicy2.xml'),
    ).expect(202);
    const [sarif, zap] = res.body.imports as ImportJobView[];
    expect([sarif.status, zap.status]).toEqual(['queued', 'queued']);

    await views.reached(sarif.id, 'ready');
    await views.reached(zap.id, 'ready');
    expect(views.seen.filter((v) => v.id === sarif.id).map((v) => v.status)).toEqual(['parsing', 'ready']);

    const done = await http().get(`/api/imports/${sarif.id}`).set(alice.headers).expect(200);
    expect(done.body).toMatchObject({
      status: 'ready',
      error: null,
      outcome: { ok: true, file: 'dd__flawfinder.sarif', format: 'sarif', findingCount: 53 },
    });
    const zapDone = await http().get(`/api/imports/${zap.id}`).set(alice.headers).expect(200);
    expect(zapDone.body.outcome).toMatchObject({ ok: true, format: 'zap', findingCount: 6 });
    const reports = await http().get('/api/reports').set(alice.headers).expect(200);
    expect(
      reports.body
        .map((r: { filename: string; findingCount: number }) => [r.filename, r.findingCount])
        .sort(),
    ).toEqual([
      ['dd__flawfinder.sarif', 53],
      ['dd__juicy2.xml', 6],
    ]);

    // Parsed in the worker process: BullMQ records which worker ran the job (its name is the worker id).
    expect((await queue.getJob(sarif.id))?.processedBy).toBe(worker!.workerId);
    expect(uploadsLeft()).toEqual([]);
  });

  it("ends refused files failed with the importer's reason and writes nothing", async () => {
    const reportsBefore = await count('reports');
    const sarifReport = (await http().get('/api/reports').set(alice.headers)).body.find(
      (r: { filename: string }) => r.filename === 'dd__flawfinder.sarif',
    );
    const res = await upload(
      file('scans/sarif/dd__flawfinder.sarif'),
      file('edge/burp__dd__dastardly-junit-not-burp-xml.xml'),
    ).expect(202);
    const [dup, junit] = res.body.imports as ImportJobView[];

    const dupEnd = await views.reached(dup.id, 'failed');
    expect(dupEnd.outcome).toMatchObject({ ok: false, code: 'DUPLICATE', existingReportId: sarifReport.id });
    expect(dupEnd.error).toBe(
      `this report was already imported as report ${sarifReport.id} (dd__flawfinder.sarif); archive that one to import it again`,
    );
    const junitEnd = await views.reached(junit.id, 'failed');
    expect(junitEnd.outcome).toMatchObject({ ok: false, code: 'UNRECOGNISED_FORMAT' });
    expect(junitEnd.error).toMatch(/<testsuites>/);
    expect(await count('reports')).toBe(reportsBefore);
  });

  it('refuses a file over the size limit with 413 while it streams, keeping nothing', async () => {
    const importsBefore = await count('import_jobs');
    const big = await upload(
      file('scans/sarif/dd__flawfinder.sarif'),
      file('pdf/ppr__NCATS-VADR-Sample-Report.pdf'),
    ).expect(413);
    expect(big.body).toMatchObject({
      error: 'TOO_LARGE',
      message: expect.stringMatching(/over the 195\.3 KB import limit; nothing was imported/),
    });
    expect(await count('import_jobs')).toBe(importsBefore);
    expect(uploadsLeft()).toEqual([]);
  });

  it('keeps imports to their operator', async () => {
    const bob = await signIn(api, db.dataSource);
    const mine = await http().get('/api/imports').set(alice.headers).expect(200);
    expect(mine.body.length).toBeGreaterThan(0);
    expect((await http().get('/api/imports').set(bob.headers).expect(200)).body).toEqual([]);
    await http().get(`/api/imports/${mine.body[0].id}`).set(bob.headers).expect(404);
    await http().post(`/api/imports/${mine.body[0].id}/cancel`).set(bob.headers).expect(404);
    await http().get('/api/imports/not-a-uuid').set(alice.headers).expect(400);
  });
});

/**
 * The per-operator import quota: imports queued or running (`IMPORT_QUEUE_PER_OPERATOR`) and bytes
 * of queued uploads (`IMPORT_QUEUED_BYTES_PER_OPERATOR`). No worker runs, so uploads stay queued.
 */
describe('import quota per operator', () => {
  const QUEUED_BYTES = 100_000;

  let db: TestDatabase;
  let api: ApiInstance;

  beforeAll(async () => {
    db = await createTestDatabase();
    api = await startApiInstance({
      databaseUrl: db.url,
      ...newDeployment(),
      env: { IMPORT_QUEUE_PER_OPERATOR: '2', IMPORT_QUEUED_BYTES_PER_OPERATOR: String(QUEUED_BYTES) },
    });
  });
  afterAll(async () => {
    await api?.close();
    await db?.drop();
  });

  const upload = (who: LoginSession, ...files: { bytes: Buffer; name: string }[]) => {
    let req = request(api.baseUrl).post('/api/reports/import').set(who.headers);
    for (const f of files) req = req.attach('files', f.bytes, f.name);
    return req;
  };
  const csv = (name: string, bytes = 64) => ({
    name,
    bytes: Buffer.from(`title,severity\n${'x'.repeat(Math.max(1, bytes - 20))},high\n`),
  });
  const queuedOf = async (who: LoginSession): Promise<number> =>
    (
      await db.dataSource.query(`SELECT count(*)::int AS n FROM import_jobs WHERE operator_id = $1`, [
        who.operator.id,
      ])
    )[0].n;
  const uploadsLeft = () => {
    const dir = path.join(api.env.DATA_DIR, 'uploads');
    return fs.existsSync(dir) ? fs.readdirSync(dir).length : 0;
  };

  it('refuses imports past the operator’s queued or running count with 429 saying what to do, keeping nothing', async () => {
    const alice = await signIn(api, db.dataSource);
    const bob = await signIn(api, db.dataSource);
    const first = await upload(alice, csv('a.csv'), csv('b.csv'));
    expect(first.status).toBe(202);
    const filesBefore = uploadsLeft();
    const refused = await upload(alice, csv('c.csv'));
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ error: 'IMPORT_QUOTA', queued: 2 });
    expect(refused.body.message).toMatch(
      /You have 2 imports waiting or running.*limit of 2; nothing was imported/,
    );
    expect(refused.body.message).toMatch(/cancel ones you no longer need/);
    expect(await queuedOf(alice)).toBe(2);
    expect(uploadsLeft()).toBe(filesBefore);
    // Another operator's queue is their own.
    expect((await upload(bob, csv('d.csv'))).status).toBe(202);
    // An ended import no longer counts.
    const id: string = first.body.imports[0].id;
    expect((await request(api.baseUrl).post(`/api/imports/${id}/cancel`).set(alice.headers)).status).toBe(
      200,
    );
    expect((await upload(alice, csv('c.csv'))).status).toBe(202);
  });

  it('refuses uploads past the bytes of queued uploads with 429, and two parallel uploads cannot both pass', async () => {
    const carol = await signIn(api, db.dataSource);
    const big = (name: string) => csv(name, QUEUED_BYTES * 0.6);
    const answers = await Promise.all([upload(carol, big('e.csv')), upload(carol, big('f.csv'))]);
    expect(answers.map((r) => r.status).sort()).toEqual([202, 429]);
    const refused = answers.find((r) => r.status === 429)!;
    expect(refused.body.message).toMatch(
      /Your queued uploads hold 58\.6 KB, and these 58\.6 KB would pass your limit of 97\.7 KB/,
    );
    expect(await queuedOf(carol)).toBe(1);
  });

  it('counts chat attachments against the same quota: past it, 429 and nothing attached', async () => {
    const dave = await signIn(api, db.dataSource);
    expect((await upload(dave, csv('g.csv'), csv('h.csv'))).status).toBe(202);
    const chat = await request(api.baseUrl).post('/api/chats').set(dave.headers).send({}).expect(201);
    const attached = await request(api.baseUrl)
      .post(`/api/chats/${chat.body.id}/attachments`)
      .set(dave.headers)
      .attach('file', csv('i.csv').bytes, 'i.csv');
    expect(attached.status).toBe(429);
    expect(attached.body).toMatchObject({ error: 'IMPORT_QUOTA', queued: 2 });
    expect(await queuedOf(dave)).toBe(2);
    const attachments = await db.dataSource.query(
      `SELECT count(*)::int AS n FROM chat_attachments WHERE chat_id = $1`,
      [chat.body.id],
    );
    expect(attachments[0].n).toBe(0);
  });
});

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
