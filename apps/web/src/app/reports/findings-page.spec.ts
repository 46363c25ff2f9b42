import { Component } from '@angular/core';
import { TestBed } from '@angular/core/testing';
import { Router, provideRouter } from '@angular/router';
import { RouterTestingHarness } from '@angular/router/testing';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { FindingFilter, FindingRow, ReportSummary, SearchFindingsResult } from '@corpus-chat/contracts';
import { FindingsPage } from './findings-page';
import { ReportsApi } from './reports-api';

@Component({ template: 'finding' })
class FindingStub {}

/** A corpus of 184 findings, 40 of them CWE-79, 8 CWE-89: the fake API pages it like the real one. */
function search(
  filter: FindingFilter,
  page: { limit: number; offset: number },
): Promise<SearchFindingsResult> {
  const total = filter.cwe === 79 ? 40 : filter.cwe === 89 ? 8 : 184;
  const rows: FindingRow[] = [];
  for (let i = page.offset; i < Math.min(total, page.offset + page.limit); i++) {
    rows.push({
      id: i + 1,
      title: `Finding ${i + 1}`,
      severity: 'high',
      reportId: 1,
      reportFilename: 'a.sarif',
      cwe: filter.cwe ? [filter.cwe] : [],
      cvssBaseScore: null,
      latestVerdict: null,
      status: filter.status ?? 'open',
      createdAt: '2026-01-01T00:00:00Z',
    });
  }
  return Promise.resolve({ total, rows, limit: page.limit, offset: page.offset, filter });
}

// Bounds are safety nets, not timings: each navigation renders a page of 50 rows in jsdom, which a
// loaded 2-core host makes take seconds, and a test waits for several.
describe('FindingsPage', { timeout: 60_000 }, () => {
  let api: {
    searchFindings: ReturnType<typeof vi.fn>;
    listReports: ReturnType<typeof vi.fn>;
    setStatusOfMany: ReturnType<typeof vi.fn>;
  };
  let harness: RouterTestingHarness;
  const el = (): HTMLElement => harness.routeNativeElement!;
  /** Bound for the mocked API's answers to reach the page. */
  const WAIT = { timeout: 15_000 };
  const url = (): URL => new URL(TestBed.inject(Router).url, 'http://x');
  const typeCwe = (value: string): void => {
    const input = el().querySelector<HTMLInputElement>('#f-cwe')!;
    input.value = value;
    input.dispatchEvent(new Event('input'));
    input.dispatchEvent(new Event('blur'));
    el().querySelector<HTMLButtonElement>('button[type="submit"]')!.click();
  };
  const total = (): string =>
    el().querySelector('[data-testid="findings-total"]')!.textContent!.replace(/\s+/g, ' ').trim();
  /** The unfiltered first page of the corpus is listed. */
  const allListed = () => vi.waitFor(() => expect(total()).toMatch(/^184 findings/), WAIT);

  beforeEach(async () => {
    api = {
      searchFindings: vi.fn(search),
      listReports: vi.fn(() => Promise.resolve([] as ReportSummary[])),
      setStatusOfMany: vi.fn((ids: number[], change: { status: string }) =>
        Promise.resolve({ status: change.status, changed: ids }),
      ),
    };
    TestBed.configureTestingModule({
      providers: [
        provideRouter([
          { path: 'reports/findings', component: FindingsPage },
          { path: 'reports/findings/:findingId', component: FindingStub },
        ]),
        { provide: ReportsApi, useValue: api },
      ],
    });
    harness = await RouterTestingHarness.create();
  });

  it('links CSV and JSON exports of the filter in the URL, and of everything without one', async () => {
    await harness.navigateByUrl('/reports/findings?text=SQL%20injection&severity=high&cwe=89&page=2');
    const href = (id: string): URL =>
      new URL(
        el().querySelector<HTMLAnchorElement>(`[data-testid="${id}"]`)!.getAttribute('href')!,
        'http://x',
      );
    await vi.waitFor(() => {
      for (const [id, path] of [
        ['export-csv', '/api/findings/export.csv'],
        ['export-json', '/api/findings/export.json'],
      ]) {
        expect(href(id).pathname).toBe(path);
        expect(Object.fromEntries(href(id).searchParams)).toEqual({
          text: 'SQL injection',
          severity: 'high',
          cwe: '89',
        });
      }
    }, WAIT);
    await harness.navigateByUrl('/reports/findings');
    await vi.waitFor(
      () =>
        expect(el().querySelector('[data-testid="export-csv"]')!.getAttribute('href')).toBe(
          '/api/findings/export.csv',
        ),
      WAIT,
    );
  });

  it('filters by triage status through the URL', async () => {
    await harness.navigateByUrl('/reports/findings');
    await allListed();
    const status = el().querySelector<HTMLSelectElement>('#f-status')!;
    status.value = 'risk_accepted';
    status.dispatchEvent(new Event('change'));
    el().querySelector<HTMLButtonElement>('button[type="submit"]')!.click();
    await vi.waitFor(() => {
      expect(url().searchParams.get('status')).toBe('risk_accepted');
      expect(api.searchFindings).toHaveBeenLastCalledWith(
        { status: 'risk_accepted' },
        { limit: 50, offset: 0 },
      );
      expect(el().textContent).toContain('Filter: status risk accepted');
    }, WAIT);
  });

  it('sets the status of the ticked findings in one request, then searches again', async () => {
    await harness.navigateByUrl('/reports/findings');
    await allListed();
    expect(el().querySelector('[data-testid="bulk-form"]')).toBeNull();
    el().querySelector<HTMLInputElement>('input[aria-label="Tick finding 2"]')!.click();
    el().querySelector<HTMLInputElement>('input[aria-label="Tick finding 1"]')!.click();
    await vi.waitFor(
      () => expect(el().querySelector('[data-testid="bulk-form"]')?.textContent).toContain('2 ticked'),
      WAIT,
    );
    const status = el().querySelector<HTMLSelectElement>('#b-status')!;
    status.value = 'fixed';
    status.dispatchEvent(new Event('change'));
    await harness.fixture.whenStable();
    const calls = api.searchFindings.mock.calls.length;
    el().querySelector<HTMLFormElement>('[data-testid="bulk-form"]')!.dispatchEvent(new Event('submit'));
    // Done: announced, the ticks cleared and the page searched again.
    await vi.waitFor(() => {
      expect(el().textContent).toContain('2 findings are now fixed.');
      expect(el().querySelector('[data-testid="bulk-form"]')).toBeNull();
      expect(api.searchFindings.mock.calls.length).toBe(calls + 1);
    }, WAIT);
    expect(api.setStatusOfMany).toHaveBeenCalledWith([2, 1], { status: 'fixed' });
  });

  it('typing 79 in CWE and searching puts cwe=79 in the URL and shows only those findings', async () => {
    await harness.navigateByUrl('/reports/findings');
    await allListed();
    typeCwe('79');
    await vi.waitFor(() => expect(total()).toMatch(/^40 findings · showing 1–40/), WAIT);
    expect(url().searchParams.get('cwe')).toBe('79');
    expect(api.searchFindings).toHaveBeenLastCalledWith({ cwe: 79 }, { limit: 50, offset: 0 });
    expect(el().textContent).toContain('Filter: CWE-79');
  });

  it('shows titles and report names without bidi control characters', async () => {
    const rlo = '\u202E';
    api.listReports.mockResolvedValue([{ id: 1, filename: `invoice${rlo}fdp.exe.sarif` } as ReportSummary]);
    api.searchFindings.mockImplementation((filter: FindingFilter, page: { limit: number; offset: number }) =>
      search(filter, page).then((r) => ({
        ...r,
        rows: r.rows.map((row) => ({
          ...row,
          title: `XSS${rlo} in\u2066 search`,
          reportFilename: `invoice${rlo}fdp.exe.sarif`,
        })),
      })),
    );
    await harness.navigateByUrl('/reports/findings');
    const text = (selector: string): string[] =>
      Array.from(el().querySelectorAll(selector)).map((e) => e.textContent!.trim());
    // The findings and the report list (for the filter) arrive separately.
    await vi.waitFor(() => {
      expect(text('td.title')[0]).toBe('XSS in search');
      expect(text('option')).toContain('invoicefdp.exe.sarif');
    }, WAIT);
    expect(text('td.report-cell')[0]).toBe('invoicefdp.exe.sarif');
    expect(el().querySelector('td.report-cell')!.getAttribute('title')).toBe('invoicefdp.exe.sarif');
    expect(el().textContent).not.toMatch(/[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/);
  });

  it('accepts "CWE-89" as typed', async () => {
    await harness.navigateByUrl('/reports/findings');
    typeCwe('CWE-89');
    await vi.waitFor(() => expect(total()).toMatch(/^8 findings/), WAIT);
    expect(url().searchParams.get('cwe')).toBe('89');
  });

  it.each(['-3', '0', '1.5', 'abc'])(
    'refuses CWE %s with a validation message and keeps the URL',
    async (value) => {
      await harness.navigateByUrl('/reports/findings?severity=high');
      await vi.waitFor(() => expect(total()).toMatch(/^184 findings/), WAIT);
      const calls = api.searchFindings.mock.calls.length;
      typeCwe(value);
      await vi.waitFor(
        () =>
          expect(el().querySelector('[data-testid="cwe-error"]')?.textContent).toContain(
            'whole number above 0',
          ),
        WAIT,
      );
      expect(el().querySelector('#f-cwe')!.getAttribute('aria-invalid')).toBe('true');
      expect(url().search).toBe('?severity=high');
      expect(api.searchFindings.mock.calls.length).toBe(calls);
    },
  );

  it('shows "page N of M" and replaces a page past the end with the last page', async () => {
    await harness.navigateByUrl('/reports/findings?page=2');
    await vi.waitFor(() => expect(total()).toMatch(/^184 findings · showing 51–100/), WAIT);
    expect(el().querySelector('[data-testid="page-of"]')?.textContent?.trim()).toBe('Page 2 of 4');

    await harness.navigateByUrl('/reports/findings?page=999');
    await vi.waitFor(() => {
      expect(url().searchParams.get('page')).toBe('4');
      expect(total()).toMatch(/^184 findings · showing 151–184/);
    }, WAIT);
    expect(total()).not.toContain('49,901');
    expect(el().querySelector('[data-testid="page-notice"]')?.textContent).toContain(
      'There is no page 999: showing page 4, the last.',
    );
    expect(el().querySelector('[data-testid="page-of"]')?.textContent?.trim()).toBe('Page 4 of 4');
  });

  it('goes back to page 1 when a filter leaves fewer findings than the page', async () => {
    await harness.navigateByUrl('/reports/findings?cwe=89&page=3');
    await vi.waitFor(() => {
      expect(url().searchParams.get('page')).toBeNull();
      expect(total()).toMatch(/^8 findings · showing 1–8/);
    }, WAIT);
    expect(el().querySelector('[data-testid="page-of"]')).toBeNull();
  });
});
