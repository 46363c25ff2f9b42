import { LRUCache } from 'lru-cache';
import type { DataSource, EntityManager } from 'typeorm';

/** Options every query function accepts. */
export interface QueryOptions {
  /** Serve and store results in the in-process cache (default true). */
  cache?: boolean;
}

const caches = new WeakMap<DataSource, LRUCache<string, { value: unknown }>>();

function cacheFor(ds: DataSource): LRUCache<string, { value: unknown }> {
  let c = caches.get(ds);
  if (!c) {
    c = new LRUCache({ max: 1000 });
    caches.set(ds, c);
  }
  return c;
}

/**
 * The corpus version, `corpus_state.version` plus its last writer's transaction id, so a version
 * reached again after a rollback is still a new key.
 */
export async function corpusVersion(manager: EntityManager): Promise<string> {
  const rows: { version: string; xmin: string }[] = await manager.query(
    `SELECT version::text AS version, xmin::text AS xmin FROM corpus_state WHERE id = 1`,
  );
  return rows.length ? `${rows[0].version}:${rows[0].xmin}` : '0:0';
}

/**
 * Runs `compute` unless the same call was computed at the current corpus version: an in-process
 * LRU per DataSource (1000 entries), deep-copied in and out.
 */
export async function cachedQuery<T>(
  manager: EntityManager,
  fn: string,
  args: unknown,
  options: QueryOptions | undefined,
  compute: () => Promise<T>,
): Promise<T> {
  if (options?.cache === false) return compute();
  const version = await corpusVersion(manager);
  const cache = cacheFor(manager.connection);
  const key = `${version}\u0000${fn}\u0000${JSON.stringify(args)}`;
  const hit = cache.get(key);
  if (hit) return structuredClone(hit.value) as T;
  const value = await compute();
  cache.set(key, { value: structuredClone(value) });
  return value;
}
