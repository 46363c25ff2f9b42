import { describe, expect, it } from 'vitest';
import type { FindingRow } from '@corpus-chat/contracts';
import { sortFindingRows } from './finding-sort';

const row = (id: number, over: Partial<FindingRow>): FindingRow => ({
  id,
  title: `t${id}`,
  severity: 'low',
  reportId: 1,
  reportFilename: 'a.sarif',
  cwe: [],
  cvssBaseScore: null,
  status: 'open',
  latestVerdict: null,
  createdAt: '2026-01-01T00:00:00Z',
  ...over,
});

describe('sortFindingRows', () => {
  const rows = [
    row(3, { severity: 'medium', title: 'XSS 10', cvssBaseScore: 6.1, cwe: [79] }),
    row(1, { severity: 'critical', title: 'XSS 9', cwe: [89] }),
    row(2, { severity: 'info', title: 'banner', cvssBaseScore: 9.8 }),
  ];
  const ids = (sort: Parameters<typeof sortFindingRows>[1]) => sortFindingRows(rows, sort).map((r) => r.id);

  it('keeps the API order without a sort, and never reorders its input', () => {
    expect(ids(null)).toEqual([3, 1, 2]);
    sortFindingRows(rows, { key: 'id', dir: 'asc' });
    expect(rows.map((r) => r.id)).toEqual([3, 1, 2]);
  });

  it('sorts severities by rank, titles with numbers in numeric order, ids both ways', () => {
    expect(ids({ key: 'severity', dir: 'asc' })).toEqual([1, 3, 2]);
    expect(ids({ key: 'severity', dir: 'desc' })).toEqual([2, 3, 1]);
    expect(ids({ key: 'title', dir: 'asc' })).toEqual([2, 1, 3]);
    expect(ids({ key: 'id', dir: 'desc' })).toEqual([3, 2, 1]);
  });

  it('puts findings without a CVSS score or CWE last in either order', () => {
    expect(ids({ key: 'cvss', dir: 'desc' })).toEqual([2, 3, 1]);
    expect(ids({ key: 'cvss', dir: 'asc' })).toEqual([3, 2, 1]);
    expect(ids({ key: 'cwe', dir: 'desc' })).toEqual([1, 3, 2]);
  });
});
