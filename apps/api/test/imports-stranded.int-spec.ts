import 'reflect-metadata';
import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import type { Socket } from 'socket.io-client';
import type { ImportJobStatus } from '@corpus-chat/contracts';
import {
  createImportJobs,
  IMPORT_JOB_LOST_REASON,
  IMPORT_WORKER_LOST_REASON as WORKER_LOST_REASON,
} from '@corpus-chat/ingest';
import { corpusPath } from '@corpus-chat/ingest/testing';
import { createTestDatabase, storedUploadBytes, type TestDatabase } from '@corpus-chat/persistence/testing';
import { JobSweeper } from '../src/jobs/job-sweeper';
import { type ApiInstance, newDeployment, signIn, startApiInstance } from './support/chat-harness';
import { ImportViews } from './support/import-views';
import { connectChatSocket, type LoginSession } from './support/login';
import { spawnWorkerProcess, type WorkerProcess } from './support/worker-process';

jest.setTimeout(150_000);

/** Short locks, so a dead worker's import is noticed within seconds (the bound is lock + 2 stalled intervals). */
const FAST_RECOVERY = { LOCK_DURATION_MS: '2000', STALLED_INTERVAL_MS: '1000' };

/**
 * An import whose worker dies mid-parse does not stay `parsing`: the worker is killed (SIGKILL)
 * while it reads the upload, and another worker's stalled check ends the import `failed` with a
 * reason the operator can act on, writing nothing. The upload's table is locked meanwhile, so the
 * first worker is held inside the read however fast the machine is.
 */
describe('an import whose worker died', () => {
  let db: TestDatabase;
  let api: ApiInstance;
  let alice: LoginSession;
  let socket: Socket;
  const workers: WorkerProcess[] = [];
  const views = new ImportViews();
  const deployment = newDeployment();
  const spawn = () =>
    spawnWorkerProcess({ databaseUrl: db.url, redisPrefix: deployment.redisPrefix, env: FAST_RECOVERY }).then(
      (w) => {
        workers.push(w);
        return w;
      },
    );
  const row = async (id: string): Promise<{ status: ImportJobStatus; error: string | null }> =>
    (await db.dataSource.query(`SELECT status, error FROM import_jobs WHERE id = $1`, [id]))[0];

  beforeAll(async () => {
    db = await createTestDatabase();
    api = await startApiInstance({ databaseUrl: db.url, ...deployment });
    alice = await signIn(api, db.dataSource);
    socket = await connectChatSocket(api.baseUrl, alice);
    views.listen(socket);
  });
  afterAll(async () => {
    socket?.close();
    await Promise.all(workers.map((w) => w.stop()));
    await api?.close();
    await db?.drop();
  });

  it('ends failed with the reason once another worker runs, and writes nothing', async () => {
    // No worker yet: the import waits queued, and its upload is locked so the worker hangs reading it.
    const bytes = fs.readFileSync(corpusPath('scans/zap/dd__juicy2.xml'));
    const res = await request(api.app.getHttpServer())
      .post('/api/reports/import')
      .set(alice.headers)
      .attach('files', bytes, 'dd__juicy2.xml')
      .expect(202);
    const id: string = res.body.imports[0].id;
    const lock = db.dataSource.createQueryRunner();
    await lock.connect();
    await lock.startTransaction();
    await lock.query(`LOCK TABLE import_upload_chunks IN ACCESS EXCLUSIVE MODE`);

    const doomed = await spawn();
    // The socket's update, not the row: the worker stores `parsing` before it publishes it, and a
    // kill between the two would leave the client without it.
    await views.reached(id, 'parsing');
    doomed.kill('SIGKILL');
    expect((await doomed.exited).signal).toBe('SIGKILL');
    expect((await row(id)).status).toBe('parsing');
    await lock.rollbackTransaction();
    await lock.release();

    await spawn();
    const failed = await views.reached(id, 'failed');
    expect(failed!.error).toBe(WORKER_LOST_REASON);
    expect(await row(id)).toMatchObject({ status: 'failed', error: WORKER_LOST_REASON });
    const read = await request(api.app.getHttpServer())
      .get(`/api/imports/${id}`)
      .set(alice.headers)
      .expect(200);
    expect(read.body).toMatchObject({ status: 'failed', error: WORKER_LOST_REASON });
    expect(views.seen.filter((v) => v.id === id).map((v) => v.status)).toEqual(['parsing', 'failed']);
    expect((await db.dataSource.query(`SELECT count(*)::int AS n FROM reports`))[0].n).toBe(0);
    // Nothing of the upload is left: not its bytes in Postgres, nor the API's local copy.
    expect(await storedUploadBytes(db.dataSource, id)).toBe(0);
    expect(fs.readdirSync(path.join(api.env.DATA_DIR, 'uploads'))).toEqual([]);
  });

  it('the sweep queues an import whose job never reached Redis, and ends one whose job is gone', async () => {
    // Rows as a crash between commit and enqueue, or a flushed Redis, leaves them: no job at all.
    const store = (name: string) => {
      const uploadPath = corpusPath(`scans/burp/${name}`);
      return { filename: name, uploadPath, sizeBytes: fs.statSync(uploadPath).size };
    };
    const [queued] = await createImportJobs(db.dataSource, alice.operator.id, [store('dd__one_finding.xml')]);
    const [lost] = await createImportJobs(db.dataSource, alice.operator.id, [
      store('dd__one_finding_with_cwe.xml'),
    ]);
    await db.dataSource.query(`UPDATE import_jobs SET status = 'parsing' WHERE id = $1`, [lost.id]);

    const done = await api.app.get(JobSweeper).sweep(0);
    expect(done.get(queued.id)).toBe('requeued');
    expect(done.get(lost.id)).toBe('ended');

    // The worker still running from the first test parses the queued one.
    const ready = await views.reached(queued.id, 'ready');
    expect(ready!.outcome).toMatchObject({
      ok: true,
      file: 'dd__one_finding.xml',
      format: 'burp',
      findingCount: 3,
    });
    const failed = await views.reached(lost.id, 'failed', 10_000);
    expect(failed!.error).toBe(IMPORT_JOB_LOST_REASON);
    expect(await row(lost.id)).toMatchObject({ status: 'failed', error: IMPORT_JOB_LOST_REASON });
    expect(await storedUploadBytes(db.dataSource, lost.id)).toBe(0);
    // Nothing left to do: a second sweep finds no stale import.
    expect((await api.app.get(JobSweeper).sweep(0)).size).toBe(0);
  });
});
