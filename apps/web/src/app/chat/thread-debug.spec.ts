import { signal } from '@angular/core';
import { TestBed, type ComponentFixture } from '@angular/core/testing';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type {
  ChatDetailView,
  ChatEvent,
  ChatEventBody,
  ChatMessageView,
  JoinChatAck,
} from '@corpus-chat/contracts';
import { ChatApi } from './chat-api';
import { ChatListStore } from './chat-list-store';
import { ChatSocket } from './chat-socket';
import { DEBUG_CLOCK, DEBUG_PANEL_STORAGE_KEY, DebugPanelPreference, ThreadDebug } from './thread-debug';
import { ThreadStore } from './thread-store';

const CHAT = '0b6f4c1e-5d2a-4c3e-9f00-1a2b3c4d5e6f';
const NOW = Date.parse('2026-03-01T12:00:00.000Z');
const at = (secondsAgo: number) => new Date(NOW - secondsAgo * 1000).toISOString();
const userMsg = (turnId: string): ChatMessageView => ({
  id: `u-${turnId}`,
  turnId,
  role: 'user',
  content: 'How many?',
  status: 'complete',
  metadata: {},
  createdAt: at(60),
});
const detail = (
  messages: ChatMessageView[],
  activeTurn: ChatDetailView['activeTurn'] = null,
): ChatDetailView => ({
  id: CHAT,
  title: 'SQL injection',
  archived: false,
  messageCount: messages.length,
  lastModel: 'qwen2.5:7b',
  activeTurn,
  unread: false,
  createdAt: at(60),
  updatedAt: at(60),
  messages,
});
const ev = (turnId: string, n: number, secondsAgo: number, body: ChatEventBody): ChatEvent =>
  ({ chatId: CHAT, turnId, seq: `${n}-0`, prev: `${n - 1}-0`, at: at(secondsAgo), ...body }) as ChatEvent;

/** The parts of ChatSocket the thread store and the panel read, with events the test pushes. */
class FakeSocket {
  readonly state = signal<'connected' | 'reconnecting'>('connected');
  readonly transport = signal<string | null>('websocket');
  readonly lastError = signal<string | null>(null);
  handlers = new Set<(e: ChatEvent) => void>();
  rejoin = vi.fn();
  onEvent(h: (e: ChatEvent) => void) {
    this.handlers.add(h);
    return () => this.handlers.delete(h);
  }
  watch(_chatId: string, _afterSeq: () => string, _onJoined: (ack: JoinChatAck) => void) {
    return () => undefined;
  }
  push(...events: ChatEvent[]) {
    for (const e of events) this.handlers.forEach((h) => h(e));
  }
}

describe('ThreadDebug', () => {
  let fixture: ComponentFixture<ThreadDebug>;
  let socket: FakeSocket;
  let store: ThreadStore;
  let api: { get: ReturnType<typeof vi.fn> };
  const el = (): HTMLElement => fixture.nativeElement as HTMLElement;
  const field = (id: string) =>
    el().querySelector(`[data-testid="debug-${id}"]`)!.textContent!.replace(/\s+/g, ' ').trim();
  const copyButton = () => el().querySelector<HTMLButtonElement>('[data-testid="debug-copy"]')!;
  const status = () => el().querySelector('[role="status"]')!.textContent!.trim();

  beforeEach(async () => {
    socket = new FakeSocket();
    api = {
      get: vi.fn().mockResolvedValue(detail([userMsg('t1')], { turnId: 't1', status: 'running' })),
    };
    TestBed.configureTestingModule({
      providers: [
        ThreadStore,
        { provide: ChatApi, useValue: api },
        { provide: ChatSocket, useValue: socket },
        { provide: ChatListStore, useValue: { upsert: vi.fn(), scheduleRefresh: vi.fn() } },
        { provide: DEBUG_CLOCK, useValue: () => NOW },
      ],
    });
    store = TestBed.inject(ThreadStore);
    await store.open(CHAT);
    fixture = TestBed.createComponent(ThreadDebug);
    await fixture.whenStable();
  });

  afterEach(() => vi.restoreAllMocks());

  it('shows the thread, the running turn, the connection, the last seq and the running tool call with its elapsed time', async () => {
    socket.push(
      ev('t1', 1, 10, { type: 'turn.started', workerId: 'w1', attempt: 1 }),
      ev('t1', 2, 7, {
        type: 'tool.call',
        callId: 'c1',
        name: 'count_findings',
        args: { severity: 'critical' },
      }),
    );
    await fixture.whenStable();
    expect(field('thread-id')).toBe(CHAT);
    expect(field('turn-id')).toBe('t1 (running)');
    expect(field('connection')).toBe('connected (websocket)');
    expect(field('last-seq')).toBe('2-0');
    expect(field('tool-calls')).toBe('count_findings {"severity":"critical"} 7 s');
    expect(field('last-error')).toBe('none');
    expect(field('model')).toBe('qwen2.5:7b');

    socket.state.set('reconnecting');
    socket.transport.set(null);
    socket.push(
      ev('t1', 3, 1, {
        type: 'tool.result',
        callId: 'c1',
        name: 'count_findings',
        ok: true,
        summary: '3 findings',
      }),
    );
    await fixture.whenStable();
    expect(field('connection')).toBe('reconnecting');
    expect(field('last-seq')).toBe('3-0');
    expect(field('tool-calls')).toBe('none');
  });

  it("shows a failed turn's error code and message", async () => {
    socket.push(
      ev('t1', 1, 2, {
        type: 'turn.error',
        code: 'MODEL_UNAVAILABLE',
        message: 'The model server did not answer.',
      }),
    );
    await fixture.whenStable();
    expect(field('turn-id')).toBe('t1 (error)');
    expect(field('last-error')).toBe('MODEL_UNAVAILABLE The model server did not answer.');
  });

  it('copies exactly what it shows as JSON, falling back to a text area when the Clipboard API refuses', async () => {
    socket.push(
      ev('t1', 1, 4, { type: 'tool.call', callId: 'c1', name: 'search_findings', args: { text: 'xss' } }),
    );
    await fixture.whenStable();
    const writeText = vi.fn().mockResolvedValue(undefined);
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    copyButton().click();
    await vi.waitFor(() => expect(status()).toBe('Copied.'));
    expect(JSON.parse(writeText.mock.calls[0][0])).toEqual({
      threadId: CHAT,
      turnId: 't1',
      turnStatus: 'running',
      connection: 'connected',
      transport: 'websocket',
      lastSeq: '1-0',
      activeToolCalls: [
        { callId: 'c1', name: 'search_findings', arguments: { text: 'xss' }, elapsedSeconds: 4 },
      ],
      lastError: null,
      model: 'qwen2.5:7b',
    });

    writeText.mockRejectedValue(new DOMException('denied', 'NotAllowedError'));
    const execCommand = vi.fn().mockReturnValue(false);
    Object.defineProperty(document, 'execCommand', { value: execCommand, configurable: true });
    copyButton().click();
    await vi.waitFor(() => expect(status()).toBe('The browser refused to copy: select the JSON below.'));
    expect(execCommand).toHaveBeenCalledWith('copy');
    expect(JSON.parse(el().querySelector('[data-testid="debug-json"]')!.textContent!)).toEqual(
      JSON.parse(writeText.mock.calls[0][0]),
    );

    execCommand.mockReturnValue(true);
    copyButton().click();
    await vi.waitFor(() => expect(status()).toBe('Copied.'));
    expect(document.querySelector('textarea')).toBeNull();
  });
});

describe('DebugPanelPreference', () => {
  beforeEach(() => localStorage.removeItem(DEBUG_PANEL_STORAGE_KEY));

  it('is closed by default and remembers the choice in this browser', () => {
    TestBed.configureTestingModule({});
    const first = TestBed.inject(DebugPanelPreference);
    expect(first.open()).toBe(false);
    first.toggle();
    expect(first.open()).toBe(true);
    TestBed.resetTestingModule();
    TestBed.configureTestingModule({});
    const again = TestBed.inject(DebugPanelPreference);
    expect(again.open()).toBe(true);
    again.toggle();
    expect(localStorage.getItem(DEBUG_PANEL_STORAGE_KEY)).toBeNull();
  });
});
