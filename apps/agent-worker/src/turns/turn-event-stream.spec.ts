import type { RunnerEvent } from '@corpus-chat/server-core';
import { TurnEventStream } from './turn-event-stream';

const delta = (text: string): RunnerEvent => ({ type: 'text.delta', text });
const toolCall: RunnerEvent = { type: 'tool.call', callId: 'c1', name: 'search_findings', args: {} };

/** A publisher recording what went out, and when (fake ms). */
function recorder() {
  const published: { at: number; event: RunnerEvent }[] = [];
  const publish = async (event: RunnerEvent) => {
    published.push({ at: Date.now(), event });
  };
  const texts = () =>
    published.map(({ event }) => (event.type === 'text.delta' ? event.text : `[${event.type}]`));
  return { published, publish, texts };
}

describe('TurnEventStream', () => {
  beforeEach(() => jest.useFakeTimers({ now: 0 }));
  afterEach(() => jest.useRealTimers());

  it('publishes every event on its own, in order, when coalescing is off', async () => {
    const r = recorder();
    const stream = new TurnEventStream(r.publish, 0, () => Date.now());
    await stream.emit(delta('a'));
    await stream.emit(delta('b'));
    await stream.emit(toolCall);
    await stream.emit(delta('c'));
    await stream.settled();
    expect(r.texts()).toEqual(['a', 'b', '[tool.call]', 'c']);
  });

  it('sends the first delta at once and joins the deltas of the next 16 ms into one', async () => {
    const r = recorder();
    const stream = new TurnEventStream(r.publish, 16, () => Date.now());
    await stream.emit(delta('The '));
    expect(r.texts()).toEqual(['The ']); // first token not delayed
    for (const t of ['answer ', 'is ', '42']) {
      await jest.advanceTimersByTimeAsync(2);
      await stream.emit(delta(t));
    }
    expect(r.texts()).toEqual(['The ']);
    await jest.advanceTimersByTimeAsync(10); // t = 16: the window ends
    expect(r.texts()).toEqual(['The ', 'answer is 42']);
    expect(r.published[1].at).toBe(16);
    // A delta after a quiet window goes out at once again.
    await jest.advanceTimersByTimeAsync(40);
    await stream.emit(delta('.'));
    expect(r.texts()).toEqual(['The ', 'answer is 42', '.']);
    await stream.settled();
  });

  it('publishes held text before any other event, keeping the order and the exact text', async () => {
    const r = recorder();
    const stream = new TurnEventStream(r.publish, 50, () => Date.now());
    const said = ['Let ', 'me ', 'count', '.'];
    for (const t of said) await stream.emit(delta(t));
    await stream.emit(toolCall);
    await stream.emit(delta('There are '));
    await stream.emit(delta('7.'));
    await stream.settled();
    expect(r.texts()).toEqual(['Let ', 'me count.', '[tool.call]', 'There are ', '7.']);
    await jest.advanceTimersByTimeAsync(100);
    expect(r.published).toHaveLength(5); // no timer fires after settled()
  });

  it('rejects the emits after a publish failed for good, so the runner stops', async () => {
    const stream = new TurnEventStream(
      async () => {
        throw new Error('Redis is gone');
      },
      16,
      () => Date.now(),
    );
    await stream.emit(delta('a')); // queued: its publish fails after
    await expect(stream.settled()).resolves.toBeUndefined();
    await expect(stream.emit(delta('b'))).rejects.toThrow('Redis is gone');
    await expect(stream.emit(toolCall)).rejects.toThrow('Redis is gone');
  });

  it('holds events while a publish waits for Redis, within its bound, then publishes them all in order', async () => {
    const r = recorder();
    let reopen: () => void = () => undefined;
    let down = true;
    const publish = async (event: RunnerEvent) => {
      while (down) await new Promise<void>((resolve) => (reopen = resolve));
      await r.publish(event);
    };
    const stream = new TurnEventStream(publish, 0, () => Date.now(), { events: 3, chars: 1000 });
    // The runner is not held while the buffer has room: 'a' in flight, then b, [tool.call], c.
    for (const e of [delta('a'), delta('b'), toolCall, delta('c')]) await stream.emit(e);
    // Full (3 queued): further deltas join the last queued one instead of waiting.
    await stream.emit(delta('d'));
    await stream.emit(delta('e'));
    // A tool call past the bound waits for room.
    let toolQueued = false;
    const held = stream.emit(toolCall).then(() => (toolQueued = true));
    await jest.advanceTimersByTimeAsync(10);
    expect(toolQueued).toBe(false);
    expect(r.published).toHaveLength(0);
    down = false;
    reopen();
    await held;
    await stream.settled();
    expect(r.texts()).toEqual(['a', 'b', '[tool.call]', 'cde', '[tool.call]']);
  });
});
