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

/** critical/high/medium/low/info in the interface's language. */
export function severityLabel(severity: Severity | string): string {
  switch (severity) {
    case 'critical':
      return $localize`:@@severity.critical:critical`;
    case 'high':
      return $localize`:@@severity.high:high`;
    case 'medium':
      return $localize`:@@severity.medium:medium`;
    case 'low':
      return $localize`:@@severity.low:low`;
    case 'info':
      return $localize`:@@severity.info:info`;
    default:
      return severity;
  }
}

/** A finding's triage status. */
export function triageStatusLabel(status: TriageStatus | string): string {
  switch (status) {
    case 'open':
      return $localize`:@@status.open:open`;
    case 'confirmed':
      return $localize`:@@status.confirmed:confirmed`;
    case 'false_positive':
      return $localize`:@@status.falsePositive:false positive`;
    case 'risk_accepted':
      return $localize`:@@status.riskAccepted:risk accepted`;
    case 'fixed':
      return $localize`:@@status.fixed:fixed`;
    case 'needs_review':
      return $localize`:@@status.needsReview:needs review`;
    default:
      return status.replace('_', ' ');
  }
}

/** A retest verdict; `none` for a finding not retested. */
export function verdictLabel(verdict: VerdictStatus | 'none' | string): string {
  switch (verdict) {
    case 'still_open':
      return $localize`:@@verdict.stillOpen:still open`;
    case 'fixed':
      return $localize`:@@verdict.fixed:fixed`;
    case 'inconclusive':
      return $localize`:@@verdict.inconclusive:inconclusive`;
    case 'none':
      return $localize`:@@verdict.none:not retested`;
    default:
      return verdict.replace('_', ' ');
  }
}

/** The stage a note was written at. */
export function noteStageLabel(stage: NoteStage | string): string {
  switch (stage) {
    case 'extract':
      return $localize`:@@stage.extract:extract`;
    case 'goal':
      return $localize`:@@stage.goal:goal`;
    case 'triage':
      return $localize`:@@stage.triage:triage`;
    case 'retest':
      return $localize`:@@stage.retest:retest`;
    case 'verdict':
      return $localize`:@@stage.verdict:verdict`;
    case 'general':
      return $localize`:@@stage.general:general`;
    default:
      return stage;
  }
}

/** An operator's role. */
export function roleLabel(role: OperatorRole | string): string {
  switch (role) {
    case 'admin':
      return $localize`:@@role.admin:admin`;
    case 'operator':
      return $localize`:@@role.operator:operator`;
    default:
      return role;
  }
}

/** A report's lifecycle state. */
export function reportStatusLabel(status: ReportStatus | string): string {
  switch (status) {
    case 'extracting':
      return $localize`:@@reportStatus.extracting:extracting`;
    case 'needs_review':
      return $localize`:@@reportStatus.needsReview:needs review`;
    case 'ready':
      return $localize`:@@reportStatus.ready:ready`;
    case 'failed':
      return $localize`:@@reportStatus.failed:failed`;
    case 'cancelled':
      return $localize`:@@reportStatus.cancelled:cancelled`;
    default:
      return status;
  }
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
