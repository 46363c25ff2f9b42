import crypto from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';
import type { ExtractionProgress, ImportOutcome } from '@corpus-chat/contracts';
import type { AuditActor } from '@corpus-chat/persistence';
import {
  finish,
  IMPORT_JOB_COLUMNS,
  importActor,
  type ImportJobRecord,
  type ImportJobRow,
  loadImportJob,
  runWatchingForCancel,
  toRecord,
} from '../importers/import-jobs';
import { duplicateOutcome, findLiveDuplicate } from '../importers/duplicate-report';
import { ImportRefusal } from '../importers/import-refusal';
import type { ParsedFinding } from '../importers/parsed-report';
import {
  appendFindings,
  createPdfReport,
  findingKey,
  PAGE_SEPARATOR,
  reportFindingKeys,
} from './pdf-reports.queries';
import { extractPdfText, type PdfText } from './pdf-text';

/** What a model made of one chunk of a report's text: its findings, or why its output was unusable. */
export type ChunkExtraction = { ok: true; findings: ParsedFinding[] } | { ok: false; error: string };

/**
 * Reads findings out of a report's text with a model (the agent-worker's implementation calls the
 * configured OpenAI-compatible server with the native report schema).
 */
export interface FindingExtractor {
  /** The model's name, recorded on the report. */
  readonly model: string;
  /** The text cut into pieces that each fit the model's context with the prompt and the answer. */
  chunk(text: string): string[] | Promise<string[]>;
  /** The findings of one chunk (versions with origin `extraction`); never throws for a bad answer. */
  extract(chunk: string, index: number, total: number): Promise<ChunkExtraction>;
}

export interface PdfImportOptions {
  /** The extractor for the configured model; resolves null for the built-in back end (manual review). */
  findingExtractor?: () => Promise<FindingExtractor | null>;
  /** Called after each chunk's findings are stored, with the import and its progress. */
  onProgress?: (job: ImportJobRecord) => Promise<void>;
}

const CANCELLED = 'cancelled by the operator';

const sha256 = (b: Uint8Array): string => crypto.createHash('sha256').update(b).digest('hex');

async function saveProgress(
  tx: EntityManager,
  id: string,
  progress: ExtractionProgress,
): Promise<ImportJobRecord> {
  const [rows]: [ImportJobRow[], number] = await tx.query(
    `UPDATE import_jobs SET report_id = $2, extraction = $3::jsonb, updated_at = now() WHERE id = $1 RETURNING ${IMPORT_JOB_COLUMNS}`,
    [id, progress.reportId, JSON.stringify(progress)],
  );
  return toRecord(rows[0]);
}

const okOutcome = (file: string, p: ExtractionProgress): ImportOutcome => ({
  ok: true,
  file,
  reportId: p.reportId,
  format: 'pdf',
  findingCount: p.findingCount,
});

type Started = { ended: ImportJobRecord } | { progress: ExtractionProgress; job: ImportJobRecord };

/**
 * The PDF half of `runImportJob`: extracts the text, stores the report (`needs_review` without a
 * model), else extracts findings chunk by chunk, storing each chunk's new ones at once so a cancel
 * keeps them. Ends `ready` (failed chunks listed) or `failed`; a retried job resumes its report.
 */
export async function runPdfImportJob(
  dataSource: DataSource,
  job: ImportJobRecord,
  bytes: Uint8Array,
  options: PdfImportOptions,
): Promise<ImportJobRecord> {
  let text: PdfText | null;
  try {
    text = await runWatchingForCancel(dataSource, job.id, (signal) => extractPdfText(bytes, signal));
  } catch (e) {
    if (!(e instanceof ImportRefusal)) throw e;
    return dataSource.transaction(async (tx) => {
      const row = await loadImportJob(tx, job.id, 'FOR UPDATE');
      if (row.status !== 'parsing') return toRecord(row);
      return finish(tx, job.id, { ok: false, file: job.file, code: e.code, error: e.message });
    });
  }
  if (!text) return toRecord(await loadImportJob(dataSource.manager, job.id));
  const extractor = (await options.findingExtractor?.()) ?? null;
  const started = await dataSource.transaction(async (tx): Promise<Started> => {
    const row = await loadImportJob(tx, job.id, 'FOR UPDATE');
    if (row.status !== 'parsing') return { ended: toRecord(row) };
    let reportId = row.report_id;
    if (reportId === null) {
      const contentHash = sha256(bytes);
      const existing = await findLiveDuplicate(tx, contentHash);
      if (existing) return { ended: await finish(tx, job.id, duplicateOutcome(job.file, existing)) };
      const actor = await importActor(tx, row.operator_id);
      reportId = await createPdfReport(tx, {
        filename: job.file,
        contentHash,
        pages: text.pages,
        status: extractor ? 'extracting' : 'needs_review',
        model: extractor?.model ?? null,
        actor,
      });
    }
    const [report]: { status: string; finding_count: number }[] = await tx.query(
      `SELECT status, finding_count FROM reports WHERE id = $1`,
      [reportId],
    );
    const progress: ExtractionProgress = {
      reportId,
      reportStatus: report.status === 'extracting' ? 'extracting' : 'needs_review',
      findingCount: report.finding_count,
      chunksDone: 0,
      chunksTotal: 0,
      chunksFailed: 0,
      model: extractor?.model ?? null,
    };
    if (!extractor || report.status !== 'extracting') {
      if (report.status === 'extracting')
        await tx.query(`UPDATE reports SET status = 'needs_review', model = NULL WHERE id = $1`, [reportId]);
      await saveProgress(tx, job.id, progress);
      return { ended: await finish(tx, job.id, okOutcome(job.file, progress)) };
    }
    return { progress, job: await saveProgress(tx, job.id, progress) };
  });
  if ('ended' in started) return started.ended;
  if (!extractor) return started.job;

  const progress = started.progress;
  const reportId = progress.reportId;
  const chunks = await extractor.chunk(text.pages.join(PAGE_SEPARATOR));
  progress.chunksTotal = chunks.length;
  const seen = await reportFindingKeys(dataSource.manager, reportId);
  const failedChunks: { chunk: number; error: string }[] = [];
  await options.onProgress?.(started.job);

  for (const [i, chunk] of chunks.entries()) {
    const now = await loadImportJob(dataSource.manager, job.id);
    if (now?.status !== 'parsing') return endCancelled(dataSource, job, progress);
    const result = await extractor.extract(chunk, i, chunks.length);
    const fresh = result.ok ? newFindings(result.findings, seen) : [];
    if (!result.ok) failedChunks.push({ chunk: i + 1, error: result.error });
    const stored = await dataSource.transaction(async (tx) => {
      const row = await loadImportJob(tx, job.id, 'FOR UPDATE');
      if (row.status !== 'parsing') return null;
      // A model's findings wait for a person: PDF text can steer the model into planting some.
      if (fresh.length)
        progress.findingCount = (await appendFindings(tx, reportId, fresh, 'needs_review')).findingCount;
      progress.chunksDone = i + 1;
      progress.chunksFailed = failedChunks.length;
      return saveProgress(tx, job.id, progress);
    });
    if (!stored) return endCancelled(dataSource, job, progress);
    for (const f of fresh) seen.add(findingKey(f.versions[0].title, f.versions[0].affectedEndpoints));
    await options.onProgress?.(stored);
  }

  return dataSource.transaction(async (tx) => {
    const row = await loadImportJob(tx, job.id, 'FOR UPDATE');
    if (row.status !== 'parsing') return endCancelledIn(tx, job, progress);
    const extraction = { model: extractor.model, chunks: chunks.length, failedChunks };
    if (chunks.length > 0 && failedChunks.length === chunks.length) {
      const error = `the model's answer was unusable for every chunk of text (chunk 1: ${failedChunks[0].error})`;
      await tx.query(
        `UPDATE reports SET status = 'failed', error = $2, doc_metadata = doc_metadata || jsonb_build_object('extraction', $3::jsonb) WHERE id = $1`,
        [reportId, error, JSON.stringify(extraction)],
      );
      await saveProgress(tx, job.id, { ...progress, reportStatus: 'failed' });
      return finish(tx, job.id, { ok: false, file: job.file, code: 'EXTRACTION_FAILED', error });
    }
    await tx.query(
      `UPDATE reports SET status = 'ready', doc_metadata = doc_metadata || jsonb_build_object('extraction', $2::jsonb) WHERE id = $1`,
      [reportId, JSON.stringify(extraction)],
    );
    const done = { ...progress, reportStatus: 'ready' as const };
    await saveProgress(tx, job.id, done);
    return finish(tx, job.id, okOutcome(job.file, done));
  });
}

/** A PDF imported outside the queue: its text is stored and the report waits in `needs_review`. */
export async function importPdfForReview(
  manager: EntityManager,
  file: string,
  bytes: Uint8Array,
  actor?: AuditActor,
): Promise<ImportOutcome> {
  let text: PdfText;
  try {
    text = await extractPdfText(bytes);
  } catch (e) {
    if (e instanceof ImportRefusal) return { ok: false, file, code: e.code, error: e.message };
    throw e;
  }
  const contentHash = sha256(bytes);
  return manager.transaction(async (tx): Promise<ImportOutcome> => {
    const existing = await findLiveDuplicate(tx, contentHash);
    if (existing) return duplicateOutcome(file, existing);
    const reportId = await createPdfReport(tx, {
      filename: file,
      contentHash,
      pages: text.pages,
      status: 'needs_review',
      model: null,
      actor,
    });
    return { ok: true, file, reportId, format: 'pdf', findingCount: 0 };
  });
}

/** Findings of one chunk not seen before (by title and location), each once. */
function newFindings(findings: ParsedFinding[], seen: Set<string>): ParsedFinding[] {
  const keys = new Set<string>();
  return findings.filter((f) => {
    const key = findingKey(f.versions[0].title, f.versions[0].affectedEndpoints);
    if (seen.has(key) || keys.has(key)) return false;
    keys.add(key);
    return true;
  });
}

function endCancelled(
  dataSource: DataSource,
  job: ImportJobRecord,
  progress: ExtractionProgress,
): Promise<ImportJobRecord> {
  return dataSource.transaction((tx) => endCancelledIn(tx, job, progress));
}

/** The report of a cancelled import ends `cancelled` with the findings stored so far; the import records them as its outcome. */
async function endCancelledIn(
  tx: EntityManager,
  job: ImportJobRecord,
  progress: ExtractionProgress,
): Promise<ImportJobRecord> {
  await tx.query(
    `UPDATE reports SET status = 'cancelled', error = $2 WHERE id = $1 AND status = 'extracting'`,
    [progress.reportId, CANCELLED],
  );
  const done: ExtractionProgress = { ...progress, reportStatus: 'cancelled' };
  const [rows]: [ImportJobRow[], number] = await tx.query(
    `UPDATE import_jobs SET extraction = $2::jsonb, outcome = $3::jsonb, updated_at = now() WHERE id = $1 RETURNING ${IMPORT_JOB_COLUMNS}`,
    [job.id, JSON.stringify(done), JSON.stringify(okOutcome(job.file, done))],
  );
  return toRecord(rows[0]);
}
