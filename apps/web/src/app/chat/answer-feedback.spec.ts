import { HttpErrorResponse } from '@angular/common/http';
import { ChangeDetectionStrategy, Component, computed, inject, signal } from '@angular/core';
import { TestBed, type ComponentFixture } from '@angular/core/testing';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type {
  ChatDetailView,
  ChatEvent,
  ChatMessageView,
  TurnFeedbackDto,
  TurnFeedbackView,
} from '@corpus-chat/contracts';
import { AnswerFeedback } from './answer-feedback';
import { ChatApi } from './chat-api';
import { ChatListStore } from './chat-list-store';
import { ChatSocket } from './chat-socket';
import { ThreadStore } from './thread-store';

const CHAT = '0b6f4c1e-5d2a-4c3e-9f00-1a2b3c4d5e6f';
const at = '2026-01-01T00:00:00.000Z';
const messages = (feedback?: TurnFeedbackView): ChatMessageView[] => [
  {
    id: 'u1',
    turnId: 't1',
    role: 'user',
    content: 'How many?',
    status: 'complete',
    metadata: {},
    createdAt: at,
  },
  {
    id: 'a1',
    turnId: 't1',
    role: 'assistant',
    content: 'Three.',
    status: 'complete',
    metadata: { toolCalls: [] },
    createdAt: at,
    ...(feedback ? { feedback } : {}),
  },
];
const detail = (msgs: ChatMessageView[]): ChatDetailView => ({
  id: CHAT,
  title: 't',
  archived: false,
  messageCount: msgs.length,
  lastModel: null,
  activeTurn: null,
  unread: false,
  createdAt: at,
  updatedAt: at,
  messages: msgs,
});

/** The answer's feedback as the thread view binds it: from the store's stored message. */
@Component({
  imports: [AnswerFeedback],
  template: `<cc-answer-feedback turnId="t1" [feedback]="feedback()" />`,
  changeDetection: ChangeDetectionStrategy.OnPush,
})
class Host {
  private readonly store = inject(ThreadStore);
  readonly feedback = computed(
    () => this.store.chat()?.messages.find((m) => m.role === 'assistant')?.feedback ?? null,
  );
}

describe('AnswerFeedback', () => {
  let fixture: ComponentFixture<Host>;
  let api: { get: ReturnType<typeof vi.fn>; putFeedback: ReturnType<typeof vi.fn> };
  const el = (): HTMLElement => fixture.nativeElement as HTMLElement;
  const button = (id: string) => el().querySelector<HTMLButtonElement>(`[data-testid="${id}"]`)!;
  const pressed = () => ({
    up: button('feedback-up').getAttribute('aria-pressed'),
    down: button('feedback-down').getAttribute('aria-pressed'),
  });
  /** What the API stores: the body it was sent, as the view it answers. */
  const stored = (body: TurnFeedbackDto): TurnFeedbackView => ({
    turnId: 't1',
    rating: body.rating,
    comment: body.comment ?? null,
    createdAt: at,
    updatedAt: at,
  });

  async function render(initial?: TurnFeedbackView): Promise<void> {
    api.get.mockResolvedValue(detail(messages(initial)));
    await TestBed.inject(ThreadStore).open(CHAT);
    fixture = TestBed.createComponent(Host);
    await fixture.whenStable();
  }

  beforeEach(() => {
    api = {
      get: vi.fn(),
      putFeedback: vi.fn((_c: string, _t: string, body: TurnFeedbackDto) => Promise.resolve(stored(body))),
    };
    TestBed.configureTestingModule({
      providers: [
        ThreadStore,
        { provide: ChatApi, useValue: api },
        {
          provide: ChatSocket,
          useValue: {
            state: signal('connected'),
            onEvent: (_: (e: ChatEvent) => void) => () => undefined,
            watch: () => () => undefined,
          },
        },
        { provide: ChatListStore, useValue: { upsert: vi.fn(), scheduleRefresh: vi.fn() } },
      ],
    });
  });

  it('saves a thumb at once and shows it pressed; the other thumb changes it', async () => {
    await render();
    expect(pressed()).toEqual({ up: 'false', down: 'false' });
    expect(button('feedback-comment-toggle')).toBeNull();

    button('feedback-down').click();
    await vi.waitFor(() => expect(pressed()).toEqual({ up: 'false', down: 'true' }));
    expect(api.putFeedback).toHaveBeenLastCalledWith(CHAT, 't1', { rating: 'down', comment: null });
    expect(el().querySelector('[role="status"]')!.textContent!.trim()).toBe('Thanks, saved.');

    button('feedback-up').click();
    await vi.waitFor(() => expect(pressed()).toEqual({ up: 'true', down: 'false' }));
    expect(api.putFeedback).toHaveBeenLastCalledWith(CHAT, 't1', { rating: 'up', comment: null });
  });

  it('shows the stored rating after a reload and saves a comment with it, keeping it when the thumb changes', async () => {
    await render({ turnId: 't1', rating: 'up', comment: null, createdAt: at, updatedAt: at });
    expect(pressed()).toEqual({ up: 'true', down: 'false' });

    button('feedback-comment-toggle').click();
    await fixture.whenStable();
    expect(button('feedback-comment-toggle').getAttribute('aria-expanded')).toBe('true');
    const box = el().querySelector<HTMLTextAreaElement>('[data-testid="feedback-comment"]')!;
    expect(box.getAttribute('maxlength')).toBe('2000');
    box.value = '  Missed the archived report.  ';
    box.dispatchEvent(new Event('input'));
    await fixture.whenStable();
    expect(el().textContent).toContain(`${2000 - box.value.length} characters left`);
    el().querySelector('form')!.dispatchEvent(new Event('submit'));
    await vi.waitFor(() => expect(el().querySelector('[data-testid="feedback-comment"]')).toBeNull());
    expect(api.putFeedback).toHaveBeenLastCalledWith(CHAT, 't1', {
      rating: 'up',
      comment: 'Missed the archived report.',
    });
    expect(button('feedback-comment-toggle').textContent!.trim()).toBe('Edit comment');

    button('feedback-down').click();
    await vi.waitFor(() => expect(pressed()).toEqual({ up: 'false', down: 'true' }));
    expect(api.putFeedback).toHaveBeenLastCalledWith(CHAT, 't1', {
      rating: 'down',
      comment: 'Missed the archived report.',
    });
  });

  it('says why a rating was not saved and leaves the stored one pressed', async () => {
    await render({ turnId: 't1', rating: 'up', comment: null, createdAt: at, updatedAt: at });
    api.putFeedback.mockRejectedValueOnce(
      new HttpErrorResponse({
        status: 409,
        error: {
          statusCode: 409,
          message: 'This turn has no answer yet: rate it once the answer is finished.',
        },
      }),
    );
    button('feedback-down').click();
    await vi.waitFor(() => expect(el().querySelector('[data-testid="feedback-error"]')).not.toBeNull());
    expect(el().querySelector('[data-testid="feedback-error"]')!.textContent).toContain(
      'This turn has no answer yet',
    );
    expect(pressed()).toEqual({ up: 'true', down: 'false' });
  });
});
