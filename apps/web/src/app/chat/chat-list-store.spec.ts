import { signal } from '@angular/core';
import { TestBed } from '@angular/core/testing';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { ChatSummaryView } from '@corpus-chat/contracts';
import { ChatApi } from './chat-api';
import { ChatListStore } from './chat-list-store';
import { ChatSocket } from './chat-socket';

const at = '2026-01-01T00:00:00.000Z';
const thread = (id: string, change: Partial<ChatSummaryView> = {}): ChatSummaryView => ({
  id,
  title: '',
  archived: false,
  messageCount: 0,
  lastModel: null,
  activeTurn: null,
  createdAt: at,
  updatedAt: at,
  ...change,
});

describe('ChatListStore: New thread', () => {
  let api: { list: ReturnType<typeof vi.fn>; create: ReturnType<typeof vi.fn> };
  let store: ChatListStore;

  beforeEach(() => {
    api = { list: vi.fn(), create: vi.fn(async () => thread('new')) };
    TestBed.configureTestingModule({
      providers: [
        { provide: ChatApi, useValue: api },
        {
          provide: ChatSocket,
          useValue: { onThreadUpdated: () => () => undefined, state: signal('connected') },
        },
      ],
    });
    store = TestBed.inject(ChatListStore);
  });

  it('opens an unused thread (no message, no title, no turn) instead of creating another', async () => {
    api.list.mockResolvedValue([
      thread('used', { messageCount: 2 }),
      thread('unused'),
      thread('named', { title: 'Kept for later' }),
    ]);
    await store.load();
    expect((await store.openOrCreateEmpty()).id).toBe('unused');
    expect(api.create).not.toHaveBeenCalled();
  });

  it('creates a thread when every listed one is used, named or busy', async () => {
    api.list.mockResolvedValue([
      thread('used', { messageCount: 1 }),
      thread('named', { title: 'Kept for later' }),
      thread('busy', { activeTurn: { turnId: 't', status: 'queued' } as ChatSummaryView['activeTurn'] }),
    ]);
    await store.load();
    expect((await store.openOrCreateEmpty()).id).toBe('new');
    expect(api.create).toHaveBeenCalledTimes(1);
    // The created one is on the list now, so a second click opens it.
    expect((await store.openOrCreateEmpty()).id).toBe('new');
    expect(api.create).toHaveBeenCalledTimes(1);
  });
});
