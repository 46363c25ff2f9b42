import { TestBed, type ComponentFixture } from '@angular/core/testing';
import { provideRouter, withComponentInputBinding } from '@angular/router';
import { RouterTestingHarness } from '@angular/router/testing';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { HttpErrorResponse } from '@angular/common/http';
import type { FindingDetail, FindingHistory } from '@corpus-chat/contracts';
import { FindingDetailPage } from './finding-detail-page';
import { ReportsApi } from './reports-api';

const finding: FindingDetail = {
  id: 7,
  reportId: 1,
  reportFilename: 'codeql.sarif',
  createdAt: '2026-01-01T00:00:00Z',
  versionCount: 1,
  status: 'open',
  current: {
    version: 1,
    origin: 'import',
    // A right-to-left override, as a hostile report can carry in a title.
    title: 'Code injection\u202E in sj.eval',
    severity: 'high',
    description:
      'Calling `eval` on user input.\n\n```http\nGET /api?q=1 HTTP/1.1\n```\n\nSee <script>alert(1)</script> and [this](javascript:alert(2)).',
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
  notes: [
    { stage: 'general', body: 'Seen in `main.py`', author: 'alice', createdAt: '2026-01-01T00:00:00Z' },
  ],
  latestVerdict: null,
};

const history: FindingHistory = {
  id: 7,
  status: 'open',
  versions: [finding.current],
  statusChanges: [],
  retests: [],
};

/** Bound for the mocked API's answers to reach the page. */
const WAIT = { timeout: 2000 };

/** The finding and its history (loaded together) are on the page. */
async function loaded(fixture: ComponentFixture<FindingDetailPage>): Promise<void> {
  await vi.waitFor(
    () =>
      expect(
        (fixture.nativeElement as HTMLElement).querySelector('[data-testid="finding-title"]'),
      ).not.toBeNull(),
    WAIT,
  );
}

function makeApi() {
  return {
    findingDetail: vi.fn(() => Promise.resolve(finding)),
    findingHistory: vi.fn(() => Promise.resolve(history)),
    setStatus: vi.fn((_id: number, change: { status: FindingDetail['status'] }) =>
      Promise.resolve({ ...finding, status: change.status }),
    ),
    editFinding: vi.fn(() => Promise.resolve(finding)),
    addNote: vi.fn(() => Promise.resolve(finding)),
    recordRetest: vi.fn(() => Promise.resolve(finding)),
  };
}

describe('FindingDetailPage', () => {
  let fixture: ComponentFixture<FindingDetailPage>;
  let api: ReturnType<typeof makeApi>;
  const el = (): HTMLElement => fixture.nativeElement as HTMLElement;

  beforeEach(async () => {
    api = makeApi();
    TestBed.configureTestingModule({
      providers: [provideRouter([]), { provide: ReportsApi, useValue: api }],
    });
    fixture = TestBed.createComponent(FindingDetailPage);
    fixture.componentRef.setInput('findingId', '7');
    await loaded(fixture);
  });

  it('renders the Markdown of description, impact, steps and notes instead of raw backticks', () => {
    const description = el().querySelector('[data-testid="finding-description"]')!;
    expect(description.querySelector('code')?.textContent).toBe('eval');
    expect(description.textContent).not.toContain('`eval`');
    expect(description.querySelector('pre code')?.textContent).toContain('GET /api?q=1 HTTP/1.1');
    expect(el().querySelector('strong')?.textContent).toBe('any');
    expect(Array.from(el().querySelectorAll('code')).map((c) => c.textContent)).toEqual(
      expect.arrayContaining(['/admin', 'main.py']),
    );
  });

  it('shows the title without bidi control characters', () => {
    expect(el().querySelector('[data-testid="finding-title"]')?.textContent).toBe(
      'Code injection in sj.eval',
    );
  });

  it('keeps HTML and javascript: links in a finding inert', () => {
    const description = el().querySelector('[data-testid="finding-description"]')!;
    expect(el().querySelector('script')).toBeNull();
    expect(description.textContent).toContain('<script>alert(1)</script>');
    expect(el().querySelector('a[href^="javascript"]')).toBeNull();
  });
});

describe('FindingDetailPage status carried over from a previous scan', () => {
  it('links the finding of the previous scan the import carried the status from', async () => {
    const api = makeApi();
    api.findingHistory.mockImplementation(() =>
      Promise.resolve({
        ...history,
        status: 'false_positive' as const,
        statusChanges: [
          {
            from: 'open' as const,
            to: 'false_positive' as const,
            reason: 'carried over from finding #3 of report old.json',
            actorName: 'import',
            actorId: null,
            carriedFromFindingId: 3,
            createdAt: '2026-01-02T00:00:00Z',
          },
        ],
      }),
    );
    TestBed.configureTestingModule({
      providers: [provideRouter([]), { provide: ReportsApi, useValue: api }],
    });
    const fixture = TestBed.createComponent(FindingDetailPage);
    fixture.componentRef.setInput('findingId', '7');
    await loaded(fixture);
    const changes = (fixture.nativeElement as HTMLElement).querySelector('[data-testid="status-changes"]')!;
    expect(changes.textContent).toContain('by import');
    expect(changes.textContent).toContain('carried over from finding #3 of report old.json');
    const link = changes.querySelector<HTMLAnchorElement>('[data-testid="status-carried-from"]')!;
    expect(link.textContent?.trim()).toBe('Status of finding #3 in the previous scan');
    expect(link.getAttribute('href')).toBe('/reports/findings/3');
  });
});

describe('FindingDetailPage history', () => {
  it('lists each version newest first with the fields an edit changed, before and after', async () => {
    const api = makeApi();
    const edited = {
      ...finding.current,
      version: 2,
      origin: 'edit' as const,
      severity: 'critical' as const,
      editedBy: 'alice',
      reason: 'exploited in staging',
    };
    api.findingHistory.mockImplementation(() =>
      Promise.resolve({ ...history, versions: [finding.current, edited] }),
    );
    TestBed.configureTestingModule({
      providers: [provideRouter([]), { provide: ReportsApi, useValue: api }],
    });
    const fixture = TestBed.createComponent(FindingDetailPage);
    fixture.componentRef.setInput('findingId', '7');
    await loaded(fixture);
    const entries = Array.from(
      (fixture.nativeElement as HTMLElement).querySelectorAll('[data-testid="version-entry"]'),
    );
    expect(entries.map((e) => e.querySelector('strong')?.textContent?.trim())).toEqual([
      'Version 2',
      'Version 1',
    ]);
    expect(entries[0].textContent).toContain('by alice');
    expect(entries[0].textContent).toContain('exploited in staging');
    const rows = Array.from(entries[0].querySelectorAll('[data-testid="version-change"]')).map((r) =>
      Array.from(r.querySelectorAll('th, td')).map((c) => c.textContent?.trim()),
    );
    expect(rows).toEqual([['Severity', 'high', 'critical']]);
    expect(entries[1].querySelector('[data-testid="version-change"]')).toBeNull();
  });

  it('shows no history for a finding with one version', async () => {
    TestBed.configureTestingModule({
      providers: [provideRouter([]), { provide: ReportsApi, useValue: makeApi() }],
    });
    const fixture = TestBed.createComponent(FindingDetailPage);
    fixture.componentRef.setInput('findingId', '7');
    await loaded(fixture);
    const el = fixture.nativeElement as HTMLElement;
    expect(el.querySelector('[data-testid="version-history"]')).toBeNull();
  });
});

describe('FindingDetailPage triage controls', () => {
  let fixture: ComponentFixture<FindingDetailPage>;
  let api: ReturnType<typeof makeApi>;
  const el = (): HTMLElement => fixture.nativeElement as HTMLElement;
  const select = (id: string, value: string) => {
    const s = el().querySelector<HTMLSelectElement>(`#${id}`)!;
    s.value = value;
    s.dispatchEvent(new Event('change'));
  };
  const type = (id: string, value: string) => {
    const i = el().querySelector<HTMLInputElement | HTMLTextAreaElement>(`#${id}`)!;
    i.value = value;
    i.dispatchEvent(new Event('input'));
  };
  const submit = (testId: string) =>
    el().querySelector<HTMLFormElement>(`[data-testid="${testId}"]`)!.dispatchEvent(new Event('submit'));
  const textOf = (testId: string) => el().querySelector(`[data-testid="${testId}"]`)?.textContent;

  beforeEach(async () => {
    api = makeApi();
    TestBed.configureTestingModule({
      providers: [provideRouter([]), { provide: ReportsApi, useValue: api }],
    });
    fixture = TestBed.createComponent(FindingDetailPage);
    fixture.componentRef.setInput('findingId', '7');
    await loaded(fixture);
  });

  it('shows the status and offers only the transitions the workflow allows', () => {
    expect(el().querySelector('[data-testid="finding-status"]')?.textContent).toBe('open');
    const options = Array.from(el().querySelectorAll<HTMLOptionElement>('#t-status option')).map(
      (o) => o.value,
    );
    expect(options).toEqual(['', 'confirmed', 'false_positive', 'risk_accepted', 'fixed']);
  });

  it('asks for a reason before dismissing a finding, then sends it and shows the new status', async () => {
    select('t-status', 'false_positive');
    submit('status-form');
    await vi.waitFor(
      () => expect(textOf('status-error')).toContain('Say why the finding becomes false positive'),
      WAIT,
    );
    expect(api.setStatus).not.toHaveBeenCalled();

    type('t-reason', 'test fixture only');
    submit('status-form');
    // The new status shows, and the history is asked for again.
    await vi.waitFor(() => {
      expect(textOf('finding-status')).toBe('false positive');
      expect(api.findingHistory).toHaveBeenCalledTimes(2);
    }, WAIT);
    expect(api.setStatus).toHaveBeenCalledWith(7, { status: 'false_positive', reason: 'test fixture only' });
  });

  it("shows the API's refusal of a transition next to the status form", async () => {
    api.setStatus.mockRejectedValueOnce(
      new HttpErrorResponse({
        status: 409,
        error: { statusCode: 409, message: 'finding 7 is already confirmed; nothing was changed' },
      }),
    );
    select('t-status', 'confirmed');
    submit('status-form');
    await vi.waitFor(() => expect(textOf('status-error')).toContain('finding 7 is already confirmed'), WAIT);
    expect(textOf('finding-status')).toBe('open');
  });

  it('sends only the changed fields of an edit, with the reason', async () => {
    el().querySelector<HTMLButtonElement>('[data-testid="edit-start"]')!.click();
    await fixture.whenStable();
    select('e-severity', 'critical');
    type('e-cwe', '94, CWE-95');
    submit('edit-form');
    await vi.waitFor(() => expect(textOf('edit-error')).toContain('Say why'), WAIT);
    expect(api.editFinding).not.toHaveBeenCalled();
    type('e-reason', 'exploit confirmed');
    submit('edit-form');
    // A saved edit closes the form.
    await vi.waitFor(() => expect(el().querySelector('[data-testid="edit-form"]')).toBeNull(), WAIT);
    expect(api.editFinding).toHaveBeenCalledWith(7, {
      severity: 'critical',
      cwe: [94, 95],
      reason: 'exploit confirmed',
    });
  });

  it('adds a stage-tagged note and empties the form', async () => {
    select('n-stage', 'triage');
    type('n-body', '  Owner: payments team ');
    submit('note-form');
    // A saved note empties the form.
    await vi.waitFor(() => expect(el().querySelector<HTMLTextAreaElement>('#n-body')!.value).toBe(''), WAIT);
    expect(api.addNote).toHaveBeenCalledWith(7, { stage: 'triage', body: 'Owner: payments team' });
  });

  it('records a retest with an ISO date and the verdict', async () => {
    type('r-tried', 'Replayed the request');
    type('r-at', '2026-01-02T10:00');
    select('r-verdict', 'fixed');
    type('r-rationale', 'header now set');
    submit('retest-form');
    await vi.waitFor(
      () =>
        expect(api.recordRetest).toHaveBeenCalledWith(7, {
          tried: 'Replayed the request',
          retestedAt: new Date('2026-01-02T10:00').toISOString(),
          verdict: 'fixed',
          rationale: 'header now set',
        }),
      WAIT,
    );
  });
});

describe('FindingDetailPage breadcrumb', () => {
  it('goes back to the Findings view with the filter and page it was opened from, nothing else', async () => {
    TestBed.resetTestingModule();
    TestBed.configureTestingModule({
      providers: [
        provideRouter(
          [{ path: 'reports/findings/:findingId', component: FindingDetailPage }],
          withComponentInputBinding(),
        ),
        { provide: ReportsApi, useValue: makeApi() },
      ],
    });
    const harness = await RouterTestingHarness.create();
    await harness.navigateByUrl('/reports/findings/7?text=SQL%20injection&severity=critical&page=3&junk=1');
    const crumb = harness.routeNativeElement!.querySelector<HTMLAnchorElement>(
      '[data-testid="crumb-findings"]',
    )!;
    const url = new URL(crumb.href);
    expect(url.pathname).toBe('/reports/findings');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      text: 'SQL injection',
      severity: 'critical',
      page: '3',
    });
  });
});
