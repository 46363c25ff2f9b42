import { TestBed } from '@angular/core/testing';
import { provideRouter } from '@angular/router';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type {
  ComparedReport,
  ImportJobView,
  ImportOutcome,
  ReportSummary,
  SameTargetScans,
  ScanComparison,
} from '@corpus-chat/contracts';
import { ChatSocket } from '../chat/chat-socket';
import { ReportsApi } from './reports-api';
import { ReportsPage } from './reports-page';
import { ReportsStore } from './reports-store';

const summary = (id: number, filename: string): ReportSummary => ({
  id,
  filename,
  model: null,
  format: 'zap',
  status: 'ready',
  findingCount: 8,
  bySeverity: { critical: 0, high: 0, medium: 4, low: 3, info: 1 },
  archived: false,
  error: null,
  docMetadata: {},
  createdAt: `2026-01-0${id}T00:00:00Z`,
});
const scan = (id: number, filename: string): ComparedReport => ({
  id,
  filename,
  format: 'zap',
  scannedAt: `202${id}-01-01T00:00:00.000Z`,
  findingCount: 8,
});

describe('ReportsPage scan comparison', () => {
  const old = scan(1, 'scan-2021.json');
  const rescan = scan(2, 'scan-2022.json');
  let api: Record<string, ReturnType<typeof vi.fn>>;
  let imported: ImportOutcome & { ok: true };
  /** Delivers an import's status change as the socket would. */
  let emit: (job: ImportJobView) => void = () => undefined;
  const job = (status: ImportJobView['status'], outcome: ImportOutcome | null): ImportJobView => ({
    id: 'imp-1',
    extraction: null,
    file: rescan.filename,
    sizeBytes: 10,
    status,
    outcome,
    error: null,
    createdAt: '2026-01-01T00:00:00Z',
    updatedAt: '2026-01-01T00:00:00Z',
  });

  beforeEach(() => {
    imported = {
      ok: true,
      file: rescan.filename,
      reportId: 2,
      format: 'zap',
      findingCount: 8,
      sincePrevious: {
        baselineReportId: 1,
        baselineFilename: old.filename,
        new: 0,
        fixed: 2,
        unchanged: 8,
        carried: { falsePositive: 1, riskAccepted: 0, confirmed: 1, reopened: 2 },
      },
    };
    const comparison: ScanComparison = {
      baseline: old,
      report: rescan,
      target: ['http://www.itsecgames.com'],
      baselineBy: 'caller',
      new: 0,
      fixed: 2,
      unchanged: 8,
      newFindings: [],
      fixedFindings: [
        { id: 11, title: 'Reverse Tabnabbing', severity: 'medium' },
        { id: 12, title: 'Timestamp Disclosure - Unix', severity: 'low' },
      ],
    };
    api = {
      listReports: vi.fn(() => Promise.resolve([summary(1, old.filename), summary(2, rescan.filename)])),
      overview: vi.fn(() => Promise.resolve(null)),
      queueImports: vi.fn(() => Promise.resolve([job('queued', null)])),
      sameTargetScans: vi.fn((): Promise<SameTargetScans> =>
        Promise.resolve({ report: rescan, target: comparison.target, scans: [old, rescan] }),
      ),
      compareReports: vi.fn(() => Promise.resolve(comparison)),
      comparisonCsvUrl: vi.fn(() => '/api/reports/compare?baseline=1&report=2&format=csv'),
    };
    const socket = {
      connect: vi.fn(),
      onImportEvent: (h: (j: ImportJobView) => void) => ((emit = h), () => undefined),
    };
    TestBed.configureTestingModule({
      providers: [
        provideRouter([]),
        { provide: ReportsApi, useValue: api },
        { provide: ChatSocket, useValue: socket },
      ],
    });
  });

  it('shows what changed since the previous scan after an upload, and opens the comparison from there', async () => {
    const fixture = TestBed.createComponent(ReportsPage);
    await fixture.whenStable();
    await fixture.debugElement.injector.get(ReportsStore).importFiles([new File(['{}'], rescan.filename)]);
    // The worker's outcome arrives on the socket.
    emit(job('ready', imported));
    fixture.detectChanges();
    await fixture.whenStable();
    const el: HTMLElement = fixture.nativeElement;
    const since = el.querySelector('[data-testid="since-previous"]')!;
    expect(since.textContent!.replace(/\s+/g, ' ').trim()).toBe(
      '0 new, 2 fixed, 8 unchanged since scan-2021.json',
    );
    expect(el.querySelector('[data-testid="since-reopened"]')?.textContent?.trim()).toBe(
      '2 reopened (marked fixed, seen again)',
    );
    expect(el.querySelector('[data-testid="since-carried"]')?.textContent?.trim()).toBe(
      '2 triage statuses kept',
    );

    (since.nextElementSibling as HTMLButtonElement).click();
    // The panel renders once the comparison arrives: wait for its counts (bounded).
    await vi.waitFor(
      () => {
        fixture.detectChanges();
        expect(el.querySelector('[data-testid="comparison-counts"] .count')).not.toBeNull();
      },
      { timeout: 2000 },
    );
    expect(api['compareReports']).toHaveBeenCalledWith(1, 2);
    const panel = el.querySelector('[data-testid="comparison-panel"]')!;
    const counts = panel.querySelector('[data-testid="comparison-counts"]')!;
    expect(
      [...counts.querySelectorAll('.count')].map((c) => c.textContent!.replace(/\s+/g, ' ').trim()),
    ).toEqual(['0 new', '2 fixed', '8 unchanged']);
    expect(counts.textContent).toContain('since scan-2021.json');
    expect([...panel.querySelectorAll('li a')].map((a) => a.textContent!.trim())).toEqual([
      'Reverse Tabnabbing',
      'Timestamp Disclosure - Unix',
    ]);
    expect(panel.querySelector('a.csv')!.getAttribute('href')).toBe(
      '/api/reports/compare?baseline=1&report=2&format=csv',
    );
  });
});
