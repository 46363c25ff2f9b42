import type { Socket } from 'socket.io';
import type { ChatEvent } from '@corpus-chat/contracts';
import type { ChatEventHandler, TurnEventBus, TurnEventSubscriber } from '@corpus-chat/server-core';
import { ChatEventRelay } from './chat-event-relay';

const CHAT = '11111111-1111-4111-8111-111111111111';
const TURN = '22222222-2222-4222-8222-222222222222';
const delta = (seq: number, turnId = TURN): ChatEvent => ({
  chatId: CHAT,
  turnId,
  seq,
  at: '',
  type: 'text.delta',
  text: `d${seq}`,
});

/** A bus whose stream holds `stored`; `replay` resolves only when `release()` is called. */
function fakeBus(stored: ChatEvent[]) {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const bus = {
    replay: jest.fn(async (turnId: string, after: number) => {
      await gate;
      return stored.filter((e) => e.turnId === turnId && e.seq > after);
    }),
  };
  return { bus: bus as unknown as TurnEventBus, release, replay: bus.replay };
}

function fakeSubscriber() {
  const handlers: ChatEventHandler[] = [];
  const subscriber = {
    subscribeChat: jest.fn(async (_chatId: string, handler: ChatEventHandler) => {
      handlers.push(handler);
      return async () => void handlers.splice(handlers.indexOf(handler), 1);
    }),
  };
  return {
    subscriber: subscriber as unknown as TurnEventSubscriber,
    publish: (e: ChatEvent) => handlers.forEach((h) => h(e)),
    handlers,
  };
}

function fakeSocket() {
  const sent: ChatEvent[] = [];
  return { socket: { emit: (_name: string, e: ChatEvent) => sent.push(e) } as unknown as Socket, sent };
}

const flush = () => new Promise((r) => setImmediate(r));

describe('ChatEventRelay', () => {
  it('replays after afterSeq, then forwards live events that arrived meanwhile, without duplicates or gaps', async () => {
    const { bus, release } = fakeBus([1, 2, 3, 4, 5].map((s) => delta(s)));
    const { subscriber, publish } = fakeSubscriber();
    const { socket, sent } = fakeSocket();
    const relay = new ChatEventRelay(subscriber, bus);
    const attached = relay.attach(socket, CHAT, 2, async () => ({ turnId: TURN }));
    await flush();
    // Published while the replay is still being read: 5 is also in the stream, 6 and 7 are not yet.
    publish(delta(5));
    publish(delta(6));
    publish(delta(7));
    await flush();
    expect(sent).toEqual([]);
    release();
    expect(await attached).toEqual({ turnId: TURN, lastSeq: 5 });
    await flush();
    expect(sent.map((e) => e.seq)).toEqual([3, 4, 5, 6, 7]);
    publish(delta(7));
    publish(delta(8));
    await flush();
    expect(sent.map((e) => e.seq)).toEqual([3, 4, 5, 6, 7, 8]);
  });

  it('fills a gap from the stream: a turn that began before the subscription took effect is sent from seq 1', async () => {
    const other = '33333333-3333-4333-8333-333333333333';
    const { bus, release, replay } = fakeBus([1, 2, 3].map((s) => delta(s, other)));
    release();
    const { subscriber, publish } = fakeSubscriber();
    const { socket, sent } = fakeSocket();
    const relay = new ChatEventRelay(subscriber, bus);
    expect(await relay.attach(socket, CHAT, undefined, async () => null)).toBeNull();
    publish(delta(3, other));
    await flush();
    await flush();
    expect(replay).toHaveBeenCalledWith(other, 0);
    expect(sent.map((e) => e.seq)).toEqual([1, 2, 3]);
  });

  it('stops forwarding after detach and unsubscribes', async () => {
    const { bus, release } = fakeBus([]);
    release();
    const { subscriber, publish, handlers } = fakeSubscriber();
    const { socket, sent } = fakeSocket();
    const relay = new ChatEventRelay(subscriber, bus);
    await relay.attach(socket, CHAT, 0, async () => ({ turnId: TURN }));
    publish(delta(1));
    await flush();
    await relay.detachAll(socket);
    publish(delta(2));
    await flush();
    expect(sent.map((e) => e.seq)).toEqual([1]);
    expect(handlers).toHaveLength(0);
    expect(relay.followedThreads).toBe(0);
  });

  describe('holds exactly one subscription per socket and thread under concurrency', () => {
    /** A subscriber whose SUBSCRIBE is confirmed only when `confirm()` is called. */
    function slowSubscriber() {
      const handlers = new Set<ChatEventHandler>();
      let confirm!: () => void;
      const confirmed = new Promise<void>((r) => (confirm = r));
      const subscriber = {
        subscribeChat: jest.fn(async (_chatId: string, handler: ChatEventHandler) => {
          handlers.add(handler);
          await confirmed;
          return async () => void handlers.delete(handler);
        }),
      };
      return { subscriber: subscriber as unknown as TurnEventSubscriber, handlers, confirm };
    }

    it('concurrent attaches of one thread by one socket leave one handler, removed by one detach', async () => {
      const { bus, release } = fakeBus([]);
      release();
      const { subscriber, handlers, confirm } = slowSubscriber();
      const { socket } = fakeSocket();
      const relay = new ChatEventRelay(subscriber, bus);
      const attaching = Array.from({ length: 10 }, () => relay.attach(socket, CHAT, 0, async () => null));
      confirm();
      await Promise.all(attaching);
      expect(handlers.size).toBe(1);
      await relay.detach(socket, CHAT);
      expect(handlers.size).toBe(0);
    });

    it('a socket detached while its subscription is in flight releases it when it lands and is sent nothing', async () => {
      const { bus, release } = fakeBus([delta(1)]);
      release();
      const { subscriber, handlers, confirm } = slowSubscriber();
      const { socket, sent } = fakeSocket();
      const relay = new ChatEventRelay(subscriber, bus);
      const attaching = relay.attach(socket, CHAT, 0, async () => ({ turnId: TURN }));
      const detaching = relay.detachAll(socket);
      confirm();
      expect(await attaching).toBeNull();
      await detaching;
      expect(handlers.size).toBe(0);
      expect(sent).toEqual([]);
      expect(relay.followedThreads).toBe(0);
    });

    it('does not attach a socket that has already disconnected', async () => {
      const { bus, release } = fakeBus([]);
      release();
      const { subscriber, handlers } = fakeSubscriber();
      const socket = { disconnected: true, emit: jest.fn() } as unknown as Socket;
      const relay = new ChatEventRelay(subscriber, bus);
      expect(await relay.attach(socket, CHAT, 0, async () => ({ turnId: TURN }))).toBeNull();
      expect(handlers).toHaveLength(0);
      expect(relay.followedThreads).toBe(0);
    });
  });
});
