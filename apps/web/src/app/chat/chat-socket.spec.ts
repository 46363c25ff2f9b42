import { TestBed } from '@angular/core/testing';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { CHAT_NAMESPACE, SocketEvents, type ChatEvent, type JoinChatAck } from '@corpus-chat/contracts';
import { ChatSocket, SOCKET_FACTORY } from './chat-socket';

type Handler = (...args: any[]) => void;
class Emitter {
  handlers = new Map<string, Handler[]>();
  on(name: string, h: Handler) {
    this.handlers.set(name, [...(this.handlers.get(name) ?? []), h]);
    return this;
  }
  fire(name: string, ...args: unknown[]) {
    (this.handlers.get(name) ?? []).forEach((h) => h(...args));
  }
  removeAllListeners() {
    this.handlers.clear();
  }
}

/** The parts of a socket.io-client `Socket` that ChatSocket uses. */
class FakeIoSocket extends Emitter {
  io = new Emitter();
  connected = false;
  active = true;
  emitted: { event: string; payload: unknown }[] = [];
  ackFor: (event: string, payload: any) => unknown = () => ({ ok: true, activeTurn: null });
  emit = vi.fn((event: string, payload: unknown) => this.emitted.push({ event, payload }));
  timeout() {
    return {
      emitWithAck: async (event: string, payload: unknown) => {
        this.emitted.push({ event, payload });
        return this.ackFor(event, payload);
      },
    };
  }
  connect = vi.fn();
  disconnect = vi.fn();
  goOnline() {
    this.connected = true;
    this.fire('connect');
  }
}

describe('ChatSocket', () => {
  let fake: FakeIoSocket;
  let socket: ChatSocket;
  let factory: ReturnType<typeof vi.fn>;

  beforeEach(() => {
    fake = new FakeIoSocket();
    factory = vi.fn(() => fake);
    TestBed.configureTestingModule({ providers: [{ provide: SOCKET_FACTORY, useValue: factory }] });
    socket = TestBed.inject(ChatSocket);
  });

  it('connects to the /chat namespace with credentials and reports the client state', () => {
    expect(socket.state()).toBe('idle');
    socket.connect();
    socket.connect();
    expect(factory).toHaveBeenCalledTimes(1);
    expect(factory.mock.calls[0][0]).toBe(CHAT_NAMESPACE);
    expect(factory.mock.calls[0][1]).toMatchObject({ withCredentials: true });
    expect(socket.state()).toBe('connecting');
    fake.goOnline();
    expect(socket.state()).toBe('connected');

    fake.connected = false;
    fake.fire('disconnect', 'transport close');
    expect(socket.state()).toBe('reconnecting');
    fake.io.fire('reconnect_attempt');
    expect(socket.state()).toBe('reconnecting');

    // Refused by the server (e.g. unauthorized): the client stops retrying.
    fake.active = false;
    fake.fire('connect_error', new Error('unauthorized'));
    expect(socket.state()).toBe('offline');
    expect(socket.lastError()).toBe('unauthorized');
    expect(socket.connectFailures()).toBe(1);
    fake.goOnline();
    expect(socket.connectFailures()).toBe(0);
  });

  it('connects again once, with the current cookie, when the server ends the connection (session expired)', () => {
    socket.connect();
    fake.goOnline();
    fake.connected = false;
    fake.active = false; // socket.io-client does not retry by itself after a server disconnect
    fake.fire('disconnect', 'io server disconnect');
    expect(fake.connect).toHaveBeenCalledTimes(1);
    expect(socket.state()).toBe('connecting');
    fake.goOnline();
    expect(socket.state()).toBe('connected');
    // Ended again right away (e.g. the operator was disabled): no loop, the indicator says offline.
    fake.connected = false;
    fake.fire('disconnect', 'io server disconnect');
    expect(fake.connect).toHaveBeenCalledTimes(1);
    expect(socket.state()).toBe('offline');
    // Ten seconds on, a server disconnect is retried again.
    vi.useFakeTimers({ now: Date.now() + 10_001 });
    try {
      fake.fire('disconnect', 'io server disconnect');
      expect(fake.connect).toHaveBeenCalledTimes(2);
    } finally {
      vi.useRealTimers();
    }
  });

  it('joins a watched thread on connect and again after each reconnect with the seq held then', async () => {
    socket.connect();
    let seq = '0-0';
    const acks: JoinChatAck[] = [];
    socket.watch(
      'c1',
      () => seq,
      (ack) => acks.push(ack),
    );
    expect(fake.emitted).toEqual([]); // not connected yet
    fake.goOnline();
    // Each join ends when its acknowledgement reaches the watcher.
    await vi.waitFor(() => expect(acks).toHaveLength(1), { timeout: 2000 });
    seq = '7-0';
    fake.connected = false;
    fake.fire('disconnect', 'ping timeout');
    fake.goOnline();
    await vi.waitFor(() => expect(acks).toHaveLength(2), { timeout: 2000 });
    expect(fake.emitted.filter((e) => e.event === SocketEvents.join).map((e) => e.payload)).toEqual([
      { chatId: 'c1', afterSeq: '0-0' },
      { chatId: 'c1', afterSeq: '7-0' },
    ]);
  });

  it('leaves the room when the watch ends and delivers chat:event to every handler', () => {
    socket.connect();
    fake.goOnline();
    const stop = socket.watch(
      'c1',
      () => '0-0',
      () => undefined,
    );
    const seen: ChatEvent[] = [];
    const off = socket.onEvent((e) => seen.push(e));
    const event = {
      chatId: 'c1',
      turnId: 't',
      seq: '1-0',
      prev: '0-0',
      at: 'x',
      type: 'turn.queued',
      position: 1,
    } as ChatEvent;
    fake.fire(SocketEvents.event, event);
    off();
    fake.fire(SocketEvents.event, event);
    expect(seen).toEqual([event]);
    stop();
    expect(fake.emit).toHaveBeenCalledWith(SocketEvents.leave, { chatId: 'c1' });
  });

  it('reports a refused join as a failed acknowledgement', async () => {
    fake.ackFor = () => ({ ok: false, error: 'not found' });
    socket.connect();
    fake.goOnline();
    const ack = await new Promise<JoinChatAck>((resolve) => socket.watch('c2', () => '0-0', resolve));
    expect(ack).toEqual({ ok: false, error: 'not found' });
  });
});
