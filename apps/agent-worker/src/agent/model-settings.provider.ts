import type { DataSource } from 'typeorm';
import { readModelSettings, type ModelSettings } from '@corpus-chat/corpus-queries';

/**
 * The model settings row as the worker sees it, read per turn with a short cache (`ttlMs`), so an
 * operator's change in Settings applies to the next turns without a restart.
 */
export class ModelSettingsProvider {
  private cached: { at: number; value: Promise<ModelSettings> } | undefined;

  constructor(
    private readonly dataSource: DataSource,
    private readonly ttlMs: number,
  ) {}

  /** The current settings (at most `ttlMs` old). A failed read is not cached. */
  get(): Promise<ModelSettings> {
    const now = Date.now();
    if (this.cached && now - this.cached.at < this.ttlMs) return this.cached.value;
    const value = readModelSettings(this.dataSource);
    this.cached = { at: now, value };
    value.catch(() => {
      if (this.cached?.value === value) this.cached = undefined;
    });
    return value;
  }

  /** Forgets the cached row (the next `get` reads it). */
  invalidate(): void {
    this.cached = undefined;
  }
}
