import 'reflect-metadata';
import fs from 'node:fs';
import path from 'node:path';
import { Queue } from 'bullmq';
import request from 'supertest';
import type { Socket } from 'socket.io-client';
import { IMPORTS_QUEUE, type ImportJobView } from '@corpus-chat/contracts';
import { corpusPath } from '@corpus-chat/ingest/testing';
import { createTestDatabase, type TestDatabase } from '@corpus-chat/persistence/testing';
import { RedisKeys, redisOptionsFromUrl } from '@corpus-chat/server-core';
import {
  type ApiInstance,
  eventually,
  newDeployment,
  signIn,
  startApiInstance,
} from './support/chat-harness';
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
