import type { EntityManager } from 'typeorm';
import type { ReportStatus, ReportTextView, Severity } from '@corpus-chat/contracts';
import { recordAuditEvent, type AuditActor, storableText } from '@corpus-chat/persistence';
import { insertFindings, toJsonb } from '../importers/persist-report';
import { scannerFinding, type ParsedFinding } from '../importers/parsed-report';

/** Separates pages in a stored report text (a form feed: a page break in plain text). */
export const PAGE_SEPARATOR = '\f';

/** What `createPdfReport` stores: the report row, its text, and who imported it. */
export interface NewPdfReport {
  filename: string;
  contentHash: string;
  pages: string[];
  /** `extracting` when a model reads its findings, else `needs_review`. */
  status: 'extracting' | 'needs_review';
  model: string | null;
  actor?: AuditActor;
}

/** Inserts a PDF report with its text (and its audit event) in `tx`; returns its id. */
export async function createPdfReport(tx: EntityManager, r: NewPdfReport): Promise<number> {
  const [report]: { id: number }[] = await tx.query(
    `INSERT INTO reports (filename, format, status, model, finding_count, content_hash, doc_metadata)
     VALUES ($1, 'pdf', $2, $3, 0, $4, $5::jsonb) RETURNING id`,
    [
      r.filename,
      r.status,
      r.model,
      r.contentHash,
      toJsonb({ pageCount: r.pages.length, tool: { name: r.model ?? 'manual review', version: null } }),
    ],
  );
  await tx.query(`INSERT INTO report_texts (report_id, page_count, text) VALUES ($1, $2, $3)`, [
    report.id,
    r.pages.length,
    storableText(r.pages.join(PAGE_SEPARATOR)),
  ]);
  if (r.actor) {
    await recordAuditEvent(tx, {
      action: 'report.import',
      actor: r.actor,
      subjectType: 'report',
      subjectId: report.id,
      after: {
        filename: r.filename,
        format: 'pdf',
        status: r.status,
        model: r.model,
        pageCount: r.pages.length,
      },
    });
  }
  return report.id;
}

/** Title and location of a finding, as compared when findings of several chunks are merged. */
export function findingKey(title: string, endpoints: string[]): string {
  const norm = (s: string) => s.replace(/\s+/g, ' ').trim().toLowerCase();
  return `${norm(title)}\u0000${endpoints.map(norm).sort().join('\u0000')}`;
}

/** The keys (`findingKey`) of the findings a report already has. */
export async function reportFindingKeys(manager: EntityManager, reportId: number): Promise<Set<string>> {
  const rows: { title: string; endpoints: string[] }[] = await manager.query(
    `SELECT fv.title, fv.affected_endpoints AS endpoints FROM findings f JOIN finding_versions fv ON fv.id = f.current_version_id WHERE f.report_id = $1`,
    [reportId],
  );
  return new Set(rows.map((r) => findingKey(r.title, r.endpoints)));
}

/**
 * Appends findings to a report and raises its `finding_count`; returns the new count. Run it
 * inside a transaction. `status` is their triage status (`needs_review` for a model's findings).
 */
export async function appendFindings(
  tx: EntityManager,
  reportId: number,
  findings: ParsedFinding[],
  status: 'open' | 'needs_review' = 'open',
): Promise<{ ids: number[]; findingCount: number }> {
  const ids = await insertFindings(tx, reportId, findings);
  if (status !== 'open')
    await tx.query(`UPDATE findings SET status = $2 WHERE id = ANY($1::int[])`, [ids, status]);
  // An UPDATE answers [rows, affected count] through TypeORM.
  const [rows]: [{ finding_count: number }[], number] = await tx.query(
    `UPDATE reports SET finding_count = finding_count + $2 WHERE id = $1 RETURNING finding_count`,
    [reportId, findings.length],
  );
  return { ids, findingCount: rows[0].finding_count };
}

/** A finding an operator enters by hand (see `ManualFindingDto`). */
export interface ManualFindingInput {
  title: string;
  severity: Severity;
  cwe?: number[];
  description?: string;
  location?: string;
}

export type ManualFindingResult =
  | { status: 'ok'; findingId: number; findingCount: number }
  | { status: 'not_found' }
  | { status: 'conflict'; message: string };

/**
 * Adds a finding an operator read in a PDF report (origin `manual`), audited. Only a report in
 * `needs_review` takes one (409 otherwise).
 */
export async function addManualFinding(
  manager: EntityManager,
  reportId: number,
  input: ManualFindingInput,
  actor: AuditActor,
): Promise<ManualFindingResult> {
  const title = storableText(input.title.replace(/\s+/g, ' ').trim());
  if (!title) return { status: 'conflict', message: 'title must not be empty' };
  return manager.transaction(async (tx): Promise<ManualFindingResult> => {
    const [report]: { status: ReportStatus; archived: boolean; filename: string }[] = await tx.query(
      `SELECT status, archived, filename FROM reports WHERE id = $1 FOR UPDATE`,
      [reportId],
    );
    if (!report) return { status: 'not_found' };
    if (report.status !== 'needs_review' || report.archived) {
      return {
        status: 'conflict',
        message: `report ${reportId} (${report.filename}) is ${report.archived ? 'archived' : report.status}; findings are entered by hand only while a report needs review`,
      };
    }
    const location = storableText(input.location?.trim() ?? '');
    const finding = scannerFinding({
      origin: 'manual',
      title,
      severity: input.severity,
      description: storableText(input.description?.trim() ?? ''),
      cwe: [...new Set(input.cwe ?? [])].sort((a, b) => a - b),
      affectedEndpoints: location ? [location] : [],
      editedBy: actor.username,
      raw: null,
    });
    const { ids, findingCount } = await appendFindings(tx, reportId, [finding]);
    await recordAuditEvent(tx, {
      action: 'finding.create',
      actor,
      subjectType: 'finding',
      subjectId: ids[0],
      after: {
        reportId,
        title,
        severity: input.severity,
        cwe: finding.versions[0].cwe,
        location: location || null,
      },
    });
    return { status: 'ok', findingId: ids[0], findingCount };
  });
}

export type ReviewResult =
  { status: 'ok'; findingCount: number } | { status: 'not_found' } | { status: 'conflict'; message: string };

/** Marks a `needs_review` report reviewed (`ready`), with its `report.review_complete` audit event. */
export async function completeReportReview(
  manager: EntityManager,
  reportId: number,
  actor: AuditActor,
): Promise<ReviewResult> {
  return manager.transaction(async (tx): Promise<ReviewResult> => {
    const [report]: { status: ReportStatus; filename: string; finding_count: number }[] = await tx.query(
      `SELECT status, filename, finding_count FROM reports WHERE id = $1 FOR UPDATE`,
      [reportId],
    );
    if (!report) return { status: 'not_found' };
    if (report.status !== 'needs_review') {
      return {
        status: 'conflict',
        message: `report ${reportId} (${report.filename}) is ${report.status}, not waiting for review`,
      };
    }
    await tx.query(`UPDATE reports SET status = 'ready' WHERE id = $1`, [reportId]);
    await recordAuditEvent(tx, {
      action: 'report.review_complete',
      actor,
      subjectType: 'report',
      subjectId: reportId,
      before: { status: 'needs_review' },
      after: { status: 'ready', findingCount: report.finding_count },
    });
    return { status: 'ok', findingCount: report.finding_count };
  });
}

/** A window of a report's extracted text, or null when the report has none (not a PDF, or unknown). */
export async function readReportText(
  manager: EntityManager,
  reportId: number,
  offset: number,
  limit: number,
): Promise<ReportTextView | null> {
  // substr counts characters (code points), as the offsets of the answer do.
  const [row]: { page_count: number; total: number; text: string }[] = await manager.query(
    `SELECT page_count, char_length(text)::int AS total, substr(text, $2 + 1, $3) AS text FROM report_texts WHERE report_id = $1`,
    [reportId, offset, limit],
  );
  if (!row) return null;
  const end = offset + [...row.text].length;
  return {
    reportId,
    pageCount: row.page_count,
    totalChars: row.total,
    offset,
    text: row.text,
    nextOffset: end < row.total ? end : null,
  };
}
