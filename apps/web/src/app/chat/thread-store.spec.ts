import { HttpErrorResponse } from '@angular/common/http';
import { signal } from '@angular/core';
import { TestBed } from '@angular/core/testing';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type {
  ChatDetailView,
  ChatEvent,
  ChatEventBody,
  ChatMessageView,
  JoinChatAck,
  PostMessageResponse,
} from '@corpus-chat/contracts';
import { ChatApi } from './chat-api';
import { ChatListStore } from './chat-list-store';
import { ChatSocket } from './chat-socket';
import { THREAD_MISSING, ThreadStore, withoutRetriedTurns } from './thread-store';
import { turnText } from './turn-state';

const CHAT = '0b6f4c1e-5d2a-4c3e-9f00-1a2b3c4d5e6f';
const at = '2026-01-01T00:00:00.000Z';
const userMsg = (turnId: string, content: string): ChatMessageView => ({
  id: `u-${turnId}`,
  turnId,
  role: 'user',
  content,
  status: 'complete',
  metadata: {},
  createdAt: at,
});
const assistantMsg = (
  turnId: string,
  content: string,
  status: ChatMessageView['status'] = 'complete',
): ChatMessageView => ({
  id: `a-${turnId}`,
  turnId,
  role: 'assistant',
  content,
  status,
  metadata: { toolCalls: [] },
  createdAt: at,
});
const detail = (
  messages: ChatMessageView[],
  activeTurn: ChatDetailView['activeTurn'] = null,
): ChatDetailView => ({
  id: CHAT,
  title: 'SQL injection',
  archived: false,
  messageCount: messages.length,
  lastModel: 'builtin',
  activeTurn,
  unread: false,
  createdAt: at,
  updatedAt: at,
  messages,
});
/** Event `n` of a turn's chain: seq `n-0`, prev `(n-1)-0`. */
const ev = (turnId: string, n: number, body: ChatEventBody): ChatEvent =>
  ({ chatId: CHAT, turnId, seq: `${n}-0`, prev: `${n - 1}-0`, at, ...body }) as ChatEvent;
/** Bound for the mocked API's answers to reach the store. */
const WAIT = { timeout: 2000 };

/** Stands in for the Socket.IO connection: records watches, lets the test push events. */
class FakeSocket {
  readonly state = signal('connected').asReadonly();
  handlers = new Set<(e: ChatEvent) => void>();
  watches: { chatId: string; afterSeq: () => string; onJoined: (ack: JoinChatAck) => void }[] = [];
  rejoin = vi.fn();
  onEvent(h: (e: ChatEvent) => void) {
    this.handlers.add(h);
    return () => this.handlers.delete(h);
  }
  watch(chatId: string, afterSeq: () => string, onJoined: (ack: JoinChatAck) => void) {
    this.watches.push({ chatId, afterSeq, onJoined });
    return () => undefined;
  }
  push(...events: ChatEvent[]) {
    for (const e of events) this.handlers.forEach((h) => h(e));
  }
}

describe('ThreadStore', () => {
  let api: {
    get: ReturnType<typeof vi.fn>;
    postMessage: ReturnType<typeof vi.fn>;
    cancelTurn: ReturnType<typeof vi.fn>;
  };
  let socket: FakeSocket;
  let store: ThreadStore;
  let list: { upsert: ReturnType<typeof vi.fn>; scheduleRefresh: ReturnType<typeof vi.fn> };
  /** Each re-read of the thread that reached the store updates its entry in the thread list. */
  const rereadsApplied = (n: number) => vi.waitFor(() => expect(list.upsert).toHaveBeenCalledTimes(n), WAIT);

  beforeEach(() => {
    list = { upsert: vi.fn(), scheduleRefresh: vi.fn() };
    api = { get: vi.fn(), postMessage: vi.fn(), cancelTurn: vi.fn() };
    socket = new FakeSocket();
    TestBed.configureTestingModule({
      providers: [
        ThreadStore,
        { provide: ChatApi, useValue: api },
        { provide: ChatSocket, useValue: socket },
        { provide: ChatListStore, useValue: list },
      ],
    });
    store = TestBed.inject(ThreadStore);
    // Unless a test scripts it, a re-read answers what the store already shows (the server agrees).
    api.get.mockImplementation(async () => {
      const chat = store.chat()!;
      const live = store.live();
      const activeTurn =
        live && !['done', 'error', 'cancelled'].includes(live.phase)
          ? { turnId: live.turnId, status: 'queued' as const }
          : null;
      return { ...chat, messageCount: chat.messages.length, activeTurn };
    });
  });

  it('rebuilds a turn that was running before a reload: joins with no afterSeq, replays, continues live, ends with one bubble', async () => {
    api.get.mockResolvedValueOnce(
      detail([userMsg('t1', 'How many findings relate to SQL injection?')], {
        turnId: 't1',
        status: 'running',
      }),
    );
    await store.open(CHAT);
    expect(socket.watches).toHaveLength(1);
    expect(socket.watches[0].afterSeq()).toBe('0-0');
    expect(store.running()).toBe(true);
    expect(store.canSend()).toBe(false);

    // Replay from the Redis stream, then the live stream overlapping it by one event.
    const replay = [
      ev('t1', 1, { type: 'turn.queued', position: 1 }),
      ev('t1', 2, { type: 'turn.started', workerId: 'w', attempt: 1 }),
      ev('t1', 3, { type: 'text.delta', text: 'There are ' }),
      ev('t1', 4, { type: 'text.delta', text: '184 ' }),
    ];
    socket.push(...replay, replay[3], ev('t1', 5, { type: 'text.delta', text: 'findings.' }));
    const live = store.entries().at(-1)!;
    expect(live.kind).toBe('live');
    expect(live.kind === 'live' && turnText(live.turn)).toBe('There are 184 findings.');
    // After a reconnect the store asks only for what it misses.
    expect(socket.watches[0].afterSeq()).toBe('5-0');

    api.get.mockResolvedValueOnce(
      detail([
        userMsg('t1', 'How many findings relate to SQL injection?'),
        assistantMsg('t1', 'There are 184 findings.'),
      ]),
    );
    socket.push(ev('t1', 6, { type: 'turn.done', messageId: 'a-t1' }));
    await vi.waitFor(() => expect(store.entries().map((e) => e.kind)).toEqual(['user', 'assistant']), WAIT);
    expect(api.get).toHaveBeenCalledTimes(2);
    expect(store.running()).toBe(false);
    expect(store.canSend()).toBe(true);
  });

  it('shows the live answer cut back by text.reset with the check of turn.done, then the stored one with its reasoning', async () => {
    const question = userMsg('t8', 'How many findings relate to SQL injection?');
    api.get.mockResolvedValueOnce(detail([question], { turnId: 't8', status: 'running' }));
    await store.open(CHAT);
    socket.push(
      ev('t8', 1, { type: 'turn.started', workerId: 'w', attempt: 1 }),
      ev('t8', 2, { type: 'text.delta', text: 'The exact total is 84 findings.' }),
      ev('t8', 3, { type: 'text.reset', length: 0, reason: 'reask' }),
      ev('t8', 4, { type: 'text.delta', text: 'The exact total is 84 findings!' }),
    );
    const streaming = store.entries().at(-1)!;
    expect(streaming.kind === 'live' && turnText(streaming.turn)).toBe('The exact total is 84 findings!');

    // The re-read after turn.done is held back: until it answers, the live turn shows the check.
    let answerReread: (chat: ChatDetailView) => void = () => undefined;
    api.get.mockReturnValueOnce(new Promise<ChatDetailView>((resolve) => (answerReread = resolve)));
    const verification = { checked: 1, unsupported: ['84'], reasked: true };
    socket.push(ev('t8', 5, { type: 'turn.done', messageId: 'a-t8', verification }));
    const ended = store.entries().at(-1)!;
    expect(ended.kind === 'live' && ended.turn.verification).toEqual(verification);

    const stored: ChatMessageView = {
      ...assistantMsg('t8', 'The exact total is 84 findings!'),
      metadata: { toolCalls: [], verification, reasoning: 'The card says 184, but 84 sounds right.' },
    };
    answerReread(detail([question, stored]));
    await vi.waitFor(() => expect(store.entries().at(-1)!.kind).toBe('assistant'), WAIT);
    const last = store.entries().at(-1)!;
    expect(
      last.kind === 'assistant' && { verification: last.verification, reasoning: last.reasoning },
    ).toEqual({
      verification,
      reasoning: 'The card says 184, but 84 sounds right.',
    });
  });

  it('sends with a client message id, disables sending while the turn runs, and shows queued state', async () => {
    api.get.mockResolvedValueOnce(detail([]));
    await store.open(CHAT);
    const response: PostMessageResponse = {
      turnId: 't2',
      messageId: 'u-t2',
      queuePosition: 3,
      truncated: false,
    };
    api.postMessage.mockResolvedValueOnce(response);
    expect(await store.send('  How many critical findings?  ')).toBe(true);
    const [chatId, body] = api.postMessage.mock.calls[0];
    expect(chatId).toBe(CHAT);
    expect(body.content).toBe('How many critical findings?');
    expect(body.clientMessageId).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(store.entries().map((e) => e.kind)).toEqual(['user', 'live']);
    // The thread is re-read after the POST (its title and counts changed) without losing the turn.
    await rereadsApplied(2);
    expect(api.get).toHaveBeenCalledTimes(2);
    expect(store.entries().map((e) => e.kind)).toEqual(['user', 'live']);
    const live = store.live()!;
    expect(live.phase).toBe('queued');
    expect(live.queuePosition).toBe(3);
    expect(store.canSend()).toBe(false);
    expect(await store.send('second question')).toBe(false);
    expect(api.postMessage).toHaveBeenCalledTimes(1);
  });

  it('a question sent while the thread is still loading waits for it instead of being dropped', async () => {
    let loaded!: (d: ChatDetailView) => void;
    api.get.mockReturnValueOnce(new Promise((r) => (loaded = r)));
    const opening = store.open(CHAT);
    expect(store.canSend()).toBe(true);
    api.postMessage.mockResolvedValueOnce({
      turnId: 't11',
      messageId: 'u-t11',
      queuePosition: 1,
      truncated: false,
    });
    const sent = store.send('early question');
    expect(api.postMessage).not.toHaveBeenCalled();
    loaded(detail([]));
    await opening;
    expect(await sent).toBe(true);
    expect(store.entries().map((e) => e.kind)).toEqual(['user', 'live']);
  });

  it('follows a turn whose first events arrive before the POST answered (no second bubble)', async () => {
    api.get.mockResolvedValueOnce(detail([]));
    await store.open(CHAT);
    let answer!: (r: PostMessageResponse) => void;
    api.postMessage.mockReturnValueOnce(new Promise((r) => (answer = r)));
    const sent = store.send('hello');
    socket.push(
      ev('t3', 1, { type: 'turn.queued', position: 1 }),
      ev('t3', 2, { type: 'turn.started', workerId: 'w', attempt: 1 }),
    );
    answer({ turnId: 't3', messageId: 'u-t3', queuePosition: 1, truncated: false });
    await sent;
    expect(store.entries().filter((e) => e.kind === 'live')).toHaveLength(1);
    expect(store.live()!.phase).toBe('running');
  });

  it('reuses the client message id when a failed send is tried again, so the API can deduplicate', async () => {
    api.get.mockResolvedValueOnce(detail([]));
    await store.open(CHAT);
    api.postMessage.mockRejectedValueOnce(new HttpErrorResponse({ status: 0 }));
    expect(await store.send('How many reports?')).toBe(false);
    expect(store.notice()).toContain('cannot be reached');
    api.postMessage.mockResolvedValueOnce({
      turnId: 't4',
      messageId: 'u-t4',
      queuePosition: 1,
      truncated: false,
    });
    expect(await store.send('How many reports?')).toBe(true);
    expect(api.postMessage.mock.calls[1][1].clientMessageId).toBe(
      api.postMessage.mock.calls[0][1].clientMessageId,
    );
  });

  it('on 409 (a turn already runs, e.g. from another tab) keeps the draft and picks up the active turn', async () => {
    api.get.mockResolvedValueOnce(detail([]));
    await store.open(CHAT);
    api.postMessage.mockRejectedValueOnce(
      new HttpErrorResponse({ status: 409, error: { statusCode: 409, message: 'busy', activeTurnId: 't9' } }),
    );
    api.get.mockResolvedValueOnce(detail([userMsg('t9', 'other tab')], { turnId: 't9', status: 'queued' }));
    expect(await store.send('mine')).toBe(false);
    await vi.waitFor(() => expect(store.live()?.turnId).toBe('t9'), WAIT);
    expect(store.notice()).toContain('already running');
    expect(store.running()).toBe(true);
  });

  it('stops the running turn; the partial answer stays, marked cancelled', async () => {
    api.get.mockResolvedValueOnce(detail([userMsg('t5', 'q')], { turnId: 't5', status: 'running' }));
    await store.open(CHAT);
    socket.push(
      ev('t5', 1, { type: 'turn.started', workerId: 'w', attempt: 1 }),
      ev('t5', 2, { type: 'text.delta', text: 'Partial' }),
    );
    api.cancelTurn.mockResolvedValueOnce(undefined);
    await store.stop();
    expect(api.cancelTurn).toHaveBeenCalledWith(CHAT, 't5');
    expect(store.stopping()).toBe(true);
    api.get.mockResolvedValueOnce(detail([userMsg('t5', 'q'), assistantMsg('t5', 'Partial', 'cancelled')]));
    socket.push(ev('t5', 3, { type: 'turn.cancelled', messageId: 'a-t5' }));
    await vi.waitFor(() => expect(store.stopping()).toBe(false), WAIT);
    const last = store.entries().at(-1)!;
    expect(last.kind === 'assistant' && last.message.status).toBe('cancelled');
    expect(store.canSend()).toBe(true);
  });

  it('offers Retry for a failed last turn and re-sends its question', async () => {
    api.get.mockResolvedValueOnce(
      detail([userMsg('t6', 'How many findings?'), assistantMsg('t6', '', 'error')]),
    );
    await store.open(CHAT);
    expect(store.retryableTurnId()).toBe('t6');
    api.postMessage.mockResolvedValueOnce({
      turnId: 't7',
      messageId: 'u-t7',
      queuePosition: 1,
      truncated: false,
    });
    expect(await store.retry('t6')).toBe(true);
    expect(api.postMessage.mock.calls[0][1].content).toBe('How many findings?');
    expect(store.retryableTurnId()).toBeNull();
  });

  it('offers Retry for a stopped turn too, and the retry replaces the stopped or failed turn in the thread', async () => {
    api.get.mockResolvedValueOnce(
      detail([
        userMsg('t1', 'Old question'),
        assistantMsg('t1', 'Done.'),
        userMsg('t6', 'How many?'),
        assistantMsg('t6', 'Par', 'cancelled'),
      ]),
    );
    await store.open(CHAT);
    expect(store.retryableTurnId()).toBe('t6');
    api.postMessage.mockResolvedValueOnce({
      turnId: 't7',
      messageId: 'u-t7',
      queuePosition: 1,
      truncated: false,
    });
    api.get.mockResolvedValueOnce(
      detail([
        userMsg('t1', 'Old question'),
        assistantMsg('t1', 'Done.'),
        userMsg('t6', 'How many?'),
        assistantMsg('t6', 'Par', 'cancelled'),
        userMsg('t7', 'How many?'),
      ]),
    );
    expect(await store.retry('t6')).toBe(true);
    await rereadsApplied(2);
    const shown = () =>
      store
        .entries()
        .map((e) => (e.kind === 'live' ? `live:${e.turn.turnId}` : `${e.kind}:${e.message.turnId}`));
    expect(shown()).toEqual(['user:t1', 'assistant:t1', 'user:t7', 'live:t7']);
  });

  it('keeps a repeated question after a completed turn, and a failed turn followed by another question', () => {
    const turns = (messages: ChatMessageView[]) =>
      withoutRetriedTurns(messages).map((m) => `${m.role}:${m.turnId}`);
    expect(
      turns([
        userMsg('t1', 'Q'),
        assistantMsg('t1', 'A'),
        userMsg('t2', 'Q'),
        assistantMsg('t2', '', 'error'),
        userMsg('t3', ' Q '),
        assistantMsg('t3', 'A'),
      ]),
    ).toEqual(['user:t1', 'assistant:t1', 'user:t3', 'assistant:t3']);
    expect(
      turns([
        userMsg('t1', 'Q'),
        assistantMsg('t1', '', 'error'),
        userMsg('t2', 'Another'),
        assistantMsg('t2', 'A'),
      ]),
    ).toHaveLength(4);
  });

  it('re-reads the thread when the join says the turn it was following has ended', async () => {
    api.get.mockResolvedValueOnce(detail([userMsg('t8', 'q')], { turnId: 't8', status: 'running' }));
    await store.open(CHAT);
    api.get.mockResolvedValueOnce(detail([userMsg('t8', 'q'), assistantMsg('t8', 'Done while away.')]));
    socket.watches[0].onJoined({ ok: true, activeTurn: null });
    await vi.waitFor(() => expect(store.entries().map((e) => e.kind)).toEqual(['user', 'assistant']), WAIT);
  });

  it('asks for a replay when an event was dropped behind a missing one', async () => {
    vi.useFakeTimers();
    try {
      api.get.mockResolvedValueOnce(detail([userMsg('t10', 'q')], { turnId: 't10', status: 'running' }));
      await store.open(CHAT);
      socket.push(
        ev('t10', 1, { type: 'turn.started', workerId: 'w', attempt: 1 }),
        ev('t10', 3, { type: 'text.delta', text: 'late' }),
      );
      expect(socket.rejoin).not.toHaveBeenCalled();
      await vi.advanceTimersByTimeAsync(2000);
      expect(socket.rejoin).toHaveBeenCalledWith(CHAT);
      expect(socket.watches[0].afterSeq()).toBe('1-0');
    } finally {
      vi.useRealTimers();
    }
  });

  it('says a malformed thread id does not exist without asking the API, and so does a 400 or 404', async () => {
    await store.open('not-a-uuid');
    expect(api.get).not.toHaveBeenCalled();
    expect(store.loadError()).toBe(THREAD_MISSING);
    expect(socket.watches).toEqual([]);

    const unknown = '00000000-0000-4000-8000-000000000000';
    api.get.mockRejectedValueOnce(
      new HttpErrorResponse({ status: 404, error: { statusCode: 404, message: 'Not Found' } }),
    );
    await store.open(unknown);
    expect(store.loadError()).toBe(THREAD_MISSING);
    api.get.mockRejectedValueOnce(
      new HttpErrorResponse({
        status: 400,
        error: { statusCode: 400, message: 'Validation failed (uuid is expected)' },
      }),
    );
    await store.open('11111111-1111-4111-8111-111111111111');
    expect(store.loadError()).toBe(THREAD_MISSING);
  });
});
