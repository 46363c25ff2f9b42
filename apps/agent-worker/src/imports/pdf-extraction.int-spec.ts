/**
 * PDF reports read by a model: the real extractor (chunking, JSON-schema request, Ajv validation,
 * one retry) against the scripted OpenAI-compatible server answering each chunk like a server in
 * json_schema mode, and the import job storing findings into Postgres as they arrive.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Logger } from '@nestjs/common';
import { countFindingsBy } from '@corpus-chat/corpus-queries';
import {
  createImportJobs,
  cancelImportJob,
  EXTRACTION_SCHEMA,
  type ImportJobRecord,
  readReportText,
  runImportJob,
} from '@corpus-chat/ingest';
import { readModelSettings, writeModelSettings } from '@corpus-chat/persistence';
import { corpusPath } from '@corpus-chat/ingest/testing';
import {
  createTestDatabase,
  insertTestOperator,
  storedUploadBytes,
  type TestDatabase,
  testDataDir,
} from '@corpus-chat/persistence/testing';
import { ModelUrlAllowlist } from '@corpus-chat/server-core';
import type { FindingFilter } from '@corpus-chat/contracts';
import {
  type RecordedRequest,
  type ScriptedResponse,
  ScriptedOpenAiServer,
} from '../agent/testing/scripted-openai-server';
import { countTokens } from '../agent/context/token-counter';
import { modelFindingExtractor, ModelFindingExtractor } from './model-finding-extractor';

const PDF = 'pdf/ppr__NCATS-VADR-Sample-Report.pdf';

let db: TestDatabase;
let model: ScriptedOpenAiServer;
let dir: string;
let operatorId: string;

beforeAll(async () => {
  db = await createTestDatabase();
  model = await ScriptedOpenAiServer.start();
  dir = testDataDir();
  fs.mkdirSync(dir, { recursive: true });
  operatorId = (await insertTestOperator(db.dataSource)).id;
  await writeModelSettings(db.dataSource, {
    backend: 'openai',
    baseUrl: model.baseUrl,
    model: 'scripted-model',
  });
});
afterAll(async () => {
  await model?.close();
  await db?.drop();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Which part of the report a request carries ("Part 2 of 5"). */
const partOf = (req: RecordedRequest): { part: number; total: number } => {
  const m = /^Part (\d+) of (\d+) of the report:/.exec(req.body.messages[1].content as string);
  if (!m) throw new Error('request without a part');
  return { part: Number(m[1]), total: Number(m[2]) };
};

const version = (title: string, severity: string, endpoints: string[] = [], cwe: number[] = []) => ({
  versions: [
    {
      title,
      severity,
      description: `${title} as the report describes it`,
      affected_endpoints: endpoints,
      cwe,
    },
  ],
});
const native = (findings: unknown[]) =>
  JSON.stringify({ format: 'corpus-chat-native', format_version: 1, findings });
const answer = (text: string): ScriptedResponse => ({ kind: 'completion', text });

/** Stores the PDF as a queued import of the operator (a copy, so the job may delete it). */
async function queuedPdf(): Promise<ImportJobRecord> {
  const uploadPath = path.join(dir, `${Math.random().toString(36).slice(2)}.upload`);
  fs.copyFileSync(corpusPath(PDF), uploadPath);
  const [job] = await createImportJobs(db.dataSource, operatorId, [
    { filename: path.basename(PDF), uploadPath, sizeBytes: fs.statSync(uploadPath).size },
  ]);
  return job!;
}

const extractor = async () =>
  modelFindingExtractor(
    await readModelSettings(db.dataSource),
    { contextTokens: 6000, firstTokenTimeoutMs: 30_000, modelUrlAllowlist: ModelUrlAllowlist.parse('') },
    new Logger('test'),
  );

async function reportFindings(reportId: number) {
  return db.dataSource.query(
    `SELECT fv.title, fv.severity, f.status, fv.origin, fv.version, fv.affected_endpoints AS endpoints, fv.cwe, fv.raw->>'model' AS model
       FROM findings f JOIN finding_versions fv ON fv.id = f.current_version_id WHERE f.report_id = $1 ORDER BY f.id`,
    [reportId],
  );
}

afterEach(async () => {
  model.responder = undefined;
  model.requests.length = 0;
  // Each test imports the same file: archive what it stored so the next one is not a duplicate.
  await db.dataSource.query(`UPDATE reports SET archived = true`);
});

test('each chunk is one json_schema request; findings are validated, deduplicated and stored as extraction v1 with the model', async () => {
  const attempts = new Map<number, number>();
  model.responder = (req) => {
    const { part } = partOf(req);
    const attempt = (attempts.get(part) ?? 0) + 1;
    attempts.set(part, attempt);
    if (part === 1)
      return answer(
        native([
          version('SQL injection in login', 'high', ['https://portal.example/login'], [89]),
          version('Weak TLS ciphers', 'medium', ['portal.example:443']),
        ]),
      );
    // Invalid twice: a severity outside the schema, then no JSON at all.
    if (part === 2)
      return answer(
        attempt === 1 ? native([version('Open redirect', 'urgent')]) : 'Sure! Here are the findings: none.',
      );
    // Invalid once (missing versions), valid on the retry; repeats part 1's first finding in other case and spacing.
    if (part === 3) {
      return answer(
        attempt === 1
          ? native([{ title: 'Default credentials' }])
          : native([
              version('sql  injection in LOGIN', 'high', ['https://portal.example/login']),
              version('Default credentials', 'critical', ['10.0.0.5']),
            ]),
      );
    }
    return answer(native([]));
  };
  const job = await queuedPdf();
  const events: ImportJobRecord[] = [];
  const ended = await runImportJob(db.dataSource, job.id, {
    findingExtractor: extractor,
    onProgress: async (j) => void events.push(j),
  });

  const requests = model.completionRequests;
  const total = partOf(requests[0]!).total;
  expect(total).toBeGreaterThanOrEqual(3);
  expect(requests).toHaveLength(total + 2); // parts 2 and 3 were asked twice
  for (const r of requests) {
    expect(r.body.model).toBe('scripted-model');
    expect(r.body.stream).toBeFalsy();
    expect(r.body.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'native_report', schema: EXTRACTION_SCHEMA, strict: false },
    });
  }
  // Each chunk fits the model's context: half of what the instructions and schema leave, the rest for the answer.
  const chunkTokens = ((await extractor()) as ModelFindingExtractor).chunkTokens;
  expect(chunkTokens).toBeLessThan(3000);
  for (const r of requests)
    expect(countTokens(r.body.messages[1].content)).toBeLessThanOrEqual(chunkTokens + 20);
  expect(new Set(requests.map((r) => partOf(r).part))).toEqual(
    new Set(Array.from({ length: total }, (_, i) => i + 1)),
  );

  expect(ended).toMatchObject({ status: 'ready', outcome: { ok: true, format: 'pdf', findingCount: 3 } });
  const reportId = ended!.outcome!.ok ? ended!.outcome!.reportId : 0;
  const [report] = await db.dataSource.query(
    `SELECT status, model, finding_count, error, doc_metadata FROM reports WHERE id = $1`,
    [reportId],
  );
  expect(report).toMatchObject({ status: 'ready', model: 'scripted-model', finding_count: 3, error: null });
  expect(report.doc_metadata.extraction).toEqual({
    model: 'scripted-model',
    chunks: total,
    failedChunks: [{ chunk: 2, error: expect.stringMatching(/^the answer is not JSON/) }],
  });
  expect(await reportFindings(reportId)).toEqual([
    {
      title: 'SQL injection in login',
      severity: 'high',
      status: 'needs_review',
      origin: 'extraction',
      version: 1,
      endpoints: ['https://portal.example/login'],
      cwe: [89],
      model: 'scripted-model',
    },
    {
      title: 'Weak TLS ciphers',
      severity: 'medium',
      status: 'needs_review',
      origin: 'extraction',
      version: 1,
      endpoints: ['portal.example:443'],
      cwe: [],
      model: 'scripted-model',
    },
    {
      title: 'Default credentials',
      severity: 'critical',
      status: 'needs_review',
      origin: 'extraction',
      version: 1,
      endpoints: ['10.0.0.5'],
      cwe: [],
      model: 'scripted-model',
    },
  ]);
  // Progress went out per chunk with the findings so far, and the extracted findings count.
  expect(events.map((e) => e.extraction?.chunksDone)).toEqual(Array.from({ length: total + 1 }, (_, i) => i));
  expect(events.map((e) => e.extraction?.findingCount).slice(0, 4)).toEqual([0, 2, 2, 3]);
  expect(events.at(-1)?.extraction).toMatchObject({ chunksFailed: 1, model: 'scripted-model', reportId });
  const bySeverity = await countFindingsBy(db.dataSource.manager, {
    groupBy: 'severity',
    filter: { reportId },
  });
  expect(bySeverity.total).toBe(3);
  // A model's findings wait for a person, and the list can pick them out by origin.
  const count = async (filter: FindingFilter) =>
    (await countFindingsBy(db.dataSource.manager, { groupBy: 'severity', filter: { reportId, ...filter } }))
      .total;
  expect(await count({ status: 'needs_review' })).toBe(3);
  expect(await count({ status: 'open' })).toBe(0);
  expect(await count({ origin: 'extraction' })).toBe(3);
  expect(await count({ origin: 'import' })).toBe(0);
  expect(await count({ origin: 'manual' })).toBe(0);
  expect((await readReportText(db.dataSource.manager, reportId, 0, 1000))?.pageCount).toBe(23);
});

test('a cancel during extraction keeps the findings stored so far; no further chunk is asked', async () => {
  const job = await queuedPdf();
  model.responder = async (req) => {
    const { part } = partOf(req);
    if (part === 2)
      expect((await cancelImportJob(db.dataSource, operatorId, job.id)).status).toBe('cancelled');
    return answer(native([version(`Finding of part ${part}`, 'low', [`host-${part}`])]));
  };
  const ended = await runImportJob(db.dataSource, job.id, { findingExtractor: extractor });

  expect(model.completionRequests.map((r) => partOf(r).part)).toEqual([1, 2]);
  expect(ended).toMatchObject({
    status: 'cancelled',
    error: 'cancelled by the operator',
    outcome: { ok: true, findingCount: 1 },
    extraction: { reportStatus: 'cancelled', chunksDone: 1 },
  });
  const reportId = ended!.outcome!.ok ? ended!.outcome!.reportId : 0;
  const [report] = await db.dataSource.query(
    `SELECT status, error, finding_count FROM reports WHERE id = $1`,
    [reportId],
  );
  expect(report).toEqual({ status: 'cancelled', error: 'cancelled by the operator', finding_count: 1 });
  expect((await reportFindings(reportId)).map((f: { title: string }) => f.title)).toEqual([
    'Finding of part 1',
  ]);
  expect(await storedUploadBytes(db.dataSource, job.id)).toBe(0);
});

test('when no chunk gives a usable answer the report fails, naming the reason', async () => {
  model.responder = () => ({ kind: 'status', status: 500, body: { error: { message: 'model crashed' } } });
  const ended = await runImportJob(db.dataSource, (await queuedPdf()).id, { findingExtractor: extractor });
  expect(ended).toMatchObject({
    status: 'failed',
    outcome: { ok: false, code: 'EXTRACTION_FAILED' },
    error: expect.stringMatching(/unusable for every chunk.*model crashed/),
  });
  const [report] = await db.dataSource.query(`SELECT status, error FROM reports WHERE id = $1`, [
    ended!.extraction!.reportId,
  ]);
  expect(report).toMatchObject({ status: 'failed', error: expect.stringMatching(/model crashed/) });
});

test('without a model the text is stored and the report waits for review; a scanned PDF fails with the reason', async () => {
  const ended = await runImportJob(db.dataSource, (await queuedPdf()).id, {
    findingExtractor: async () => null,
  });
  expect(ended).toMatchObject({
    status: 'ready',
    outcome: { ok: true, format: 'pdf', findingCount: 0 },
    extraction: { reportStatus: 'needs_review', model: null },
  });
  expect(model.completionRequests).toHaveLength(0);

  const uploadPath = path.join(dir, 'scanned.upload');
  fs.copyFileSync(corpusPath('edge/pdf__ppr__CPTC-2020-Finals-G-image-only.pdf'), uploadPath);
  const [scanned] = await createImportJobs(db.dataSource, operatorId, [
    { filename: 'scanned.pdf', uploadPath, sizeBytes: fs.statSync(uploadPath).size },
  ]);
  const failed = await runImportJob(db.dataSource, scanned!.id, { findingExtractor: extractor });
  expect(failed).toMatchObject({
    status: 'failed',
    error: 'no text layer (scanned image); OCR is not supported',
    outcome: { ok: false, code: 'NO_TEXT_LAYER' },
  });
});
