import type { FindingVersionView, NoteStage, ReportFormat, VerdictStatus } from '@corpus-chat/contracts';

/**
 * One version of a finding as parsed from a file: the fields a person reads (`FindingVersionView`
 * less the numbering the database assigns) plus the verbatim source entry.
 */
export interface ParsedVersion extends Omit<FindingVersionView, 'version' | 'createdAt'> {
  /** The verbatim source entry (secrets redacted). */
  raw: unknown;
  /** ISO 8601; null for "now". */
  createdAt: string | null;
}

export interface ParsedNote {
  stage: NoteStage;
  body: string;
  author: string | null;
  createdAt: string | null;
}

export interface ParsedVerdict {
  status: VerdictStatus;
  reasonCode: string | null;
  rationale: string | null;
  actor: 'agent' | 'operator';
  createdAt: string | null;
}

/** A finding with its versions (oldest first, at least one), notes and verdicts. */
export interface ParsedFinding {
  versions: ParsedVersion[];
  notes: ParsedNote[];
  verdicts: ParsedVerdict[];
  createdAt: string | null;
  /** The finding's identity across scans (IMPORT-RULES.md); absent for native and manual findings. */
  identity?: string[];
}

/** What a parser makes of one file: its format, metadata and findings; nothing written yet. */
export interface ParsedReport {
  format: ReportFormat;
  /** Best effort: tool name and version, scan date, target; plus counters such as `unmappedSeverities` and `suppressed`. */
  docMetadata: Record<string, unknown>;
  findings: ParsedFinding[];
  /**
   * What the file says was scanned (IMPORT-RULES.md "a report's target"): normalised names, sorted
   * and unique; null when the format or file names none.
   */
  target?: string[] | null;
  /** The recorded scan time (IMPORT-RULES.md), ISO 8601 in UTC; null when the file gives none. */
  scannedAt?: string | null;
}

/** A finding of a scanner file: one version (origin `import`), no notes or verdicts. */
export function scannerFinding(
  v: Pick<ParsedVersion, 'title' | 'severity' | 'description' | 'raw'> & Partial<ParsedVersion>,
): ParsedFinding {
  return {
    versions: [
      {
        origin: 'import',
        impact: null,
        attackVector: null,
        affectedEndpoints: [],
        reproductionSteps: [],
        cwe: [],
        cvss: null,
        mitre: [],
        editedBy: null,
        reason: null,
        createdAt: null,
        ...v,
      },
    ],
    notes: [],
    verdicts: [],
    createdAt: null,
  };
}
