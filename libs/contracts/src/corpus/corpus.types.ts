import type { SincePreviousScan } from './scan-comparison';
import type { TriageStatus } from '../triage/triage.types';
import type { FindingFilter } from './finding-filter.schema';

/** Corpus vocabulary shared by every layer. Severity: CVSS 3.1's qualitative scale, `info` for "None". */
export const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** Retest verdict on a finding. */
export const VERDICT_STATUSES = ['still_open', 'fixed', 'inconclusive'] as const;
export type VerdictStatus = (typeof VERDICT_STATUSES)[number];

/** A report's lifecycle: structured imports go to `ready`; PDFs pass `extracting` or `needs_review`. */
export const REPORT_STATUSES = ['extracting', 'needs_review', 'ready', 'failed', 'cancelled'] as const;
export type ReportStatus = (typeof REPORT_STATUSES)[number];

/**
 * Formats the importer reads, detected from the content (IMPORT-RULES.md "every format"): the
 * scanner formats, then `json` (the native report format).
 */
export const REPORT_FORMATS = [
  'sarif',
  'zap',
  'nuclei',
  'trivy',
  'burp',
  'nessus',
  'csv',
  'json',
  'pdf',
] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

/**
 * File name endings the importers' formats are usually saved with, for file pickers. The
 * importer itself ignores the extension (the content decides), so this only guides the picker.
 */
export const REPORT_FILE_EXTENSIONS: Record<ReportFormat, readonly string[]> = {
  sarif: ['.sarif', '.json'],
  zap: ['.xml', '.json'],
  nuclei: ['.jsonl', '.ndjson', '.json'],
  trivy: ['.json'],
  burp: ['.xml'],
  nessus: ['.nessus', '.xml'],
  csv: ['.csv', '.tsv'],
  json: ['.json'],
  pdf: ['.pdf'],
};

/**
 * Where a finding version came from: a structured import, an operator's edit, a model's
 * extraction from a PDF report, or an operator's manual entry.
 */
export const FINDING_ORIGINS = ['import', 'edit', 'extraction', 'manual'] as const;
export type FindingOrigin = (typeof FINDING_ORIGINS)[number];

/** Where a finding itself came from (its version 1): a scanner import, a model's extraction, a person. */
export const FINDING_SOURCES = ['import', 'extraction', 'manual'] as const satisfies readonly FindingOrigin[];
export type FindingSource = (typeof FINDING_SOURCES)[number];

/** `extract` and `goal` are written by document extraction; the others by operators too. */
export const NOTE_STAGES = ['extract', 'goal', 'triage', 'retest', 'verdict', 'general'] as const;
export type NoteStage = (typeof NOTE_STAGES)[number];

/** Counts keyed by severity; every severity present, zeros included. */
export type SeverityCounts = Record<Severity, number>;

/** Filter over current findings: declared once, with its JSON Schema and validation, in `finding-filter.schema.ts`. */
export type { FindingFilter } from './finding-filter.schema';

/** The filter as the query layer applied it, echoed back so every number can be checked. */
export interface AppliedFilter extends FindingFilter {
  /** Weakness classes the text named (their CWE ids were ORed into the text match). */
  weaknessClasses?: { name: string; cwe: number[] }[];
  /** The report's filename when the filter selected one report. */
  reportFilename?: string;
}

/** One current finding as a list row. */
export interface FindingRow {
  id: number;
  title: string;
  severity: Severity;
  reportId: number | null;
  reportFilename: string | null;
  cwe: number[];
  cvssBaseScore: number | null;
  latestVerdict: VerdictStatus | null;
  status: TriageStatus;
  createdAt: string;
}

/** Result of `searchFindings`: `total` is the exact number of matches even when `rows` is capped. */
export interface SearchFindingsResult {
  total: number;
  rows: FindingRow[];
  limit: number;
  offset: number;
  filter: AppliedFilter;
}

/** `title`: the current version's exact title (the "most common vulnerability" is its top group). */
export const GROUP_BY_KEYS = ['severity', 'report', 'cwe', 'verdict', 'status', 'format', 'title'] as const;
export type GroupByKey = (typeof GROUP_BY_KEYS)[number];

/**
 * One group of `countFindingsBy`; `key` is the severity, report id, CWE id, verdict, report format
 * or finding title (`none` for no verdict / no CWE / no report).
 */
export interface CountGroup {
  key: string;
  label: string;
  count: number;
}

/** Result of `countFindingsBy`: groups sorted by count descending, then label. */
export interface CountFindingsByResult {
  groupBy: GroupByKey;
  /** Distinct findings matching the filter (a finding with two CWE ids counts once here). */
  total: number;
  groups: CountGroup[];
  filter: AppliedFilter;
}

/** Report as listed to operators. */
export interface ReportSummary {
  id: number;
  filename: string;
  format: string;
  status: ReportStatus;
  findingCount: number;
  bySeverity: SeverityCounts;
  archived: boolean;
  error: string | null;
  /** The model that extracted a PDF report's findings; null otherwise. */
  model: string | null;
  docMetadata: Record<string, unknown>;
  createdAt: string;
}

/** Result of `corpusOverview`. Archived reports and their findings are excluded. */
export interface CorpusOverview {
  reports: { total: number; byStatus: Record<ReportStatus, number> };
  findings: { total: number; bySeverity: SeverityCounts };
  verdicts: Record<VerdictStatus, number>;
  /** Findings by triage status, every status listed. */
  statuses: Record<TriageStatus, number>;
  perReport: { id: number; filename: string; format: string; total: number; bySeverity: SeverityCounts }[];
}

export interface CvssScore {
  /** CVSS vector string, e.g. `CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H`. */
  vector?: string;
  /** Base score 0.0–10.0 (CVSS 3.1 §7.1). */
  base_score?: number;
}

/** A finding version as a person reads it. */
export interface FindingVersionView {
  version: number;
  origin: FindingOrigin;
  title: string;
  severity: Severity;
  description: string;
  impact: string | null;
  attackVector: string | null;
  affectedEndpoints: string[];
  reproductionSteps: string[];
  cwe: number[];
  cvss: CvssScore | null;
  mitre: string[];
  editedBy: string | null;
  reason: string | null;
  createdAt: string;
}

export interface FindingNoteView {
  stage: NoteStage;
  body: string;
  author: string | null;
  createdAt: string;
}

export interface VerdictView {
  status: VerdictStatus;
  reasonCode: string | null;
  rationale: string | null;
  actor: 'agent' | 'operator';
  createdAt: string;
}

export interface FindingDetail {
  id: number;
  reportId: number | null;
  reportFilename: string | null;
  createdAt: string;
  versionCount: number;
  status: TriageStatus;
  current: FindingVersionView;
  notes: FindingNoteView[];
  latestVerdict: VerdictView | null;
}

/** `findingDetail` never throws for an unknown id: it answers `{ found: false }`. */
export type FindingDetailResult = { found: true; finding: FindingDetail } | { found: false; id: number };

/** Outcome of importing one file. */
export type ImportOutcome =
  | {
      ok: true;
      file: string;
      reportId: number;
      format: ReportFormat;
      findingCount: number;
      /** Present when the report is a later scan of a target already imported: what changed since the previous scan. */
      sincePrevious?: SincePreviousScan;
    }
  | { ok: false; file: string; error: string; code: ImportErrorCode; existingReportId?: number };

export type ImportErrorCode =
  | 'EMPTY'
  | 'UNSUPPORTED_VERSION'
  | 'UNSUPPORTED_FORMAT'
  | 'UNRECOGNISED_FORMAT'
  | 'INVALID'
  | 'TOO_LARGE'
  | 'DUPLICATE'
  /** A PDF without a text layer (a scanned image). */
  | 'NO_TEXT_LAYER'
  /** A PDF whose text no model chunk could be read from. */
  | 'EXTRACTION_FAILED'
  /** A server failure while storing (database unreachable…): the message quotes the logged error id. */
  | 'STORE_FAILED';
