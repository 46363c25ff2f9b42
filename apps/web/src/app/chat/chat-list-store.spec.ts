import { signal } from '@angular/core';
import { TestBed } from '@angular/core/testing';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { ChatEvent, ChatSummaryView, ThreadUpdated, TurnActivity } from '@corpus-chat/contracts';
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
  unread: false,
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
          useValue: {
            onThreadUpdated: () => () => undefined,
            onActivity: () => () => undefined,
            state: signal('connected'),
          },
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

describe('ChatListStore: unread threads from the socket', () => {
  let api: { list: ReturnType<typeof vi.fn>; markSeen: ReturnType<typeof vi.fn> };
  let store: ChatListStore;
  const socket = {
    updated: (_u: ThreadUpdated) => undefined as void,
    activity: (_a: TurnActivity) => undefined as void,
    state: signal('connected'),
    onThreadUpdated(h: (u: ThreadUpdated) => void) {
      this.updated = h;
      return () => undefined;
    },
    onActivity(h: (a: TurnActivity) => void) {
      this.activity = h;
      return () => undefined;
    },
  };

  beforeEach(async () => {
    api = { list: vi.fn(async () => [thread('a'), thread('b')]), markSeen: vi.fn(async () => undefined) };
    TestBed.configureTestingModule({
      providers: [
        { provide: ChatApi, useValue: api },
        { provide: ChatSocket, useValue: socket },
      ],
    });
    store = TestBed.inject(ChatListStore);
    await store.load();
  });

  it('marks a thread unread when its answer lands, counts it, and drops a deleted one', () => {
    expect(store.unreadCount()).toBe(0);
    const done = { type: 'turn.done', chatId: 'a', turnId: 't1' } as ChatEvent;
    socket.activity({ event: done, thread: thread('a', { unread: true, messageCount: 2 }) });
    socket.updated({ chatId: 'b', thread: thread('b', { unread: true }) });
    expect(
      store
        .threads()
        .filter((t) => t.unread)
        .map((t) => t.id)
        .sort(),
    ).toEqual(['a', 'b']);
    expect(store.unreadCount()).toBe(2);
    socket.updated({ chatId: 'b', thread: null });
    expect(store.threads().map((t) => t.id)).toEqual(['a']);
    expect(store.unreadCount()).toBe(1);
    expect(api.list).toHaveBeenCalledTimes(1); // no re-read of the list
  });

  it('marks the thread on screen seen when it is opened and when an answer lands in it', async () => {
    store.setViewing('a');
    TestBed.tick();
    expect(api.markSeen).toHaveBeenCalledTimes(1);
    expect(api.markSeen).toHaveBeenLastCalledWith('a');
    await Promise.resolve();
    // An answer lands in the open thread: seen again, and not counted meanwhile.
    socket.updated({ chatId: 'a', thread: thread('a', { unread: true }) });
    expect(store.unreadCount()).toBe(0);
    TestBed.tick();
    expect(api.markSeen).toHaveBeenCalledTimes(2);
    // One that lands elsewhere is not marked.
    socket.updated({ chatId: 'b', thread: thread('b', { unread: true }) });
    TestBed.tick();
    expect(api.markSeen).toHaveBeenCalledTimes(2);
    expect(store.unreadCount()).toBe(1);
  });
});
