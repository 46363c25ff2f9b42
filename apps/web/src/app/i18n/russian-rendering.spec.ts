import { LOCALE_ID, signal } from '@angular/core';
import { TestBed } from '@angular/core/testing';
import { clearTranslations } from '@angular/localize';
import { provideRouter } from '@angular/router';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatSummaryView } from '@corpus-chat/contracts';
import { ChatListStore } from '../chat/chat-list-store';
import { ChatPage } from '../chat/chat-page';
import { loadLanguage } from './language';

// Specs share one module graph and a template's messages are fixed when its component first
// renders, so this renders a component no other spec renders (the thread list of the chat page),
// after loading the Russian translations and locale data the way main.ts does.
describe('The chat page in Russian', () => {
  beforeAll(() => loadLanguage('ru'));
  afterAll(() => {
    clearTranslations();
    $localize.locale = undefined;
  });

  const thread = (id: string, messageCount: number): ChatSummaryView => ({
    id,
    title: `Thread ${id}`,
    archived: false,
    messageCount,
    lastModel: null,
    activeTurn: null,
    unread: false,
    createdAt: '2025-01-02T12:00:00Z',
    updatedAt: `2025-01-02T12:00:0${id}Z`,
  });

  it('shows its labels, plurals (one, few, many), numbers and dates the Russian way', async () => {
    const threads = [thread('1', 1), thread('2', 3), thread('3', 5), thread('4', 21), thread('5', 1204)];
    const list = {
      threads: signal(threads),
      query: signal(''),
      archived: signal(false),
      error: signal(null),
      loaded: signal(true),
      load: () => Promise.resolve(),
      setQuery: () => undefined,
      showArchived: () => undefined,
    };
    TestBed.configureTestingModule({
      providers: [
        provideRouter([]),
        { provide: LOCALE_ID, useValue: 'ru' },
        { provide: ChatListStore, useValue: list },
      ],
    });
    const fixture = TestBed.createComponent(ChatPage);
    await fixture.whenStable();
    const el = fixture.nativeElement as HTMLElement;

    expect(el.querySelector('#threads-heading')?.textContent?.trim()).toBe('Диалоги');
    expect(el.querySelector('[data-testid="new-thread"]')?.textContent?.replace(/\s+/g, ' ').trim()).toBe(
      '+ Новый диалог',
    );
    const counts = Array.from(el.querySelectorAll('[data-testid="thread-item"] .meta')).map((m) =>
      m.textContent!.split('·')[1]!.trim(),
    );
    // 1 204 takes a no-break space as its group separator.
    expect(counts).toEqual([
      '1 сообщение',
      '3 сообщения',
      '5 сообщений',
      '21 сообщение',
      '1\u00a0204 сообщения',
    ]);
    const when = el.querySelector('[data-testid="thread-item"] time')!;
    expect(when.textContent?.trim()).toBe('2 янв. 2025 г.');
  });
});
