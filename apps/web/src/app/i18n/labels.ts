import { IMPORT_FORMAT_NAMES, REPORT_FORMATS } from '@corpus-chat/contracts';
import type {
  NoteStage,
  OperatorRole,
  ReportFormat,
  ReportStatus,
  Severity,
  TriageStatus,
  VerdictStatus,
} from '@corpus-chat/contracts';

// Functions rather than constant maps: `$localize` is read when a label is shown, after the
// translations of the page's language are loaded. English labels keep the stored value's wording
// (lower case, styled by CSS) so what an operator reads matches the API and the exports.

/** `value`'s label among `labels`, else `fallback`. */
export function labelOf(value: string, fallback: string, labels: Record<string, string>): string {
  return Object.hasOwn(labels, value) ? labels[value]! : fallback;
}

/** critical/high/medium/low/info in the interface's language. */
export function severityLabel(severity: Severity | string): string {
  return labelOf(severity, severity, {
    critical: $localize`:@@severity.critical:critical`,
    high: $localize`:@@severity.high:high`,
    medium: $localize`:@@severity.medium:medium`,
    low: $localize`:@@severity.low:low`,
    info: $localize`:@@severity.info:info`,
  });
}

/** A finding's triage status. */
export function triageStatusLabel(status: TriageStatus | string): string {
  return labelOf(status, status.replace('_', ' '), {
    open: $localize`:@@status.open:open`,
    confirmed: $localize`:@@status.confirmed:confirmed`,
    false_positive: $localize`:@@status.falsePositive:false positive`,
    risk_accepted: $localize`:@@status.riskAccepted:risk accepted`,
    fixed: $localize`:@@status.fixed:fixed`,
    needs_review: $localize`:@@status.needsReview:needs review`,
  });
}

/** A retest verdict; `none` for a finding not retested. */
export function verdictLabel(verdict: VerdictStatus | 'none' | string): string {
  return labelOf(verdict, verdict.replace('_', ' '), {
    still_open: $localize`:@@verdict.stillOpen:still open`,
    fixed: $localize`:@@verdict.fixed:fixed`,
    inconclusive: $localize`:@@verdict.inconclusive:inconclusive`,
    none: $localize`:@@verdict.none:not retested`,
  });
}

/** The stage a note was written at. */
export function noteStageLabel(stage: NoteStage | string): string {
  return labelOf(stage, stage, {
    extract: $localize`:@@stage.extract:extract`,
    goal: $localize`:@@stage.goal:goal`,
    triage: $localize`:@@stage.triage:triage`,
    retest: $localize`:@@stage.retest:retest`,
    verdict: $localize`:@@stage.verdict:verdict`,
    general: $localize`:@@stage.general:general`,
  });
}

/** An operator's role. */
export function roleLabel(role: OperatorRole | string): string {
  return labelOf(role, role, {
    admin: $localize`:@@role.admin:admin`,
    operator: $localize`:@@role.operator:operator`,
  });
}

/** A report's lifecycle state. */
export function reportStatusLabel(status: ReportStatus | string): string {
  return labelOf(status, status, {
    extracting: $localize`:@@reportStatus.extracting:extracting`,
    needs_review: $localize`:@@reportStatus.needsReview:needs review`,
    ready: $localize`:@@reportStatus.ready:ready`,
    failed: $localize`:@@reportStatus.failed:failed`,
    cancelled: $localize`:@@reportStatus.cancelled:cancelled`,
  });
}

/** The descriptive format names, translated; tool names stay as IMPORT-RULES.md writes them. */
const FORMAT_DESCRIPTIONS: Partial<Record<ReportFormat, () => string>> = {
  csv: () => $localize`:@@format.csv:CSV exports`,
  json: () => $localize`:@@format.json:native JSON`,
  pdf: () => $localize`:@@format.pdf:PDF reports`,
};

/** The formats the importers read as one list in `locale`'s words ("SARIF 2.1.0, …, native JSON and PDF reports"). */
export function importFormatsLabel(locale: string): string {
  const names = REPORT_FORMATS.map(
    (format) => FORMAT_DESCRIPTIONS[format]?.() ?? IMPORT_FORMAT_NAMES[format],
  );
  return new Intl.ListFormat(locale, { type: 'conjunction' }).format(names);
}
