import type { Params } from '@angular/router';
import {
  FINDING_EDIT_FILTERS,
  FINDING_SOURCES,
  SEVERITIES,
  TRIAGE_STATUSES,
  VERDICT_STATUSES,
  type FindingFilter,
  type GroupByKey,
} from '@corpus-chat/contracts';

/** The Findings view's URL query parameters for a filter (empty fields left out). */
export function findingFilterToQueryParams(filter: FindingFilter): Params {
  const params: Params = {};
  if (filter.text) params['text'] = filter.text;
  if (filter.severity) params['severity'] = filter.severity;
  if (filter.reportId) params['reportId'] = String(filter.reportId);
  if (filter.reportName && !filter.reportId) params['reportName'] = filter.reportName;
  if (filter.cwe) params['cwe'] = String(filter.cwe);
  if (filter.verdict) params['verdict'] = filter.verdict;
  if (filter.status) params['status'] = filter.status;
  if (filter.edited) params['edited'] = filter.edited;
  if (filter.origin) params['origin'] = filter.origin;
  return params;
}

/** The Findings view's query parameters for `filter` at `page` (1-based). */
export function findingListParams(filter: FindingFilter, page: number): Params {
  return {
    ...findingFilterToQueryParams(filter),
    ...(Number.isInteger(page) && page > 1 ? { page: String(page) } : {}),
  };
}

/**
 * Reads a CWE id as typed (`79`, `CWE-79`, `cwe 79`, or a number input's number): empty is
 * `undefined`, anything else invalid `null` (a validation message).
 */
export function parseCweInput(value: unknown): number | undefined | null {
  if (value === null || value === undefined) return undefined;
  const text = String(value).trim();
  if (!text) return undefined;
  const m = /^(?:cwe[-\s]?)?(\d{1,9})$/i.exec(text);
  const id = m ? Number(m[1]) : NaN;
  return Number.isInteger(id) && id >= 1 ? id : null;
}

/**
 * Reads a filter back from query parameters (or form values), ignoring values the API would refuse.
 * Numbers count like their decimal text.
 */
export function findingFilterFromQueryParams(params: Params): FindingFilter {
  const str = (k: string): string | undefined => {
    const raw: unknown = params[k];
    const v = typeof raw === 'number' && Number.isFinite(raw) ? String(raw) : raw;
    return typeof v === 'string' && v.trim() ? v.trim() : undefined;
  };
  const int = (k: string): number | undefined => {
    const v = Number(str(k));
    return Number.isInteger(v) && v >= 1 ? v : undefined;
  };
  const oneOf = <T extends string>(k: string, values: readonly T[]): T | undefined =>
    values.find((v) => v === str(k));
  const filter: FindingFilter = {
    text: str('text'),
    severity: oneOf('severity', SEVERITIES),
    reportId: int('reportId'),
    reportName: str('reportName'),
    cwe: int('cwe'),
    verdict: oneOf('verdict', VERDICT_STATUSES),
    status: oneOf('status', TRIAGE_STATUSES),
    edited: oneOf('edited', FINDING_EDIT_FILTERS),
    origin: oneOf('origin', FINDING_SOURCES),
  };
  return Object.fromEntries(Object.entries(filter).filter(([, v]) => v !== undefined)) as FindingFilter;
}

/** The filter selecting one group of a breakdown; null for a `none` group, which no filter expresses. */
export function groupFindingFilter(
  filter: FindingFilter,
  groupBy: GroupByKey,
  key: string,
): FindingFilter | null {
  const id = /^\d{1,9}$/.test(key) ? Number(key) : 0;
  switch (groupBy) {
    case 'severity':
    case 'verdict':
    case 'status': {
      const value = findingFilterFromQueryParams({ [groupBy]: key })[groupBy];
      return value ? { ...filter, [groupBy]: value } : null;
    }
    case 'cwe':
      return id >= 1 ? { ...filter, cwe: id } : null;
    case 'report': {
      if (id < 1) return null;
      const { reportName: _byName, ...rest } = filter;
      return { ...rest, reportId: id };
    }
    default:
      return null;
  }
}
