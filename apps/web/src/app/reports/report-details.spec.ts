import { TestBed } from '@angular/core/testing';
import { describe, expect, it } from 'vitest';
import type { ReportSummary } from '@corpus-chat/contracts';
import { ReportDetails, reportFacts } from './report-details';

const base: ReportSummary = {
  id: 7,
  filename: 'zap-2024.xml',
  format: 'zap',
  status: 'ready',
  findingCount: 5,
  bySeverity: { critical: 0, high: 2, medium: 3, low: 0, info: 0 },
  archived: false,
  error: null,
  model: null,
  docMetadata: {
    tool: { name: 'OWASP ZAP', version: '2.14.0' },
    scanDate: '2024-03-05T10:00:00Z',
    target: 'https://shop.example',
    suppressed: 2,
    unmappedSeverities: { Urgent: 1, Weird: 0 },
  },
  createdAt: '2026-01-01T00:00:00Z',
};

describe('report details', () => {
  it('reads tool and version, scan date, target, suppressed and unmapped counts from the metadata', () => {
    expect(reportFacts(base)).toEqual({
      tool: 'OWASP ZAP 2.14.0',
      scanDate: '2024-03-05T10:00:00Z',
      target: 'https://shop.example',
      suppressed: 2,
      unmapped: [{ value: 'Urgent', count: 1 }],
    });
  });

  it('leaves out what an importer did not record', () => {
    expect(reportFacts({ ...base, docMetadata: { tool: { name: ' ' }, suppressed: 'x' } })).toEqual({
      tool: null,
      scanDate: null,
      target: null,
      suppressed: null,
      unmapped: [],
    });
  });

  it('renders the facts with the counts by severity', async () => {
    const fixture = TestBed.createComponent(ReportDetails);
    fixture.componentRef.setInput('report', base);
    await fixture.whenStable();
    const el = fixture.nativeElement as HTMLElement;
    expect(el.querySelector('[data-testid="report-tool"]')?.textContent?.trim()).toBe('OWASP ZAP 2.14.0');
    expect(el.querySelector('[data-testid="report-suppressed"]')?.textContent?.trim()).toBe('2');
    expect(el.querySelector('[data-testid="report-unmapped"]')?.textContent?.trim()).toBe('Urgent: 1');
    expect(el.textContent).toContain('https://shop.example');
    expect([...el.querySelectorAll('.sev')].map((s) => s.textContent?.trim())).toEqual([
      'high 2',
      'medium 3',
    ]);
  });
});
