import { TestBed, type ComponentFixture } from '@angular/core/testing';
import { provideRouter } from '@angular/router';
import { beforeEach, describe, expect, it } from 'vitest';
import { ToolCard } from './tool-card';
import type { ToolCallView } from './turn-state';

describe('ToolCard', () => {
  let fixture: ComponentFixture<ToolCard>;
  const el = (): HTMLElement => fixture.nativeElement as HTMLElement;
  const show = async (call: ToolCallView): Promise<void> => {
    fixture.componentRef.setInput('call', call);
    await fixture.whenStable();
  };

  beforeEach(() => {
    TestBed.configureTestingModule({ providers: [provideRouter([])] });
    fixture = TestBed.createComponent(ToolCard);
  });

  const searchCall: ToolCallView = {
    callId: 'k1',
    name: 'search_findings',
    args: { text: 'SQL injection', severity: 'critical' },
    state: 'ok',
    summary: "search_findings: 3 findings (showing 3) for text='SQL injection', severity=critical",
    data: { total: 184, returned: 10, filter: { text: 'SQL injection', severity: 'critical' } },
  };

  it('shows "N of TOTAL" and links to the Findings view with the same filter', async () => {
    await show(searchCall);
    expect(el().querySelector('[data-testid="tool-count"]')?.textContent?.trim()).toBe('10 of 184');
    const link = el().querySelector<HTMLAnchorElement>('a.open')!;
    expect(link.textContent).toContain('Open in Findings');
    const url = new URL(link.href);
    expect(url.pathname).toBe('/reports/findings');
    expect(Object.fromEntries(url.searchParams)).toEqual({ text: 'SQL injection', severity: 'critical' });
    expect(el().textContent).toContain(searchCall.summary);
  });

  it('shows a spinner while running, then a check; a cross when the call failed', async () => {
    await show({ ...searchCall, state: 'running', summary: null, data: undefined });
    expect(el().querySelector('.spinner')).not.toBeNull();
    expect(el().querySelector('[data-testid="tool-count"]')).toBeNull();
    expect(el().querySelector('a.open')).toBeNull();
    expect(el().textContent).toContain('(running)');

    await show(searchCall);
    expect(el().querySelector('.spinner')).toBeNull();
    expect(el().querySelector('.state-ok')).not.toBeNull();

    await show({ ...searchCall, state: 'failed', summary: 'severity must be one of critical, high…' });
    expect(el().querySelector('.state-failed')).not.toBeNull();
    expect(el().textContent).toContain('(failed)');
  });

  it('names a tool the model invented as unknown, failed, with what it asked and no link', async () => {
    await show({
      callId: 'k9',
      name: 'delete_all_reports',
      args: { confirm: true },
      state: 'failed',
      summary:
        "no such tool: the model asked for 'delete_all_reports', which is not one of the corpus tools; nothing was run",
    });
    expect(el().querySelector('.name')?.textContent?.trim()).toBe('Unknown tool “delete_all_reports”');
    expect(el().querySelector('.state-failed')).not.toBeNull();
    expect(el().querySelector('a.open')).toBeNull();
    el().querySelector<HTMLButtonElement>('button.toggle')!.click();
    await fixture.whenStable();
    expect(el().querySelector('pre')?.textContent).toContain('"confirm": true');
    expect(el().textContent).toContain('nothing was run');
  });

  it('expands to show the arguments, announcing the state with aria-expanded', async () => {
    await show(searchCall);
    const toggle = el().querySelector<HTMLButtonElement>('button.toggle')!;
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    expect(el().querySelector('pre')).toBeNull();
    toggle.click();
    await fixture.whenStable();
    expect(toggle.getAttribute('aria-expanded')).toBe('true');
    expect(JSON.parse(el().querySelector('pre')!.textContent!)).toEqual(searchCall.args);
    expect(el().querySelector(`#${toggle.getAttribute('aria-controls')}`)).not.toBeNull();
  });

  it('builds the Findings link from the arguments when the result carried no filter', async () => {
    await show({
      ...searchCall,
      data: { total: 9, returned: 9 },
      args: { text: 'jQuery', cwe: 79, limit: 5 },
    });
    expect(
      Object.fromEntries(new URL(el().querySelector<HTMLAnchorElement>('a.open')!.href).searchParams),
    ).toEqual({ text: 'jQuery', cwe: '79' });
  });

  const paramsOf = (a: Element): Record<string, string> =>
    Object.fromEntries(new URL((a as HTMLAnchorElement).href).searchParams);
  const expand = async (): Promise<void> => {
    el().querySelector<HTMLButtonElement>('button.toggle')!.click();
    await fixture.whenStable();
  };

  it("links a count and each of its groups to the Findings view: the count's filter plus the group", async () => {
    const groupsBy = async (
      groupBy: 'severity' | 'report' | 'cwe' | 'verdict',
      groups: { key: string; label: string; count: number }[],
    ) => {
      await show({
        callId: `c-${groupBy}`,
        name: 'count_findings_by',
        args: { groupBy, filter: { text: 'SQL injection' } },
        state: 'ok',
        summary: 'count_findings_by: …',
        data: { total: 184, groupBy, filter: { text: 'SQL injection', reportName: 'x.sarif' }, groups },
      });
      if (!el().querySelector('.details')) await expand();
      return Array.from(el().querySelectorAll('[data-testid="tool-group"]'));
    };

    let rows = await groupsBy('severity', [
      { key: 'medium', label: 'medium', count: 120 },
      { key: 'critical', label: 'critical', count: 3 },
    ]);
    expect(el().querySelector('[data-testid="tool-total"]')?.textContent?.trim()).toBe('184 findings');
    expect(paramsOf(el().querySelector('a.open')!)).toEqual({ text: 'SQL injection', reportName: 'x.sarif' });
    expect(
      rows.map((r) => [r.firstElementChild!.textContent!.trim(), r.querySelector('.num')!.textContent]),
    ).toEqual([
      ['medium', '120'],
      ['critical', '3'],
    ]);
    expect(paramsOf(rows[1]!.querySelector('a')!)).toEqual({
      text: 'SQL injection',
      reportName: 'x.sarif',
      severity: 'critical',
    });

    rows = await groupsBy('report', [{ key: '7', label: 'juice-shop.json', count: 40 }]);
    expect(paramsOf(rows[0]!.querySelector('a')!)).toEqual({ text: 'SQL injection', reportId: '7' });

    rows = await groupsBy('cwe', [
      { key: '89', label: 'CWE-89', count: 8 },
      { key: 'none', label: 'no CWE', count: 5 },
    ]);
    expect(paramsOf(rows[0]!.querySelector('a')!)).toMatchObject({ cwe: '89' });
    // Findings without a CWE cannot be selected by a filter: the group is text, not a link.
    expect(rows[1]!.querySelector('a')).toBeNull();

    rows = await groupsBy('verdict', [{ key: 'still_open', label: 'still open', count: 2 }]);
    expect(paramsOf(rows[0]!.querySelector('a')!)).toMatchObject({ verdict: 'still_open' });
  });

  it("shows a breakdown as a bar chart beside a table of the tool result's numbers, without expanding", async () => {
    await show({
      callId: 'c-chart',
      name: 'count_findings_by',
      args: { groupBy: 'severity' },
      state: 'ok',
      // The prose summary says other numbers: the chart and table come from the result's data only.
      summary: 'count_findings_by: 999 findings',
      data: {
        total: 123,
        groupBy: 'severity',
        groups: [
          { key: 'medium', label: 'medium', count: 120 },
          { key: 'critical', label: 'critical', count: 3 },
        ],
      },
    });
    const figure = el().querySelector('[data-testid="count-chart"]')!;
    expect(figure).not.toBeNull();
    expect(el().querySelector('.details')).toBeNull();
    const table = figure.querySelector('table')!;
    expect(table.querySelector('caption')?.textContent?.trim()).toBe('Findings by severity');
    expect(
      Array.from(table.querySelectorAll('tbody tr'), (tr) =>
        Array.from(tr.children, (c) => c.textContent!.trim()),
      ),
    ).toEqual([
      ['medium', '120'],
      ['critical', '3'],
    ]);
    const canvas = figure.querySelector('canvas')!;
    expect(canvas.getAttribute('role')).toBe('img');
    expect(canvas.getAttribute('aria-label')).toBe(
      'Bar chart of findings by severity: medium 120, critical 3.',
    );

    // A search result has no breakdown: no chart.
    await show(searchCall);
    expect(el().querySelector('[data-testid="count-chart"]')).toBeNull();
  });

  it("links the corpus overview's severities, and a finding detail to the finding page", async () => {
    await show({
      callId: 'o1',
      name: 'get_corpus_overview',
      args: {},
      state: 'ok',
      summary: 'get_corpus_overview: …',
      data: { total: 10, groupBy: 'severity', groups: [{ key: 'high', label: 'high', count: 10 }] },
    });
    await expand();
    expect(paramsOf(el().querySelector('[data-testid="tool-group"] a')!)).toEqual({ severity: 'high' });

    await show({
      callId: 'd1',
      name: 'finding_detail',
      args: { id: 42 },
      state: 'ok',
      summary: "finding_detail: finding #42 'x' (high)",
      data: {
        findingId: 42,
        verdict: null,
        rows: [{ id: 42, title: 'x', severity: 'high', reportFilename: null }],
      },
    });
    const link = el().querySelector<HTMLAnchorElement>('[data-testid="open-finding"]')!;
    expect(new URL(link.href).pathname).toBe('/reports/findings/42');
    expect(link.textContent).toContain('Open finding #42');

    // An id the corpus does not have: nothing to open.
    await show({
      callId: 'd2',
      name: 'finding_detail',
      args: { id: 9 },
      state: 'ok',
      summary: 'finding_detail: no finding #9',
      data: { findingId: 9 },
    });
    expect(el().querySelector('[data-testid="open-finding"]')).toBeNull();
  });
});
