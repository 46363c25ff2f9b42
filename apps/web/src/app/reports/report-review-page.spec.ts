import { TestBed, type ComponentFixture } from '@angular/core/testing';
import { HttpErrorResponse } from '@angular/common/http';
import { provideRouter } from '@angular/router';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { ManualFindingDto, ReportSummary, ReportTextView } from '@corpus-chat/contracts';
import { parseCweList, ReportReviewPage } from './report-review-page';
import { ReportsApi } from './reports-api';

const report: ReportSummary = {
  id: 4,
  filename: 'pentest.pdf',
  format: 'pdf',
  status: 'needs_review',
  findingCount: 0,
  bySeverity: { critical: 0, high: 0, medium: 0, low: 0, info: 0 },
  archived: false,
  error: null,
  model: null,
  docMetadata: {},
  createdAt: '2026-01-01T00:00:00Z',
};

function makeApi() {
  let count = 0;
  return {
    report: vi.fn(() => Promise.resolve({ ...report, findingCount: count })),
    reportText: vi.fn((_id: number, offset: number): Promise<ReportTextView> =>
      Promise.resolve(
        offset === 0
          ? {
              reportId: 4,
              pageCount: 2,
              totalChars: 40,
              offset: 0,
              text: 'TOB-K8S-001 page one\fpage ',
              nextOffset: 26,
            }
          : {
              reportId: 4,
              pageCount: 2,
              totalChars: 40,
              offset: 26,
              text: 'two continues',
              nextOffset: null,
            },
      ),
    ),
    addManualFinding: vi.fn((_id: number, f: ManualFindingDto) => {
      if (f.title === 'late')
        return Promise.reject(
          new HttpErrorResponse({ status: 409, error: { message: 'report 4 (pentest.pdf) is ready' } }),
        );
      count++;
      return Promise.resolve({ findingId: 100 + count, reportId: 4, findingCount: count });
    }),
    completeReview: vi.fn(() =>
      Promise.resolve({ ...report, status: 'ready' as const, findingCount: count }),
    ),
  };
}

describe('ReportReviewPage', () => {
  let fixture: ComponentFixture<ReportReviewPage>;
  let api: ReturnType<typeof makeApi>;
  const el = (): HTMLElement => fixture.nativeElement as HTMLElement;
  const q = <T extends Element>(id: string) => el().querySelector<T>(`[data-testid="${id}"]`);
  const type = (id: string, value: string) => {
    const input = q<HTMLInputElement | HTMLTextAreaElement>(id)!;
    input.value = value;
    input.dispatchEvent(new Event('input'));
  };
  const shows = async (pred: () => boolean) =>
    vi.waitFor(() => {
      fixture.detectChanges();
      if (!pred()) throw new Error('not yet');
    });

  beforeEach(async () => {
    api = makeApi();
    TestBed.configureTestingModule({
      providers: [provideRouter([]), { provide: ReportsApi, useValue: api }],
    });
    fixture = TestBed.createComponent(ReportReviewPage);
    fixture.componentRef.setInput('reportId', '4');
    await shows(() => !!q('report-text'));
  });

  it('shows the text page by page in a focusable block, and loads the rest on demand', async () => {
    const text = q<HTMLElement>('report-text')!;
    expect(text.tabIndex).toBe(0);
    expect(text.textContent).toContain('TOB-K8S-001 page one');
    expect(q('report-status')?.textContent?.trim()).toBe('needs review');
    const more = Array.from(el().querySelectorAll('button')).find((b) =>
      b.textContent?.includes('Load more text'),
    )!;
    more.click();
    await shows(() => !!q('report-text')?.textContent?.includes('page two continues'));
    expect(api.reportText).toHaveBeenLastCalledWith(4, 26, expect.any(Number));
    expect(el().querySelectorAll('.page-mark')).toHaveLength(2);
  });

  it('sends a finding entered by hand with its CWE ids and location, then lists it and counts it', async () => {
    type('manual-title', '  Hostpath volumes  ');
    q<HTMLSelectElement>('manual-severity')!.value = 'high';
    q<HTMLSelectElement>('manual-severity')!.dispatchEvent(new Event('change'));
    type('manual-cwe', 'CWE-284, 22');
    type('manual-location', 'kubelet');
    q<HTMLFormElement>('manual-finding-form')!.dispatchEvent(new Event('submit'));
    await shows(() => !!q('added-findings'));
    expect(api.addManualFinding).toHaveBeenCalledWith(4, {
      title: 'Hostpath volumes',
      severity: 'high',
      cwe: [284, 22],
      location: 'kubelet',
    });
    expect(q('report-finding-count')?.textContent?.trim()).toBe('1 finding');
    expect(q<HTMLInputElement>('manual-title')!.value).toBe('');
  });

  it('refuses a malformed CWE before sending, and shows the API refusal', async () => {
    type('manual-title', 'x');
    type('manual-cwe', 'XSS');
    q<HTMLFormElement>('manual-finding-form')!.dispatchEvent(new Event('submit'));
    await shows(() => !!q('manual-form-error'));
    expect(api.addManualFinding).not.toHaveBeenCalled();

    type('manual-cwe', '');
    type('manual-title', 'late');
    q<HTMLFormElement>('manual-finding-form')!.dispatchEvent(new Event('submit'));
    await shows(() => !!q('review-error'));
    expect(q('review-error')?.textContent).toContain('is ready');
  });

  it('marks the report reviewed: the form goes away and the status reads ready', async () => {
    q<HTMLButtonElement>('mark-reviewed')!.click();
    await shows(() => q('report-status')?.textContent?.trim() === 'ready');
    expect(api.completeReview).toHaveBeenCalledWith(4);
    expect(q('manual-finding-form')).toBeNull();
  });

  it('parses CWE lists the way operators write them', () => {
    expect(parseCweList('79, CWE-89; cwe 22')).toEqual([79, 89, 22]);
    expect(parseCweList('')).toEqual([]);
    expect(parseCweList('79, sql')).toBeNull();
  });
});
