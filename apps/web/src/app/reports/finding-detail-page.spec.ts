import { TestBed, type ComponentFixture } from '@angular/core/testing';
import { provideRouter, withComponentInputBinding } from '@angular/router';
import { RouterTestingHarness } from '@angular/router/testing';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { FindingDetail } from '@corpus-chat/contracts';
import { FindingDetailPage } from './finding-detail-page';
import { ReportsApi } from './reports-api';

const finding: FindingDetail = {
  id: 7,
  reportId: 1,
  reportFilename: 'codeql.sarif',
  createdAt: '2026-01-01T00:00:00Z',
  versionCount: 1,
  current: {
    version: 1,
    origin: 'import',
    // A right-to-left override, as a hostile report can carry in a title.
    title: 'Code injection\u202E in sj.eval',
    severity: 'high',
    description: 'Calling `eval` on user input.\n\n```http\nGET /api?q=1 HTTP/1.1\n```\n\nSee <script>alert(1)</script> and [this](javascript:alert(2)).',
    impact: 'An attacker runs **any** code.',
    attackVector: null,
    affectedEndpoints: [],
    reproductionSteps: ['Open `/admin`'],
    cwe: [94],
    cvss: null,
    mitre: [],
    editedBy: null,
    reason: null,
    createdAt: '2026-01-01T00:00:00Z',
  },
  notes: [{ stage: 'general', body: 'Seen in `main.py`', author: 'alice', createdAt: '2026-01-01T00:00:00Z' }],
  latestVerdict: null,
};

describe('FindingDetailPage', () => {
  let fixture: ComponentFixture<FindingDetailPage>;
  const el = (): HTMLElement => fixture.nativeElement as HTMLElement;

  beforeEach(async () => {
    TestBed.configureTestingModule({
      providers: [provideRouter([]), { provide: ReportsApi, useValue: { findingDetail: vi.fn(() => Promise.resolve(finding)) } }],
    });
    fixture = TestBed.createComponent(FindingDetailPage);
    fixture.componentRef.setInput('findingId', '7');
    for (let i = 0; i < 3; i++) {
      await new Promise((r) => setTimeout(r, 0));
      await fixture.whenStable();
    }
  });

  it('renders the Markdown of description, impact, steps and notes instead of raw backticks', () => {
    const description = el().querySelector('[data-testid="finding-description"]')!;
    expect(description.querySelector('code')?.textContent).toBe('eval');
    expect(description.textContent).not.toContain('`eval`');
    expect(description.querySelector('pre code')?.textContent).toContain('GET /api?q=1 HTTP/1.1');
    expect(el().querySelector('strong')?.textContent).toBe('any');
    expect(Array.from(el().querySelectorAll('code')).map((c) => c.textContent)).toEqual(expect.arrayContaining(['/admin', 'main.py']));
  });

  it('shows the title without bidi control characters', () => {
    expect(el().querySelector('[data-testid="finding-title"]')?.textContent).toBe('Code injection in sj.eval');
  });

  it('keeps HTML and javascript: links in a finding inert', () => {
    const description = el().querySelector('[data-testid="finding-description"]')!;
    expect(el().querySelector('script')).toBeNull();
    expect(description.textContent).toContain('<script>alert(1)</script>');
    expect(el().querySelector('a[href^="javascript"]')).toBeNull();
  });
});

describe('FindingDetailPage breadcrumb', () => {
  it('goes back to the Findings view with the filter and page it was opened from, nothing else', async () => {
    TestBed.resetTestingModule();
    TestBed.configureTestingModule({
      providers: [
        provideRouter([{ path: 'reports/findings/:findingId', component: FindingDetailPage }], withComponentInputBinding()),
        { provide: ReportsApi, useValue: { findingDetail: vi.fn(() => Promise.resolve(finding)) } },
      ],
    });
    const harness = await RouterTestingHarness.create();
    await harness.navigateByUrl('/reports/findings/7?text=SQL%20injection&severity=critical&page=3&junk=1');
    const crumb = harness.routeNativeElement!.querySelector<HTMLAnchorElement>('[data-testid="crumb-findings"]')!;
    const url = new URL(crumb.href);
    expect(url.pathname).toBe('/reports/findings');
    expect(Object.fromEntries(url.searchParams)).toEqual({ text: 'SQL injection', severity: 'critical', page: '3' });
  });
});
