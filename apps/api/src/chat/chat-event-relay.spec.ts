import 'reflect-metadata';
import type { Socket } from 'socket.io';
import { type ChatEvent, compareSeq } from '@corpus-chat/contracts';
import type { ChatEventHandler, TurnEventBus, TurnEventSubscriber } from '@corpus-chat/server-core';
import { ChatEventRelay } from './chat-event-relay';

const CHAT = '11111111-1111-4111-8111-111111111111';
const TURN = '22222222-2222-4222-8222-222222222222';
const delta = (n: number, turnId = TURN): ChatEvent => ({
  chatId: CHAT,
  turnId,
  seq: `${n}-0`,
  prev: `${n - 1}-0`,
  at: '',
  type: 'text.delta',
  text: `d${n}`,
});
const seqs = (events: ChatEvent[]) => events.map((e) => Number(e.seq.split('-')[0]));

/** A bus whose stream holds `stored`; `replay` resolves only when `release()` is called. */
function fakeBus(stored: ChatEvent[]) {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const bus = {
    replay: jest.fn(async (turnId: string, after = '0-0') => {
      await gate;
      return stored.filter((e) => e.turnId === turnId && compareSeq(e.seq, after) > 0);
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
    onResubscribed: jest.fn((handler: () => void) => {
      resubscribed.push(handler);
      return () => undefined;
    }),
  };
  const resubscribed: (() => void)[] = [];
  return {
    subscriber: subscriber as unknown as TurnEventSubscriber,
    /** Redis came back and every channel is subscribed again. */
    reconnect: () => resubscribed.forEach((h) => h()),
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
  it('replays after afterSeq and forwards live events as they come, the replay included', async () => {
    const { bus, release } = fakeBus([1, 2, 3, 4, 5].map((s) => delta(s)));
    const { subscriber, publish } = fakeSubscriber();
    const { socket, sent } = fakeSocket();
    const relay = new ChatEventRelay(subscriber, bus);
    const attached = relay.attach(socket, CHAT, '2-0', async () => ({ turnId: TURN }));
    await flush();
    // Published while the replay is still being read: 5 is also in the stream, 6 is not yet.
    publish(delta(5));
    publish(delta(6));
    release();
    expect(await attached).toEqual({ turnId: TURN });
    // The client drops 5 and 6 (their prev is missing there) and the second 5 (a duplicate).
    expect(seqs(sent)).toEqual([5, 6, 3, 4, 5]);
    publish(delta(7));
    expect(seqs(sent)).toEqual([5, 6, 3, 4, 5, 7]);
  });

  it('after a reconnect, replays the turn to a socket that joined again and found it ended', async () => {
    const { bus, release } = fakeBus([1, 2, 3, 4].map((s) => delta(s)));
    const { subscriber, publish, reconnect } = fakeSubscriber();
    const { socket, sent } = fakeSocket();
    const relay = new ChatEventRelay(subscriber, bus);
    await relay.attach(socket, CHAT, undefined, async () => null);
    publish(delta(1)); // the attachment now follows TURN
    // Redis came back; while the replay is read, the client joined again, and the turn had ended
    // meanwhile (stored while Redis was away): that join finds nothing to replay.
    reconnect();
    await relay.attach(socket, CHAT, undefined, async () => null);
    release();
    await flush();
    expect(seqs(sent)).toEqual([1, 1, 2, 3, 4]);
  });

  it('a join again after a gap gets the rest of the turn it followed, though that turn ended', async () => {
    const { bus, release } = fakeBus([1, 2, 3, 4].map((s) => delta(s)));
    const { subscriber, publish } = fakeSubscriber();
    const { socket, sent } = fakeSocket();
    const relay = new ChatEventRelay(subscriber, bus);
    await relay.attach(socket, CHAT, undefined, async () => null);
    publish(delta(1));
    release();
    expect(await relay.attach(socket, CHAT, '1-0', async () => null)).toBeNull();
    expect(seqs(sent)).toEqual([1, 2, 3, 4]);
    // A plain join (no afterSeq) of a thread whose turn ended replays nothing.
    await relay.attach(socket, CHAT, undefined, async () => null);
    expect(seqs(sent)).toEqual([1, 2, 3, 4]);
  });

  it('forwards events of a turn that is not replayed', async () => {
    const other = '33333333-3333-4333-8333-333333333333';
    const { bus, release, replay } = fakeBus([]);
    release();
    const { subscriber, publish } = fakeSubscriber();
    const { socket, sent } = fakeSocket();
    const relay = new ChatEventRelay(subscriber, bus);
    expect(await relay.attach(socket, CHAT, undefined, async () => null)).toBeNull();
    publish(delta(1, other));
    expect(replay).not.toHaveBeenCalled();
    expect(seqs(sent)).toEqual([1]);
  });

  it('stops forwarding after detach and unsubscribes', async () => {
    const { bus, release } = fakeBus([]);
    release();
    const { subscriber, publish, handlers } = fakeSubscriber();
    const { socket, sent } = fakeSocket();
    const relay = new ChatEventRelay(subscriber, bus);
    await relay.attach(socket, CHAT, undefined, async () => ({ turnId: TURN }));
    publish(delta(1));
    await relay.detachAll(socket);
    publish(delta(2));
    expect(seqs(sent)).toEqual([1]);
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
        onResubscribed: jest.fn(() => () => undefined),
      };
      return { subscriber: subscriber as unknown as TurnEventSubscriber, handlers, confirm };
    }

    it('concurrent attaches of one thread by one socket leave one handler, removed by one detach', async () => {
      const { bus, release } = fakeBus([]);
      release();
      const { subscriber, handlers, confirm } = slowSubscriber();
      const { socket } = fakeSocket();
      const relay = new ChatEventRelay(subscriber, bus);
      const attaching = Array.from({ length: 10 }, () =>
        relay.attach(socket, CHAT, undefined, async () => null),
      );
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
      const attaching = relay.attach(socket, CHAT, undefined, async () => ({ turnId: TURN }));
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
      expect(await relay.attach(socket, CHAT, undefined, async () => ({ turnId: TURN }))).toBeNull();
      expect(handlers).toHaveLength(0);
      expect(relay.followedThreads).toBe(0);
    });
  });
});
