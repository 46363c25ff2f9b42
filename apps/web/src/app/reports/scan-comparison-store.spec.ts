import { HttpErrorResponse } from '@angular/common/http';
import { TestBed } from '@angular/core/testing';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { ComparedReport, SameTargetScans, ScanComparison } from '@corpus-chat/contracts';
import { ReportsApi } from './reports-api';
import { ScanComparisonStore } from './scan-comparison-store';

const scan = (id: number, scannedAt: string | null): ComparedReport => ({
  id,
  filename: `scan-${id}.json`,
  format: 'zap',
  scannedAt,
  findingCount: 8,
});
const SCANS = [
  scan(1, '2021-11-23T22:36:55.000Z'),
  scan(2, '2023-07-04T20:03:01.000Z'),
  scan(3, '2024-01-14T01:22:41.000Z'),
];

describe('ScanComparisonStore', () => {
  let api: {
    sameTargetScans: ReturnType<typeof vi.fn>;
    compareReports: ReturnType<typeof vi.fn>;
    comparisonCsvUrl: ReturnType<typeof vi.fn>;
  };
  let store: ScanComparisonStore;

  beforeEach(() => {
    api = {
      sameTargetScans: vi.fn((id: number): Promise<SameTargetScans> =>
        Promise.resolve({ report: SCANS[id - 1], target: ['http://x'], scans: SCANS }),
      ),
      compareReports: vi.fn((baseline: number, report: number): Promise<ScanComparison> =>
        Promise.resolve({
          baseline: SCANS[baseline - 1],
          report: SCANS[report - 1],
          target: ['http://x'],
          baselineBy: 'caller',
          new: report - baseline,
          fixed: 0,
          unchanged: 8,
          newFindings: [],
          fixedFindings: [],
        }),
      ),
      comparisonCsvUrl: vi.fn(
        (b: number, r: number) => `/api/reports/compare?baseline=${b}&report=${r}&format=csv`,
      ),
    };
    TestBed.configureTestingModule({
      providers: [ScanComparisonStore, { provide: ReportsApi, useValue: api }],
    });
    store = TestBed.inject(ScanComparisonStore);
  });

  it('compares a report with the scan recorded just before it, offering the earlier ones newest first', async () => {
    await store.open(3);
    expect(store.baselines().map((b) => b.id)).toEqual([2, 1]);
    expect(api.compareReports).toHaveBeenLastCalledWith(2, 3);
    expect(store.comparison()?.new).toBe(1);
    expect(store.csvUrl()).toBe('/api/reports/compare?baseline=2&report=3&format=csv');
    await store.chooseBaseline(1);
    expect(api.compareReports).toHaveBeenLastCalledWith(1, 3);
    expect(store.comparison()?.new).toBe(2);
  });

  it('opens on the baseline an import named', async () => {
    await store.open(3, 1);
    expect(store.baselineId()).toBe(1);
    expect(api.compareReports).toHaveBeenLastCalledWith(1, 3);
  });

  it('says so when there is no earlier scan, and shows the API’s refusal', async () => {
    await store.open(1);
    expect(store.error()).toBe('No earlier scan of this target has been imported.');
    expect(api.compareReports).not.toHaveBeenCalled();
    api.compareReports.mockRejectedValueOnce(
      new HttpErrorResponse({
        status: 422,
        error: { statusCode: 422, message: "'a.json' and 'b.json' are not scans of the same target" },
      }),
    );
    await store.open(3);
    expect(store.error()).toBe("'a.json' and 'b.json' are not scans of the same target");
    store.close();
    expect(store.report()).toBeNull();
  });
});
