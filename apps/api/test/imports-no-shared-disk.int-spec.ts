import 'reflect-metadata';
import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import type { Socket } from 'socket.io-client';
import { DEFAULT_MAX_IMPORT_BYTES } from '@corpus-chat/ingest';
import {
  createTestDatabase,
  storedUploadBytes,
  type TestDatabase,
  testDataDir,
} from '@corpus-chat/persistence/testing';
import { type ApiInstance, newDeployment, signIn, startApiInstance } from './support/chat-harness';
import { ImportViews } from './support/import-views';
import { connectChatSocket, type LoginSession } from './support/login';
import { spawnWorkerProcess, type WorkerProcess } from './support/worker-process';

jest.setTimeout(180_000);

/**
 * The API and the worker share no folder: the API streams an upload to its own disk, records its
 * bytes in Postgres and removes the file; the worker, given a `DATA_DIR` of its own, reads the
 * bytes from Postgres. A file at the size limit imports, and afterwards no byte of it is left in
 * either folder or in Postgres.
 */
describe('uploads without a shared disk', () => {
  let db: TestDatabase;
  let api: ApiInstance;
  let worker: WorkerProcess;
  let alice: LoginSession;
  let socket: Socket;
  const workerDir = testDataDir();
  const views = new ImportViews();

  beforeAll(async () => {
    db = await createTestDatabase();
    const deployment = newDeployment();
    fs.mkdirSync(workerDir, { recursive: true });
    [api, worker] = await Promise.all([
      startApiInstance({ databaseUrl: db.url, ...deployment }),
      spawnWorkerProcess({ databaseUrl: db.url, ...deployment, env: { DATA_DIR: workerDir } }),
    ]);
    expect(api.env.DATA_DIR).not.toBe(workerDir);
    alice = await signIn(api, db.dataSource);
    socket = await connectChatSocket(api.baseUrl, alice);
    views.listen(socket);
  });
  afterAll(async () => {
    socket?.close();
    await worker?.stop();
    await api?.close();
    await db?.drop();
    fs.rmSync(workerDir, { recursive: true, force: true });
  });

  /** Files under `dir` (recursively), or none when it does not exist. */
  const filesIn = (dir: string) =>
    fs.existsSync(dir)
      ? fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile())
      : [];

  it('imports a file at the size limit, then keeps no byte of it anywhere', async () => {
    // SARIF 2.1.0 with two results, padded to the limit by a run's property bag.
    const head = JSON.stringify({
      version: '2.1.0',
      runs: [
        {
          tool: { driver: { name: 'padded-scanner' } },
          results: [1, 2].map((n) => ({
            ruleId: `R${n}`,
            level: 'error',
            message: { text: `Finding ${n}: SQL injection` },
            locations: [{ physicalLocation: { artifactLocation: { uri: `src/f${n}.c` } } }],
          })),
          properties: { padding: '' },
        },
      ],
    });
    const pad = DEFAULT_MAX_IMPORT_BYTES - Buffer.byteLength(head);
    const bytes = Buffer.from(head.replace('"padding":""', `"padding":"${'x'.repeat(pad)}"`));
    expect(bytes.byteLength).toBe(DEFAULT_MAX_IMPORT_BYTES);

    const res = await request(api.app.getHttpServer())
      .post('/api/reports/import')
      .set(alice.headers)
      .attach('files', bytes, 'padded.sarif')
      .expect(202);
    const id: string = res.body.imports[0].id;
    // Recorded: the bytes wait in Postgres, and the API's copy is gone before the worker reads them.
    expect(filesIn(path.join(api.env.DATA_DIR, 'uploads'))).toEqual([]);

    const ready = await views.reached(id, 'ready', 150_000);
    expect(ready.outcome).toMatchObject({ ok: true, format: 'sarif', findingCount: 2 });
    expect(await storedUploadBytes(db.dataSource, id)).toBe(0);
    expect(filesIn(path.join(api.env.DATA_DIR, 'uploads'))).toEqual([]);
    expect(filesIn(workerDir)).toEqual([]);
  });
});
