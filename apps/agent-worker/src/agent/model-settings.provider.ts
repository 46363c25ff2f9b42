import type { DataSource } from 'typeorm';
import { readModelSettings, type ModelSettings } from '@corpus-chat/persistence';

/**
 * The model settings row, read per turn with a `ttlMs` cache so a change applies without restart.
 * With `ttlMs` 0 each `get` sees a read started after the call, but concurrent callers share the
 * next read: at most two in flight instead of one per turn.
 */
export class ModelSettingsProvider {
  private cached: { at: number; value: Promise<ModelSettings> } | undefined;
  private inFlight: Promise<ModelSettings> | undefined;
  private next: Promise<ModelSettings> | undefined;

  constructor(
    private readonly dataSource: DataSource,
    private readonly ttlMs: number,
  ) {}

  /** The current settings (at most `ttlMs` old). A failed read is not cached; it rejects its callers. */
  get(): Promise<ModelSettings> {
    if (this.ttlMs <= 0) return this.fresh();
    const now = Date.now();
    if (this.cached && now - this.cached.at < this.ttlMs) return this.cached.value;
    const value = readModelSettings(this.dataSource);
    this.cached = { at: now, value };
    value.catch(() => {
      if (this.cached?.value === value) this.cached = undefined;
    });
    return value;
  }

  /** A read that starts now, or right after the one in flight (shared by everyone who waits for it). */
  private fresh(): Promise<ModelSettings> {
    if (!this.inFlight) return this.start();
    this.next ??= this.inFlight.then(
      () => this.start(),
      () => this.start(),
    );
    return this.next;
  }

  private start(): Promise<ModelSettings> {
    const read = readModelSettings(this.dataSource);
    this.inFlight = read;
    this.next = undefined;
    const clear = () => {
      if (this.inFlight === read) this.inFlight = undefined;
    };
    read.then(clear, clear);
    return read;
  }
}
