/**
 * A large scanner-file import parses in a worker thread, so the ingest worker's event loop (which
 * also runs chat turns and renews job locks) stays free while it runs; the same file parsed on the
 * main thread stalls it. Findings, refusals and cancels are as without the thread.
 */
import fs from 'node:fs';
import path from 'node:path';
import workerThreads from 'node:worker_threads';
import {
  createTestDatabase,
  insertTestOperator,
  storedUploadBytes,
  type TestDatabase,
  testDataDir,
} from '@corpus-chat/persistence/testing';
import { cancelImportJob, createImportJobs, runImportJob } from './import-jobs';
import { parseForImport } from './parse-report';
import { ParseCancelled, parseInThread } from './parse-thread';

// An ~4 MB import, ~12 MB parses in the thread and in process: a minute or more on a busy host.
jest.setTimeout(120_000);

/**
 * While the file is parsed in the thread, this thread's event loop must be busy less than this share
 * of the time (copying the bytes over and taking the findings in); parsing in process keeps it busy
 * throughout (> 0.9).
 */
const MAX_BUSY = 0.6;

let db: TestDatabase;
let dir: string;
let operatorId: string;
beforeAll(async () => {
  db = await createTestDatabase();
  dir = testDataDir();
  fs.mkdirSync(dir, { recursive: true });
  operatorId = (await insertTestOperator(db.dataSource)).id;
});
afterAll(async () => {
  await db?.drop();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A SARIF 2.1.0 file of `count` results with long, distinct messages (about 2 KB each). */
function sarif(count: number): Buffer {
  const filler = 'x'.repeat(1800);
  const results = Array.from({ length: count }, (_, n) =>
    JSON.stringify({
      ruleId: `R${n % 500}`,
      level: ['error', 'warning', 'note'][n % 3],
      message: { text: `Finding ${n}: possible SQL injection in handler ${n} ${filler}` },
      locations: [
        {
          physicalLocation: {
            artifactLocation: { uri: `src/module${n % 97}/file${n}.c` },
            region: { startLine: (n % 900) + 1 },
          },
        },
      ],
    }),
  );
  return Buffer.from(
    `{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"test-scanner","version":"1.0"}},"results":[${results.join(',')}]}]}`,
  );
}

async function queued(bytes: Buffer, filename = 'large.sarif') {
  const uploadPath = path.join(dir, `${Math.random().toString(36).slice(2)}.upload`);
  fs.writeFileSync(uploadPath, bytes);
  const [job] = await createImportJobs(db.dataSource, operatorId, [
    { filename, uploadPath, sizeBytes: bytes.byteLength },
  ]);
  return job!;
}

/**
 * The share of wall time (0–1) this thread's event loop was busy while `work` ran
 * (`performance.eventLoopUtilization`): a time integral, so one long garbage collection on a loaded
 * host weighs by its length, not as the whole verdict, as the longest stall would.
 */
async function loopBusy<T>(work: () => Promise<T>): Promise<{ result: T; busy: number }> {
  const start = performance.eventLoopUtilization();
  const result = await work();
  return { result, busy: performance.eventLoopUtilization(start).utilization };
}

const COUNT = 6_000;

/** Enough results for a dozen or more paced insert statements (about 125 results each). */
const STORED_COUNT = 2_000;

test(`a ${STORED_COUNT}-result SARIF import stores every finding`, async () => {
  const job = await queued(sarif(STORED_COUNT));
  expect(await runImportJob(db.dataSource, job.id)).toMatchObject({
    status: 'ready',
    outcome: { ok: true, format: 'sarif', findingCount: STORED_COUNT },
  });
  expect((await db.dataSource.query(`SELECT count(*)::int AS n FROM findings`))[0].n).toBe(STORED_COUNT);
});

test('parsing in the thread leaves the event loop free, while parsing in process stalls it', async () => {
  const bytes = sarif(COUNT);
  // The better of two thread parses: a Jest worker's heap, grown by the suites it ran before, can
  // take a second to collect on a loaded host, whichever parse that collection lands in.
  const inThread = await loopBusy(() => parseInThread('large.sarif', new Uint8Array(bytes)));
  expect(inThread.result).toMatchObject({ format: 'sarif' });
  const again = await loopBusy(() => parseInThread('large.sarif', new Uint8Array(bytes)));
  const inProcess = await loopBusy(() => parseForImport('large.sarif', bytes));
  expect(inProcess.result).toMatchObject({ format: 'sarif' });
  expect(inProcess.busy).toBeGreaterThan(0.9);
  expect(Math.min(inThread.busy, again.busy)).toBeLessThan(MAX_BUSY);
});

test('the thread gives the same refusal message as parsing in process', async () => {
  const broken = Buffer.from('{"version":"2.1.0","runs":[{"tool":');
  expect(await parseInThread('broken.sarif', new Uint8Array(broken))).toEqual(
    await parseForImport('broken.sarif', broken),
  );
  expect(await parseInThread('broken.sarif', new Uint8Array(broken))).toMatchObject({
    ok: false,
    code: 'INVALID',
    error: expect.stringMatching(/^JSON syntax error at line 1/),
  });
});

test('a cancel while the thread parses stops it: the import ends cancelled, nothing is written', async () => {
  const job = await queued(sarif(COUNT));
  const before = (await db.dataSource.query(`SELECT count(*)::int AS n FROM reports`))[0].n;
  const ended = await runImportJob(db.dataSource, job.id, {
    onParsing: async () => void (await cancelImportJob(db.dataSource, operatorId, job.id)),
  });
  expect(ended).toMatchObject({ status: 'cancelled', outcome: null });
  expect((await db.dataSource.query(`SELECT count(*)::int AS n FROM reports`))[0].n).toBe(before);
  expect(await storedUploadBytes(db.dataSource, job.id)).toBe(0);
});

test('aborting the signal stops the parse: it rejects as cancelled', async () => {
  const abort = new AbortController();
  const parsing = parseInThread('large.sarif', new Uint8Array(sarif(COUNT)), {}, abort.signal);
  abort.abort();
  await expect(parsing).rejects.toBeInstanceOf(ParseCancelled);
});

test('consecutive files share one parse thread; a thread stopped by a cancel is replaced', async () => {
  const { Worker } = workerThreads;
  const started = jest
    .spyOn(workerThreads, 'Worker')
    .mockImplementation((...args: ConstructorParameters<typeof Worker>) => new Worker(...args));
  try {
    const small = sarif(3);
    await parseInThread('a.sarif', new Uint8Array(small));
    const afterFirst = started.mock.calls.length;
    expect(await parseInThread('b.sarif', new Uint8Array(small))).toMatchObject({ format: 'sarif' });
    expect(started).toHaveBeenCalledTimes(afterFirst);
    const abort = new AbortController();
    const parsing = parseInThread('c.sarif', new Uint8Array(sarif(COUNT)), {}, abort.signal);
    abort.abort();
    await expect(parsing).rejects.toBeInstanceOf(ParseCancelled);
    const parsed = await parseInThread('d.sarif', new Uint8Array(small));
    expect(parsed).toMatchObject({ format: 'sarif' });
    expect('findings' in parsed && parsed.findings).toHaveLength(3);
    expect(started).toHaveBeenCalledTimes(afterFirst + 1);
  } finally {
    started.mockRestore();
  }
});
