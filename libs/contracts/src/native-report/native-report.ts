import type { NoteStage, Severity, VerdictStatus } from '../corpus/corpus.types';
import schema from './native-report.schema.json';

/**
 * The native JSON report format (`format: "corpus-chat-native"`), defined by
 * `native-report.schema.json`; `native-report.example.json` shows an edited finding with a verdict.
 */
export const NATIVE_REPORT_FORMAT = 'corpus-chat-native';
export const NATIVE_REPORT_FORMAT_VERSION = 1;
export const NATIVE_REPORT_SCHEMA: Record<string, unknown> = schema;

/** TypeScript view of one version in a native report (see the schema for each field's meaning). */
export interface NativeReportVersion {
  title: string;
  severity: Severity;
  description?: string;
  impact?: string;
  attack_vector?: string;
  affected_endpoints?: string[];
  reproduction_steps?: string[];
  cwe?: number[];
  cvss?: { vector?: string; base_score?: number };
  mitre?: string[];
  edited_by?: string;
  reason?: string;
  created_at?: string;
}

export interface NativeReportFinding {
  ref?: string;
  created_at?: string;
  versions: NativeReportVersion[];
  notes?: { stage: NoteStage; body: string; author?: string; created_at?: string }[];
  verdicts?: {
    status: VerdictStatus;
    reason_code?: string;
    rationale?: string;
    actor: 'agent' | 'operator';
    created_at?: string;
  }[];
}

/** A native report document, as validated by {@link NATIVE_REPORT_SCHEMA}. */
export interface NativeReport {
  $schema?: string;
  format: typeof NATIVE_REPORT_FORMAT;
  format_version: number;
  report?: {
    title?: string;
    tool?: { name?: string; version?: string };
    scan_date?: string;
    target?: string;
    author?: string;
    metadata?: Record<string, unknown>;
  };
  findings: NativeReportFinding[];
}
