import type { Severity } from './corpus.types';

/**
 * Scan comparison (IMPORT-RULES.md "Finding identity and scan comparison"): a baseline against a
 * newer scan of the same target, identities counted as multisets. "Fixed" sets no verdict.
 */
export interface ScanComparisonCounts {
  new: number;
  fixed: number;
  unchanged: number;
}

/** One side of a comparison, or one scan of a target. `scannedAt`: the recorded scan time, ISO 8601 UTC. */
export interface ComparedReport {
  id: number;
  filename: string;
  format: string;
  scannedAt: string | null;
  findingCount: number;
}

/** A new or fixed finding: of the report when new, of the baseline when fixed. */
export interface ComparedFinding {
  id: number;
  title: string;
  severity: Severity;
}

/** Result of comparing a baseline with a report (`GET /api/reports/compare`, tool `compare_reports`). */
export interface ScanComparison extends ScanComparisonCounts {
  baseline: ComparedReport;
  report: ComparedReport;
  /** The target both reports name (normalised names). */
  target: string[];
  /** How the baseline was chosen: named by the caller, or the earlier recorded scan time. */
  baselineBy: 'caller' | 'scan_time';
  /** Findings of the report whose identity the baseline lacks (ordered by id). */
  newFindings: ComparedFinding[];
  /** Findings of the baseline whose identity the report lacks (ordered by id). */
  fixedFindings: ComparedFinding[];
}

/** Why two reports were not compared (each code's meaning is in IMPORT-RULES.md's comparison section). */
export type ScanComparisonErrorCode =
  | 'NOT_FOUND'
  | 'AMBIGUOUS'
  | 'NO_TARGET'
  | 'NOT_SAME_TARGET'
  | 'SAME_REPORT'
  | 'ORDER_UNKNOWN'
  | 'NO_LATER_SCAN';

/** A report's other scans of the same target, ordered by recorded scan time (`GET /api/reports/:id/scans`). */
export interface SameTargetScans {
  report: ComparedReport;
  /** Null when the report names no target (then it has no other scans). */
  target: string[] | null;
  /** The report itself included, so its place in the sequence shows; oldest first, unknown times last. */
  scans: ComparedReport[];
}

/** What an import of a re-scan adds to its outcome: the comparison with the previous scan of the target. */
export interface SincePreviousScan extends ScanComparisonCounts {
  baselineReportId: number;
  baselineFilename: string;
  /**
   * Triage statuses the re-scan's findings took over from the same identities in the previous scan
   * (absent from import outcomes stored before statuses were carried over).
   */
  carried?: CarriedTriage;
}

/** Statuses carried from the previous scan; a `fixed` finding seen again is `reopened`. */
export interface CarriedTriage {
  falsePositive: number;
  riskAccepted: number;
  confirmed: number;
  reopened: number;
}
