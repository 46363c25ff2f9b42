import { TestBed, type ComponentFixture } from '@angular/core/testing';
import { provideRouter } from '@angular/router';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type {
  FeedbackEntryView,
  FeedbackPage as FeedbackPageBody,
  FeedbackQueryDto,
} from '@corpus-chat/contracts';
import { OperatorsApi } from '../operators/operators-api';
import { FeedbackApi } from './feedback-api';
import { FeedbackPage } from './feedback-page';

const CHAT = '0b6f4c1e-5d2a-4c3e-9f00-1a2b3c4d5e6f';
const entry = (n: number, rating: FeedbackEntryView['rating']): FeedbackEntryView => ({
  turnId: `t${n}`,
  rating,
  comment: rating === 'down' ? 'Missed the archived report' : null,
  createdAt: '2026-01-01T00:00:00Z',
  updatedAt: '2026-01-01T00:00:00Z',
  chatId: CHAT,
  chatTitle: 'Critical findings',
  operatorId: 'a1',
  operatorName: 'alice',
  question: 'Which report has the most criticals?',
});

describe('FeedbackPage', () => {
  let fixture: ComponentFixture<FeedbackPage>;
  let api: { list: ReturnType<typeof vi.fn> };
  const el = (): HTMLElement => fixture.nativeElement as HTMLElement;
  const rows = () => Array.from(el().querySelectorAll('[data-testid="feedback-entries"] tbody tr'));

  beforeEach(async () => {
    // 51 ratings: the first page holds 50 of them, the second one.
    api = {
      list: vi.fn((q: FeedbackQueryDto): Promise<FeedbackPageBody> =>
        Promise.resolve(
          q.offset
            ? { entries: [entry(51, 'up')], total: 51, limit: 50, offset: 50 }
            : {
                entries: Array.from({ length: 50 }, (_, i) => entry(i + 1, i === 0 ? 'down' : 'up')),
                total: 51,
                limit: 50,
                offset: 0,
              },
        ),
      ),
    };
    TestBed.configureTestingModule({
      providers: [
        provideRouter([]),
        { provide: FeedbackApi, useValue: api },
        {
          provide: OperatorsApi,
          useValue: { list: vi.fn(() => Promise.resolve([{ id: 'a1', username: 'alice' }])) },
        },
      ],
    });
    fixture = TestBed.createComponent(FeedbackPage);
    await vi.waitFor(() => expect(rows()).toHaveLength(50));
  });

  it('lists ratings with who, the comment, the question and a link to the thread, and pages on', async () => {
    const first = rows()[0]!.textContent!.replace(/\s+/g, ' ');
    expect(first).toContain('alice');
    expect(first).toContain('Not helpful');
    expect(first).toContain('Missed the archived report');
    expect(first).toContain('Which report has the most criticals?');
    expect(rows()[0]!.querySelector('a')!.getAttribute('href')).toBe(`/chat/${CHAT}`);
    expect(el().querySelector('#feedback-count')!.textContent!.trim()).toBe('51 ratings');

    Array.from(el().querySelectorAll('button'))
      .find((b) => b.textContent?.includes('Older'))!
      .click();
    await vi.waitFor(() => expect(rows()).toHaveLength(1));
    expect(api.list).toHaveBeenLastCalledWith({ limit: 50, offset: 50 });
  });

  it('filters by rating, operator and a date range that includes its last day', async () => {
    const set = (id: string, value: string) => {
      const input = el().querySelector<HTMLInputElement | HTMLSelectElement>(`#${id}`)!;
      input.value = value;
      input.dispatchEvent(new Event(input.tagName === 'SELECT' ? 'change' : 'input'));
    };
    await vi.waitFor(() => expect(el().querySelectorAll('#f-operator option')).toHaveLength(2));
    set('f-rating', 'down');
    set('f-operator', 'a1');
    set('f-from', '2026-01-01');
    set('f-to', '2026-01-31');
    el().querySelector('form')!.dispatchEvent(new Event('submit'));
    await vi.waitFor(() => expect(api.list).toHaveBeenCalledTimes(2));
    expect(api.list).toHaveBeenLastCalledWith({
      rating: 'down',
      operatorId: 'a1',
      from: new Date(2026, 0, 1).toISOString(),
      to: new Date(2026, 1, 1).toISOString(),
      limit: 50,
    });
  });
});
