import type { Params } from '@angular/router';
import { SEVERITIES, VERDICT_STATUSES, type FindingFilter, type Severity, type VerdictStatus } from '@corpus-chat/contracts';

/** The Findings view's URL query parameters for a filter (empty fields left out). */
export function findingFilterToQueryParams(filter: FindingFilter): Params {
  const params: Params = {};
  if (filter.text) params['text'] = filter.text;
  if (filter.severity) params['severity'] = filter.severity;
  if (filter.reportId) params['reportId'] = String(filter.reportId);
  if (filter.reportName && !filter.reportId) params['reportName'] = filter.reportName;
  if (filter.cwe) params['cwe'] = String(filter.cwe);
  if (filter.verdict) params['verdict'] = filter.verdict;
  return params;
}

/** Reads a filter back from query parameters, ignoring values the API would refuse. */
export function findingFilterFromQueryParams(params: Params): FindingFilter {
  const str = (k: string): string | undefined => {
    const v = params[k];
    return typeof v === 'string' && v.trim() ? v.trim() : undefined;
  };
  const int = (k: string): number | undefined => {
    const v = Number(str(k));
    return Number.isInteger(v) && v >= 1 ? v : undefined;
  };
  const severity = str('severity');
  const verdict = str('verdict');
  const filter: FindingFilter = {
    text: str('text'),
    severity: SEVERITIES.includes(severity as Severity) ? (severity as Severity) : undefined,
    reportId: int('reportId'),
    reportName: str('reportName'),
    cwe: int('cwe'),
    verdict: VERDICT_STATUSES.includes(verdict as VerdictStatus) ? (verdict as VerdictStatus) : undefined,
  };
  return Object.fromEntries(Object.entries(filter).filter(([, v]) => v !== undefined)) as FindingFilter;
}
