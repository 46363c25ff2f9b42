import { describe, expect, it } from 'vitest';
import { findingFilterFromQueryParams, findingFilterToQueryParams } from './finding-filter-params';

describe('finding filter ⇄ query parameters', () => {
  it('round-trips every search_findings filter field', () => {
    const filter = { text: 'SQL injection', severity: 'critical' as const, reportId: 7, cwe: 89, verdict: 'still_open' as const };
    const params = findingFilterToQueryParams(filter);
    expect(params).toEqual({ text: 'SQL injection', severity: 'critical', reportId: '7', cwe: '89', verdict: 'still_open' });
    expect(findingFilterFromQueryParams(params)).toEqual(filter);
  });

  it('keeps a report chosen by name only when no report id is given', () => {
    expect(findingFilterToQueryParams({ reportName: 'dd__flawfinder.sarif' })).toEqual({ reportName: 'dd__flawfinder.sarif' });
    expect(findingFilterToQueryParams({ reportName: 'x.sarif', reportId: 3 })).toEqual({ reportId: '3' });
  });

  it('drops values the API would refuse instead of sending them', () => {
    expect(findingFilterFromQueryParams({ severity: 'urgent', cwe: 'abc', reportId: '-1', verdict: 'maybe', text: '  ' })).toEqual({});
  });
});
