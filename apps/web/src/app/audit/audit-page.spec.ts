import { TestBed, type ComponentFixture } from '@angular/core/testing';
import { provideRouter } from '@angular/router';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { AuditEventView, AuditPage as AuditPageBody } from '@corpus-chat/contracts';
import { OperatorsApi } from '../operators/operators-api';
import { AuditApi } from './audit-api';
import { AuditPage } from './audit-page';

const event = (id: number, action: AuditEventView['action']): AuditEventView => ({
  id,
  action,
  actorId: 'a1',
  actorName: 'alice',
  subjectType: 'finding',
  subjectId: '7',
  before: { status: 'open' },
  after: { status: 'false_positive', reason: 'fixture' },
  createdAt: '2026-01-01T00:00:00Z',
});

describe('AuditPage', () => {
  let fixture: ComponentFixture<AuditPage>;
  let api: { list: ReturnType<typeof vi.fn> };
  const el = (): HTMLElement => fixture.nativeElement as HTMLElement;
  /** Bound for the mocked API's answers to reach the page. */
  const WAIT = { timeout: 2000 };
  const table = () =>
    el().querySelector('[data-testid="audit-events"] tbody')?.textContent?.replace(/\s+/g, ' ');

  beforeEach(async () => {
    api = {
      list: vi.fn((q: { cursor?: string }): Promise<AuditPageBody> =>
        Promise.resolve(
          q.cursor
            ? { events: [event(1, 'report.import')], nextCursor: null }
            : { events: [event(3, 'finding.status')], nextCursor: '1767225600000000_3' },
        ),
      ),
    };
    TestBed.configureTestingModule({
      providers: [
        provideRouter([]),
        { provide: AuditApi, useValue: api },
        {
          provide: OperatorsApi,
          useValue: { list: vi.fn(() => Promise.resolve([{ id: 'a1', username: 'alice' }])) },
        },
      ],
    });
    fixture = TestBed.createComponent(AuditPage);
    // Loaded: the newest events and the operators the filter offers.
    await vi.waitFor(() => {
      expect(table()).toContain('finding.status');
      expect(el().querySelector('#a-operator option[value="a1"]')).not.toBeNull();
    }, WAIT);
  });

  it('lists events with who, what and the change, and pages on to older ones', async () => {
    expect(table()).toContain('alice');
    expect(table()).toContain('finding.status');
    expect(table()).toContain('status: false_positive, reason: fixture');
    Array.from(el().querySelectorAll('button'))
      .find((b) => b.textContent?.includes('Older'))!
      .click();
    await vi.waitFor(() => expect(table()).toContain('report.import'), WAIT);
    expect(api.list).toHaveBeenLastCalledWith({ cursor: '1767225600000000_3', limit: 50 });
  });

  it('filters by action, operator and days in the browser’s time zone, both days included', async () => {
    const pick = (id: string, value: string) => {
      const s = el().querySelector<HTMLSelectElement>(`#${id}`)!;
      s.value = value;
      s.dispatchEvent(new Event('change'));
    };
    pick('a-action', 'finding.edit');
    pick('a-operator', 'a1');
    for (const [id, day] of [
      ['a-from', '2026-03-01'],
      ['a-to', '2026-03-31'],
    ] as const) {
      const input = el().querySelector<HTMLInputElement>(`#${id}`)!;
      input.value = day;
      input.dispatchEvent(new Event('input'));
    }
    el().querySelector('form')!.dispatchEvent(new Event('submit'));
    await vi.waitFor(
      () =>
        expect(api.list).toHaveBeenLastCalledWith({
          action: 'finding.edit',
          actorId: 'a1',
          from: new Date(2026, 2, 1).toISOString(),
          to: new Date(2026, 3, 1).toISOString(),
          limit: 50,
        }),
      WAIT,
    );
  });
});
