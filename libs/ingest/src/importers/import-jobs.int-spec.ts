/** Import jobs against Postgres: the worker's run, a cancel while parsing, retries, operator scoping. */
import fs from 'node:fs';
import path from 'node:path';
import { corpusPath } from '../testing';
import {
  createTestDatabase,
  insertTestOperator,
  type TestDatabase,
  testDataDir,
  storedUploadBytes,
} from '@corpus-chat/persistence/testing';
import { cancelImportJob, createImportJobs, failImportJob, findImportJob, runImportJob } from './import-jobs';

let db: TestDatabase;
let dir: string;
let alice: string;
let bob: string;
beforeAll(async () => {
  db = await createTestDatabase();
  dir = testDataDir();
  fs.mkdirSync(dir, { recursive: true });
  alice = (await insertTestOperator(db.dataSource)).id;
  bob = (await insertTestOperator(db.dataSource)).id;
});
afterAll(async () => {
  await db?.drop();
  fs.rmSync(dir, { recursive: true, force: true });
});

const reportCount = async (): Promise<number> =>
  (await db.dataSource.query(`SELECT count(*)::int AS n FROM reports`))[0].n;

/** Copies a corpus file into the upload folder and records it as alice's queued import. */
async function queued(rel: string) {
  const uploadPath = path.join(dir, `${Math.random().toString(36).slice(2)}.upload`);
  fs.copyFileSync(corpusPath(rel), uploadPath);
  const [job] = await createImportJobs(db.dataSource, alice, [
    { filename: path.basename(rel), uploadPath, sizeBytes: fs.statSync(uploadPath).size },
  ]);
  return job!;
}

test('a run parses and stores the file, ends ready with the outcome, deletes the upload; a retry does nothing', async () => {
  const job = await queued('scans/zap/dd__juicy2.xml');
  const statuses: string[] = [];
  const ended = await runImportJob(db.dataSource, job.id, {
    onParsing: async (j) => void statuses.push(j.status),
  });
  expect(statuses).toEqual(['parsing']);
  expect(ended).toMatchObject({
    status: 'ready',
    error: null,
    outcome: { ok: true, file: 'dd__juicy2.xml', format: 'zap', findingCount: 6 },
  });
  expect(await storedUploadBytes(db.dataSource, job.id)).toBe(0);
  expect(await runImportJob(db.dataSource, job.id)).toBeNull();
  expect(await failImportJob(db.dataSource, job.id, 'late failure')).toBeNull();
  expect((await findImportJob(db.dataSource.manager, alice, job.id))?.status).toBe('ready');
});

test('a cancel while the file is parsed wins: nothing is written', async () => {
  const before = await reportCount();
  const job = await queued('scans/sarif/dd__flawfinder.sarif');
  const ended = await runImportJob(db.dataSource, job.id, {
    onParsing: async () => {
      expect((await cancelImportJob(db.dataSource, alice, job.id)).status).toBe('cancelled');
    },
  });
  expect(ended).toMatchObject({ status: 'cancelled', outcome: null, error: 'cancelled by the operator' });
  expect(await reportCount()).toBe(before);
  expect(await storedUploadBytes(db.dataSource, job.id)).toBe(0);
});

test('a cancel while the report is stored answers without waiting for its lock; the store rolls back', async () => {
  const before = await reportCount();
  const job = await queued('scans/burp/dd__issue4399-large.xml');
  let elapsed = Infinity;
  let result: Awaited<ReturnType<typeof cancelImportJob>> | undefined;
  // Cancelled while the store holds the import row's lock (from its first statement to its commit).
  const ended = await runImportJob(db.dataSource, job.id, {
    onStoring: async () => {
      const started = performance.now();
      result = await cancelImportJob(db.dataSource, alice, job.id);
      elapsed = performance.now() - started;
    },
  });
  expect(elapsed).toBeLessThan(1000);
  expect(result).toMatchObject({ status: 'cancelling', job: { status: 'parsing' } });
  expect(ended).toMatchObject({ status: 'cancelled', outcome: null, reportId: null });
  expect(await reportCount()).toBe(before);
  expect((await db.dataSource.query(`SELECT count(*)::int AS n FROM import_cancel_requests`))[0].n).toBe(0);
});

test("a refusal ends failed with the importer's message; imports are scoped to their operator", async () => {
  const before = await reportCount();
  const job = await queued('edge/trivy__scb__test-empty-report.json');
  const ended = await runImportJob(db.dataSource, job.id);
  expect(ended).toMatchObject({
    status: 'failed',
    error: 'the file holds no report',
    outcome: { ok: false, code: 'EMPTY' },
  });
  expect(await reportCount()).toBe(before);
  expect(await findImportJob(db.dataSource.manager, bob, job.id)).toBeNull();
  expect(await cancelImportJob(db.dataSource, bob, job.id)).toEqual({ status: 'not_found' });
  expect((await cancelImportJob(db.dataSource, alice, job.id)).status).toBe('finished');
});

test('an upload that vanished throws (the job retries); the last attempt ends it failed with the reason', async () => {
  const job = await queued('scans/zap/dd__juicy2.xml');
  await db.dataSource.query(`DELETE FROM import_upload_chunks WHERE import_job_id = $1`, [job.id]);
  await expect(runImportJob(db.dataSource, job.id)).rejects.toThrow(/no longer stored/);
  const failed = await failImportJob(db.dataSource, job.id, 'the import failed: upload lost');
  expect(failed).toMatchObject({ status: 'failed', error: 'the import failed: upload lost' });
});
