import type { RunnerEvent } from '@corpus-chat/server-core';

/** How much of a turn waits for Redis before the runner is held back. */
export interface TurnEventBufferLimits {
  /** Queued events; past it, text deltas join the last queued delta and other events wait. */
  events: number;
  /** Queued characters (delta text, other events as JSON); past it, every event waits. */
  chars: number;
}

export const DEFAULT_TURN_EVENT_BUFFER: TurnEventBufferLimits = { events: 1000, chars: 1 << 20 };

const sizeOf = (event: RunnerEvent) =>
  event.type === 'text.delta' ? event.text.length : JSON.stringify(event).length;

/**
 * A turn's runner events on their way to the event bus, published in emitted order. `emit` queues
 * and returns; while Redis is away the queue grows up to `limits` (further deltas join the last),
 * then `emit` waits. With `coalesceMs` > 0 a delta after a quiet window goes out at once and
 * deltas within the window are joined; any other event flushes the joined text first, so the
 * stream's order and text are exact.
 */
export class TurnEventStream {
  private readonly queue: RunnerEvent[] = [];
  private queuedChars = 0;
  private draining: Promise<void> | null = null;
  private readonly waiters = new Set<() => void>();
  private pendingText = '';
  private timer: NodeJS.Timeout | undefined;
  private lastDeltaAt = -Infinity;
  private failure: unknown;

  constructor(
    /** The event bus, retried while Redis is away. */
    private readonly publish: (event: RunnerEvent) => Promise<unknown>,
    private readonly coalesceMs: number,
    private readonly now: () => number = () => performance.now(),
    private readonly limits: TurnEventBufferLimits = DEFAULT_TURN_EVENT_BUFFER,
  ) {}

  /** Queues `event`, resolving when the buffer has room; rejects once a publish failed for good. */
  emit(event: RunnerEvent): Promise<void> {
    if (event.type === 'text.delta' && this.coalesceMs > 0) {
      const now = this.now();
      if (this.timer || now - this.lastDeltaAt < this.coalesceMs) {
        this.pendingText += event.text;
        this.timer ??= setTimeout(
          () => this.flushPending(),
          Math.max(0, this.lastDeltaAt + this.coalesceMs - now),
        );
        return this.failure ? Promise.reject(this.failure) : Promise.resolve();
      }
      this.lastDeltaAt = now;
      return this.enqueue(event);
    }
    this.flushPending();
    // The first delta after a tool call starts a new answer part: it goes out at once too.
    this.lastDeltaAt = -Infinity;
    return this.enqueue(event);
  }

  /**
   * Queues any held text now and resolves once everything queued so far was published or failed
   * (never rejects): the turn then publishes its terminal event after all of it.
   */
  async settled(): Promise<void> {
    this.flushPending();
    while (this.draining) await this.draining;
  }

  private flushPending(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.pendingText) return;
    const text = this.pendingText;
    this.pendingText = '';
    this.lastDeltaAt = this.now();
    // A failure here surfaces through the next emit (the runner awaits those).
    this.enqueue({ type: 'text.delta', text }).catch(() => undefined);
  }

  private enqueue(event: RunnerEvent): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    const last = this.queue.at(-1);
    if (this.queue.length >= this.limits.events && event.type === 'text.delta' && last?.type === 'text.delta')
      this.queue[this.queue.length - 1] = { type: 'text.delta', text: last.text + event.text };
    else this.queue.push(event);
    this.queuedChars += sizeOf(event);
    this.draining ??= this.drain();
    return this.room();
  }

  /** Resolves once the buffer is within its limits; rejects when publishing failed for good. */
  private room(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const check = () => {
        if (this.failure) reject(this.failure);
        else if (this.queue.length > this.limits.events || this.queuedChars > this.limits.chars) return;
        else resolve();
        this.waiters.delete(check);
      };
      this.waiters.add(check);
      check();
    });
  }

  private async drain(): Promise<void> {
    while (this.queue.length && !this.failure) {
      const event = this.queue.shift() as RunnerEvent;
      try {
        await this.publish(event);
        this.queuedChars -= sizeOf(event);
      } catch (e) {
        this.failure = e;
        this.queue.length = 0;
        this.queuedChars = 0;
      }
      for (const check of [...this.waiters]) check();
    }
    this.draining = null;
  }
}
