import path from 'node:path';
import { DataSource, type EntityManager, QueryFailedError } from 'typeorm';
import type { ImportOutcome, SincePreviousScan } from '@corpus-chat/contracts';
import { compareReports, previousScan, carryTriageStatus } from '@corpus-chat/corpus-queries';
import { recordAuditEvent, type AuditActor } from '@corpus-chat/persistence';
import { importPdfForReview } from '../pdf-reports/pdf-import';
import { isPdf } from '../pdf-reports/pdf-text';
import { duplicateOutcome, findLiveDuplicate } from './duplicate-report';
import { contentFault, importFailure, sqlState } from './import-failure';
import { parseForImport, type ParseOptions, type ParsedFile, sizeRefusal } from './parse-report';
import { type InsertPacing, insertFindings, toJsonb } from './persist-report';
import { storable } from './report-text';
import { removeBidiControls } from './text';

/** One file to import: its name (only the base name is kept, without bidi controls) and its bytes. */
export interface ImportFile {
  filename: string;
  bytes: Uint8Array;
}

export interface ImportOptions extends ParseOptions {
  /** The operator importing: recorded in the audit log (`report.import`) in the import's transaction. */
  actor?: AuditActor;
  /** Refuse a file whose report was archived too, not only a live one (the start-up import). */
  archivedToo?: boolean;
}

function managerOf(target: DataSource | EntityManager): EntityManager {
  return target instanceof DataSource ? target.manager : target;
}

/**
 * A re-scan against the scan of its target recorded just before it (IMPORT-RULES scan comparison),
 * with the triage statuses carried over from it; undefined for a first scan.
 */
async function compareWithPreviousScan(
  tx: EntityManager,
  report: { id: number; filename: string },
): Promise<SincePreviousScan | undefined> {
  const previous = await previousScan(tx, report.id);
  if (!previous) return undefined;
  const c = await compareReports(tx, { baseline: previous.id, report: report.id });
  const carried = await carryTriageStatus(tx, previous, report);
  return {
    baselineReportId: previous.id,
    baselineFilename: previous.filename,
    new: c.new,
    fixed: c.fixed,
    unchanged: c.unchanged,
    carried,
  };
}

/**
 * A re-scan's import summary in words: `0 new, 2 fixed, 8 unchanged since a.json; 1 reopened; statuses
 * kept: 2 false positive, 1 confirmed` (the carried parts only when there are some).
 */
export function sincePreviousSummary(s: SincePreviousScan): string {
  const parts = [`${s.new} new, ${s.fixed} fixed, ${s.unchanged} unchanged since ${s.baselineFilename}`];
  const c = s.carried ?? { falsePositive: 0, riskAccepted: 0, confirmed: 0, reopened: 0 };
  if (c.reopened) parts.push(`${c.reopened} reopened`);
  const kept = [
    [c.falsePositive, 'false positive'],
    [c.riskAccepted, 'risk accepted'],
    [c.confirmed, 'confirmed'],
  ].filter(([n]) => n) as [number, string][];
  if (kept.length) parts.push(`statuses kept: ${kept.map(([n, what]) => `${n} ${what}`).join(', ')}`);
  return parts.join('; ');
}

/**
 * Imports one report file in one transaction: the report and every finding, or nothing. The format
 * comes from the content (IMPORT-RULES.md); PDFs wait in `needs_review` (`importPdfForReview`). A
 * live duplicate is refused as `DUPLICATE`. A re-scan of a known target is compared with the scan
 * before it and takes over its triage statuses (`carryTriageStatus`).
 *
 * Never throws for a bad file (`{ ok: false, code, error }`); database failures are thrown.
 */
export async function importReport(
  target: DataSource | EntityManager,
  file: ImportFile,
  options: ImportOptions = {},
): Promise<ImportOutcome> {
  const name = importFileName(file.filename);
  if (isPdf(file.bytes)) {
    const tooLarge = sizeRefusal(file.bytes.byteLength, options.maxBytes);
    if (tooLarge) return { ok: false, file: name, code: tooLarge.code, error: tooLarge.message };
    return importPdfForReview(managerOf(target), name, file.bytes, options.actor);
  }
  const parsed = await parseForImport(name, file.bytes, options);
  if ('ok' in parsed) return parsed;
  const archived =
    options.archivedToo && (await findLiveDuplicate(managerOf(target), parsed.contentHash, true));
  if (archived) return duplicateOutcome(name, archived);
  return storeParsedReport(managerOf(target), name, parsed, options.actor);
}

/** The name a report keeps: the base name without bidi controls (`unnamed` when nothing is left). */
export function importFileName(filename: string): string {
  return storable(removeBidiControls(path.basename(filename))) || 'unnamed';
}

/**
 * The writing half of `importReport`: stores a parsed file in one transaction (a savepoint inside
 * one) or refuses it as `DUPLICATE` / `INVALID`. Database failures are thrown.
 */
export async function storeParsedReport(
  manager: EntityManager,
  name: string,
  parsed: ParsedFile,
  actor?: AuditActor,
  pacing?: InsertPacing,
): Promise<ImportOutcome> {
  try {
    return await manager.transaction(async (tx): Promise<ImportOutcome> => {
      const existing = await findLiveDuplicate(tx, parsed.contentHash);
      if (existing) return duplicateOutcome(name, existing);
      const [report]: { id: number }[] = await tx.query(
        `INSERT INTO reports (filename, format, status, finding_count, content_hash, doc_metadata, scan_target, scanned_at)
         VALUES ($1, $2, 'ready', $3, $4, $5::jsonb, $6::text[], $7::timestamptz) RETURNING id`,
        [
          name,
          parsed.format,
          parsed.findings.length,
          parsed.contentHash,
          toJsonb(parsed.docMetadata),
          parsed.target ?? null,
          parsed.scannedAt ?? null,
        ],
      );
      await insertFindings(tx, report.id, parsed.findings, pacing);
      const sincePrevious = await compareWithPreviousScan(tx, { id: report.id, filename: name });
      if (actor) {
        await recordAuditEvent(tx, {
          action: 'report.import',
          actor,
          subjectType: 'report',
          subjectId: report.id,
          after: {
            filename: name,
            format: parsed.format,
            findingCount: parsed.findings.length,
            ...(sincePrevious
              ? { previousReportId: sincePrevious.baselineReportId, carried: sincePrevious.carried }
              : {}),
          },
        });
      }
      return {
        ok: true,
        file: name,
        reportId: report.id,
        format: parsed.format,
        findingCount: parsed.findings.length,
        ...(sincePrevious ? { sincePrevious } : {}),
      };
    });
  } catch (e) {
    if (!(e instanceof QueryFailedError)) throw e;
    const driverError = e.driverError as { constraint?: string };
    if (driverError.constraint === 'uq_reports_content_hash_live') {
      const existing = await findLiveDuplicate(manager, parsed.contentHash);
      if (existing) return duplicateOutcome(name, existing);
    }
    // The content, not the database, is at fault: retrying would fail the same way.
    if (contentFault(sqlState(e))) return importFailure(name, e);
    throw e;
  }
}
