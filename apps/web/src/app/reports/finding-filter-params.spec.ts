import { describe, expect, it } from 'vitest';
import {
  findingFilterFromQueryParams,
  findingFilterToQueryParams,
  groupFindingFilter,
  parseCweInput,
} from './finding-filter-params';

describe('finding filter ⇄ query parameters', () => {
  it('round-trips every search_findings filter field', () => {
    const filter = {
      text: 'SQL injection',
      severity: 'critical' as const,
      reportId: 7,
      cwe: 89,
      verdict: 'still_open' as const,
    };
    const params = findingFilterToQueryParams(filter);
    expect(params).toEqual({
      text: 'SQL injection',
      severity: 'critical',
      reportId: '7',
      cwe: '89',
      verdict: 'still_open',
    });
    expect(findingFilterFromQueryParams(params)).toEqual(filter);
  });

  it('round-trips the origin and status a model’s findings are found by, dropping an unknown origin', () => {
    const filter = { origin: 'extraction' as const, status: 'needs_review' as const };
    const params = findingFilterToQueryParams(filter);
    expect(params).toEqual({ origin: 'extraction', status: 'needs_review' });
    expect(findingFilterFromQueryParams(params)).toEqual(filter);
    expect(findingFilterFromQueryParams({ origin: 'scanner' })).toEqual({});
  });

  it('keeps a report chosen by name only when no report id is given', () => {
    expect(findingFilterToQueryParams({ reportName: 'dd__flawfinder.sarif' })).toEqual({
      reportName: 'dd__flawfinder.sarif',
    });
    expect(findingFilterToQueryParams({ reportName: 'x.sarif', reportId: 3 })).toEqual({ reportId: '3' });
  });

  it('drops values the API would refuse instead of sending them', () => {
    expect(
      findingFilterFromQueryParams({
        severity: 'urgent',
        cwe: 'abc',
        reportId: '-1',
        verdict: 'maybe',
        text: '  ',
      }),
    ).toEqual({});
  });

  it('reads numbers like their text (an <input type=number> yields a number)', () => {
    expect(findingFilterFromQueryParams({ cwe: 79, reportId: 3 })).toEqual({ cwe: 79, reportId: 3 });
    expect(findingFilterFromQueryParams({ cwe: -79, reportId: 0, text: Number.NaN })).toEqual({});
  });
});

describe('groupFindingFilter', () => {
  it("narrows a breakdown by triage status to the group's status, and refuses an unknown one", () => {
    expect(groupFindingFilter({ severity: 'high' }, 'status', 'false_positive')).toEqual({
      severity: 'high',
      status: 'false_positive',
    });
    expect(groupFindingFilter({}, 'status', 'none')).toBeNull();
  });
});

describe('parseCweInput', () => {
  it('reads a CWE id as typed', () => {
    expect(parseCweInput('79')).toBe(79);
    expect(parseCweInput(' CWE-79 ')).toBe(79);
    expect(parseCweInput('cwe 89')).toBe(89);
    expect(parseCweInput(1021)).toBe(1021);
  });

  it('is undefined when empty and null when invalid', () => {
    expect(parseCweInput('')).toBeUndefined();
    expect(parseCweInput('  ')).toBeUndefined();
    expect(parseCweInput(null)).toBeUndefined();
    for (const bad of ['0', '-3', -3, 0, '1.5', 'abc', 'CWE-', '79x', '1e3'])
      expect(parseCweInput(bad)).toBeNull();
  });
});
