import type { ComputedScope, FindingFilter } from '@corpus-chat/contracts';
import type { PlannedScope } from './question-plan';

/** The previous filter narrowed by the new parts (a new value of a field replaces the old one). */
export function mergeFilters(previous: FindingFilter, next: FindingFilter): FindingFilter {
  const merged = { ...previous, ...next };
  if (next.reportName) delete merged.reportId;
  if (next.reportId !== undefined) delete merged.reportName;
  return merged;
}

/**
 * A follow-up's scope: the previous one with each part the question names replacing the old value
 * of its kind (a severity or set of them, an exclusion of the same key, a with/without).
 */
export function mergeScopes(previous: PlannedScope, next: PlannedScope): PlannedScope {
  const filter = mergeFilters(previous.filter, next.filter);
  const scope: ComputedScope = { ...(previous.scope ?? {}) };
  if (next.filter.severity || next.scope?.severities) delete scope.severities;
  if (next.scope?.severities) {
    delete filter.severity;
    scope.severities = next.scope.severities;
  }
  if (kinds(scope.exclude).some((k) => kinds(next.filter).includes(k))) delete scope.exclude;
  if (next.scope?.exclude) {
    scope.exclude = next.scope.exclude;
    for (const k of kinds(next.scope.exclude)) {
      delete filter[k];
      if (k === 'reportName') delete filter.reportId;
    }
  }
  if (next.scope?.has) scope.has = next.scope.has;
  return { filter, ...(Object.keys(scope).length ? { scope } : {}) };
}

/** The keys of a filter, a report id counted as its name. */
const kinds = (f: FindingFilter = {}) =>
  (Object.keys(f) as (keyof FindingFilter)[]).map((k) => (k === 'reportId' ? 'reportName' : k));
