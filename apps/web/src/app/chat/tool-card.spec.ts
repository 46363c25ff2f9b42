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
    await show({ ...searchCall, data: { total: 9, returned: 9 }, args: { text: 'jQuery', cwe: 79, limit: 5 } });
    expect(Object.fromEntries(new URL(el().querySelector<HTMLAnchorElement>('a.open')!.href).searchParams)).toEqual({ text: 'jQuery', cwe: '79' });
  });
});
