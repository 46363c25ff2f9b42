import type { RunnerEvent } from '@corpus-chat/server-core';

/** Publishes one event of the turn (the event bus). */
export type PublishRunnerEvent = (event: RunnerEvent) => Promise<unknown>;

/**
 * A turn's runner events on their way to the event bus: published one after the other in the
 * order they were emitted, with text deltas coalesced when `coalesceMs` > 0.
 *
 * Coalescing (`TEXT_DELTA_COALESCE_MS`): a text delta arriving when no delta was published during
 * the last `coalesceMs` goes out at once (so the first token of an answer is not delayed); deltas
 * arriving within the window are joined and published as one delta when the window ends. Any
 * other event (a tool call, the end of the turn) first publishes the joined text (and the delta
 * after it goes out at once again), so the order of
 * the stream is kept and the joined texts concatenate to exactly what the runner said. A model
 * streaming 100 tokens a second then costs about 1000 / `coalesceMs` publishes a second instead
 * of 100, each token waiting at most `coalesceMs`.
 */
export class TurnEventStream {
  private chain: Promise<unknown> = Promise.resolve();
  private pendingText = '';
  private timer: NodeJS.Timeout | undefined;
  private lastDeltaAt = -Infinity;
  private failure: unknown;

  constructor(
    private readonly publish: PublishRunnerEvent,
    private readonly coalesceMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /**
   * Queues `event`. Resolves once it is published; a text delta held for coalescing resolves at
   * once (it is published with the next ones). Rejects when this event's publish failed, or for a
   * held delta when an earlier publish failed, so a runner stops when Redis is gone.
   */
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
   * Publishes any held text now and resolves once everything queued so far was published or
   * failed (never rejects): the turn then publishes its terminal event after all of it.
   */
  async settled(): Promise<void> {
    this.flushPending();
    await this.chain;
  }

  private flushPending(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (!this.pendingText) return;
    const text = this.pendingText;
    this.pendingText = '';
    this.lastDeltaAt = this.now();
    // A failure here surfaces through the next emit (the runner awaits those).
    this.enqueue({ type: 'text.delta', text }).catch(() => undefined);
  }

  private enqueue(event: RunnerEvent): Promise<void> {
    const next = this.chain.then(() => this.publish(event));
    this.chain = next.catch((e: unknown) => {
      this.failure ??= e;
    });
    return next.then(() => undefined);
  }
}
