import type {
  AppliedFilter,
  CorpusOverview,
  CountFindingsByResult,
  FindingDetailResult,
  FindingFilter,
  FindingRow,
  ReportSummary,
  ScanComparison,
  SearchFindingsResult,
  ToolCardData,
} from '@corpus-chat/contracts';
import { SEVERITIES } from '@corpus-chat/contracts';

/** Rows a `tool.result` card carries at most (the model may get more, up to SEARCH_ROWS_CAP). */
export const CARD_ROWS_CAP = 10;
/** Groups a card carries at most. */
export const CARD_GROUPS_CAP = 20;
/** Groups and reports the model receives at most from one call (it is told when more exist). */
export const MODEL_LIST_CAP = 50;
/** Characters of a long text field the model receives from `finding_detail`. */
const MODEL_TEXT_CAP = 1500;

const clip = (s: string | null | undefined, n: number): string | null =>
  s == null ? null : s.length > n ? `${s.slice(0, n)}…` : s;

/** Only the filter fields that were set, in a fixed order (what follow-ups store as `lastFilter`). */
export function plainFilter(f: FindingFilter | AppliedFilter | undefined): FindingFilter {
  const out: FindingFilter = {};
  if (!f) return out;
  if (f.text) out.text = f.text;
  if (f.severity) out.severity = f.severity;
  if (f.reportName) out.reportName = f.reportName;
  else if (f.reportId != null) out.reportId = f.reportId;
  if (f.format) out.format = f.format;
  if (f.scanner) out.scanner = f.scanner;
  if (f.cwe != null) out.cwe = f.cwe;
  if (f.verdict) out.verdict = f.verdict;
  if (f.includeArchived) out.includeArchived = true;
  if (f.status) out.status = f.status;
  if (f.edited) out.edited = f.edited;
  if (f.origin) out.origin = f.origin;
  return out;
}

/**
 * A filter as a short, checkable phrase: `text='SQL injection', severity=high, report='x.sarif'`,
 * or `no filter`. Uses the report's file name the query layer resolved when there is one.
 */
export function describeFilter(f: FindingFilter | AppliedFilter | undefined): string {
  if (!f) return 'no filter';
  const parts: string[] = [];
  if (f.text) parts.push(`text='${f.text}'`);
  if (f.severity) parts.push(`severity=${f.severity}`);
  const reportFilename = (f as AppliedFilter).reportFilename;
  if (reportFilename || f.reportName) parts.push(`report='${reportFilename ?? f.reportName}'`);
  else if (f.reportId != null) parts.push(`report id=${f.reportId}`);
  if (f.format) parts.push(`format=${f.format}`);
  if (f.scanner) parts.push(`scanner='${f.scanner}'`);
  if (f.cwe != null) parts.push(`cwe=CWE-${f.cwe}`);
  if (f.verdict) parts.push(`verdict=${f.verdict}`);
  if (f.includeArchived) parts.push('archived reports included');
  if (f.status) parts.push(`status=${f.status}`);
  if (f.edited) parts.push(`edited=${f.edited}`);
  if (f.origin) parts.push(`origin=${f.origin}`);
  return parts.length ? parts.join(', ') : 'no filter';
}

const modelRow = (r: FindingRow) => ({
  id: r.id,
  title: r.title,
  severity: r.severity,
  report: r.reportFilename,
  cwe: r.cwe,
  verdict: r.latestVerdict,
  status: r.status,
});
const cardRow = (r: FindingRow) => ({
  id: r.id,
  title: clip(r.title, 200) ?? '',
  severity: r.severity,
  reportFilename: r.reportFilename,
});
const modelFilter = (f: AppliedFilter) => ({
  ...plainFilter(f),
  ...(f.reportFilename ? { reportFilename: f.reportFilename } : {}),
  ...(f.weaknessClasses?.length ? { weaknessClasses: f.weaknessClasses } : {}),
});

/** What each tool hands the model (compact JSON) and the UI (one-line summary, bounded card data). */
export interface FormattedToolResult {
  summary: string;
  /** The exact number the call counted (findings, reports, groups' sum), stated with every result. */
  total: number;
  /** What was counted, as `describeFilter` words it (`no filter` when nothing narrowed it). */
  filter: string;
  model: unknown;
  data?: ToolCardData;
}

export function formatOverview(o: CorpusOverview): FormattedToolResult {
  const sev = SEVERITIES.map((s) => `${s} ${o.findings.bySeverity[s]}`).join(', ');
  return {
    summary: `get_corpus_overview: ${o.reports.total} reports, ${o.findings.total} findings (${sev})`,
    total: o.findings.total,
    filter: 'no filter',
    model: {
      reports: o.reports,
      findings: o.findings,
      verdicts: o.verdicts,
      statuses: o.statuses,
      perReport: o.perReport
        .slice(0, MODEL_LIST_CAP)
        .map((r) => ({ id: r.id, filename: r.filename, format: r.format, total: r.total, ...r.bySeverity })),
      perReportTruncated: o.perReport.length > MODEL_LIST_CAP,
    },
    data: {
      total: o.findings.total,
      groupBy: 'severity',
      groups: SEVERITIES.map((s) => ({ key: s, label: s, count: o.findings.bySeverity[s] })),
    },
  };
}

export function formatSearch(r: SearchFindingsResult): FormattedToolResult {
  const returned = r.rows.length;
  return {
    summary: `search_findings: ${r.total} findings (showing ${returned}) for ${describeFilter(r.filter)}`,
    total: r.total,
    filter: describeFilter(r.filter),
    model: {
      total: r.total,
      returned,
      truncated: r.offset + returned < r.total,
      filter: modelFilter(r.filter),
      rows: r.rows.map(modelRow),
    },
    data: {
      total: r.total,
      returned,
      filter: {
        ...plainFilter(r.filter),
        ...(r.filter.weaknessClasses ? { weaknessClasses: r.filter.weaknessClasses } : {}),
      },
      rows: r.rows.slice(0, CARD_ROWS_CAP).map(cardRow),
    },
  };
}

export function formatCount(r: CountFindingsByResult): FormattedToolResult {
  const top = r.groups
    .slice(0, 3)
    .map((g) => `${g.label} ${g.count}`)
    .join(', ');
  const filter = describeFilter(r.filter);
  return {
    summary:
      `count_findings_by: ${r.total} findings by ${r.groupBy} in ${r.groups.length} groups` +
      (filter === 'no filter' ? '' : ` for ${filter}`) +
      (top ? ` (${top}${r.groups.length > 3 ? ', …' : ''})` : ''),
    total: r.total,
    filter,
    model: {
      groupBy: r.groupBy,
      total: r.total,
      groupCount: r.groups.length,
      groups: r.groups.slice(0, MODEL_LIST_CAP).map((g) => ({ key: g.key, label: g.label, count: g.count })),
      truncated: r.groups.length > MODEL_LIST_CAP,
      filter: modelFilter(r.filter),
    },
    data: {
      total: r.total,
      groupBy: r.groupBy,
      filter: plainFilter(r.filter),
      groups: r.groups
        .slice(0, CARD_GROUPS_CAP)
        .map((g) => ({ key: g.key, label: clip(g.label, 200) ?? '', count: g.count })),
    },
  };
}

/** `includeArchived`: whether the list was asked to include archived reports (only stated, not applied here). */
export function formatReports(reports: ReportSummary[], includeArchived = false): FormattedToolResult {
  const findings = reports.reduce((n, r) => n + r.findingCount, 0);
  return {
    summary: `list_all_reports: ${reports.length} reports, ${findings} findings`,
    total: reports.length,
    filter: includeArchived ? 'archived reports included' : 'no filter',
    model: {
      total: reports.length,
      reports: reports.slice(0, 2 * MODEL_LIST_CAP).map((r) => ({
        id: r.id,
        filename: r.filename,
        format: r.format,
        status: r.status,
        archived: r.archived,
        findings: r.findingCount,
        ...r.bySeverity,
      })),
      truncated: reports.length > 2 * MODEL_LIST_CAP,
    },
    data: {
      total: reports.length,
      groupBy: 'report',
      groups: reports
        .slice(0, CARD_GROUPS_CAP)
        .map((r) => ({ key: String(r.id), label: r.filename, count: r.findingCount })),
    },
  };
}

export function formatDetail(r: FindingDetailResult): FormattedToolResult {
  if (!r.found) {
    return {
      summary: `finding_detail: no finding #${r.id}`,
      total: 0,
      filter: `id=${r.id}`,
      model: { found: false, id: r.id },
      data: { findingId: r.id },
    };
  }
  const f = r.finding;
  const c = f.current;
  return {
    summary: `finding_detail: finding #${f.id} '${clip(c.title, 80)}' (${c.severity})`,
    total: 1,
    filter: `id=${f.id}`,
    model: {
      found: true,
      id: f.id,
      report: f.reportFilename,
      title: c.title,
      severity: c.severity,
      cwe: c.cwe,
      cvss: c.cvss,
      description: clip(c.description, MODEL_TEXT_CAP),
      impact: clip(c.impact, MODEL_TEXT_CAP),
      attackVector: clip(c.attackVector, MODEL_TEXT_CAP),
      affectedEndpoints: c.affectedEndpoints.slice(0, 10),
      versionCount: f.versionCount,
      status: f.status,
      notes: f.notes.slice(0, 5).map((n) => ({ stage: n.stage, body: clip(n.body, 400) })),
      latestVerdict: f.latestVerdict
        ? { status: f.latestVerdict.status, rationale: clip(f.latestVerdict.rationale, 400) }
        : null,
    },
    data: {
      findingId: f.id,
      verdict: f.latestVerdict?.status ?? null,
      rows: [
        { id: f.id, title: clip(c.title, 200) ?? '', severity: c.severity, reportFilename: f.reportFilename },
      ],
    },
  };
}

/** `compare_reports`: both reports, the counts, and the new and fixed titles (≤ {@link MODEL_LIST_CAP}). */
export function formatComparison(c: ScanComparison): FormattedToolResult {
  const side = (r: ScanComparison['report']) => ({
    id: r.id,
    filename: r.filename,
    scannedAt: r.scannedAt,
    findings: r.findingCount,
  });
  const list = (rows: ScanComparison['newFindings']) =>
    rows.slice(0, MODEL_LIST_CAP).map((f) => ({ id: f.id, title: f.title, severity: f.severity }));
  return {
    summary: `compare_reports: ${c.new} new, ${c.fixed} fixed, ${c.unchanged} unchanged in '${clip(c.report.filename, 80)}' since baseline '${clip(c.baseline.filename, 80)}'`,
    total: c.report.findingCount,
    filter: `report '${clip(c.report.filename, 80)}' compared with baseline '${clip(c.baseline.filename, 80)}'`,
    model: {
      baseline: side(c.baseline),
      report: side(c.report),
      baselineChosenBy: c.baselineBy === 'caller' ? 'the question' : 'earlier recorded scan time',
      target: c.target,
      new: c.new,
      fixed: c.fixed,
      unchanged: c.unchanged,
      newFindings: list(c.newFindings),
      fixedFindings: list(c.fixedFindings),
      truncated: c.newFindings.length > MODEL_LIST_CAP || c.fixedFindings.length > MODEL_LIST_CAP,
    },
    data: {
      total: c.report.findingCount,
      groups: [
        { key: 'new', label: 'new', count: c.new },
        { key: 'fixed', label: 'fixed', count: c.fixed },
        { key: 'unchanged', label: 'unchanged', count: c.unchanged },
      ],
      rows: c.newFindings.slice(0, CARD_ROWS_CAP).map((f) => ({
        id: f.id,
        title: clip(f.title, 200) ?? '',
        severity: f.severity,
        reportFilename: c.report.filename,
      })),
    },
  };
}
