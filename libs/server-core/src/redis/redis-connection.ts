import { Logger } from '@nestjs/common';
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { metrics } from '../metrics/metrics';

/** A connection to one Redis, or to a Redis Cluster (`REDIS_CLUSTER_NODES`). */
export type RedisClient = Redis | Cluster;

/**
 * Where Redis is: a `redis://` URL, or a process's settings, whose `REDIS_CLUSTER_NODES` (when not
 * empty) makes every connection a Redis Cluster client seeded with those `host:port` nodes.
 */
export type RedisTarget = string | { REDIS_URL: string; REDIS_CLUSTER_NODES?: string };

/** The seed nodes of `REDIS_CLUSTER_NODES` (`host:port,host:port`); empty for a single Redis. */
export function clusterNodes(target: RedisTarget): { host: string; port: number }[] {
  const list = typeof target === 'string' ? '' : (target.REDIS_CLUSTER_NODES ?? '');
  return list
    .split(',')
    .map((node) => node.trim())
    .filter(Boolean)
    .map((node) => {
      const at = node.lastIndexOf(':');
      return { host: node.slice(0, at), port: Number(node.slice(at + 1)) };
    });
}

/** The `REDIS_URL` of `target`. */
export const redisUrl = (target: RedisTarget): string =>
  typeof target === 'string' ? target : target.REDIS_URL;

/** How a connection is used; decides how it behaves while Redis is unreachable. */
export type RedisConnectionRole =
  /** Request-path commands (API): fail at once while disconnected so the caller can answer 503. */
  | 'fail-fast'
  /** Background commands (worker): queue while disconnected and retry a few times. */
  | 'patient'
  /** Pub/sub subscriber: queues SUBSCRIBE while disconnected; ioredis re-subscribes on reconnect. */
  | 'subscriber';

/**
 * ioredis options parsed from a `redis://[user:pass@]host:port[/db]` (or `rediss://`) URL, for
 * BullMQ's `connection` (BullMQ creates and owns its connections from these).
 */
export function redisOptionsFromUrl(url: string): RedisOptions {
  const u = new URL(url);
  const db = u.pathname && u.pathname !== '/' ? Number(u.pathname.slice(1)) : 0;
  return {
    host: u.hostname,
    port: u.port ? Number(u.port) : 6379,
    username: u.username ? decodeURIComponent(u.username) : undefined,
    password: u.password ? decodeURIComponent(u.password) : undefined,
    db: Number.isFinite(db) ? db : 0,
    tls: u.protocol === 'rediss:' ? {} : undefined,
    // Reconnect quickly after a Redis restart: 100 ms, 200 ms … capped at 2 s, forever.
    retryStrategy: (times: number) => Math.min(times * 100, 2000),
  };
}

const lastWarned = new Map<string, number>();

/** Further choices for `createRedisConnection`. */
export interface RedisConnectionOptions {
  /** ioredis `enableAutoPipelining`: commands of one tick go out in one write, for busy workers. */
  autoPipelining?: boolean;
  /** ioredis `commandTimeout`: a hung Redis cannot hold a request. Not for subscribers or blocking reads. */
  commandTimeoutMs?: number;
}

/** An ioredis connection named `name`; errors are logged (≤ one warning per 10 s) while it reconnects. */
export function createRedisConnection(
  target: RedisTarget,
  name: string,
  role: RedisConnectionRole,
  extra: RedisConnectionOptions = {},
): RedisClient {
  const logger = new Logger(`Redis:${name}`);
  const { retryStrategy, ...node } = redisOptionsFromUrl(redisUrl(target));
  const behaviour =
    role === 'fail-fast'
      ? { enableOfflineQueue: false, maxRetriesPerRequest: 1 }
      : role === 'patient'
        ? { enableOfflineQueue: true, maxRetriesPerRequest: 5 }
        : { enableOfflineQueue: true, maxRetriesPerRequest: null };
  const options: RedisOptions = {
    ...node,
    connectionName: name.replace(/[^a-zA-Z0-9:_-]/g, '_'),
    lazyConnect: false,
    ...behaviour,
    ...(extra.commandTimeoutMs ? { commandTimeout: extra.commandTimeoutMs } : {}),
  };
  const seeds = clusterNodes(target);
  // A cluster has no databases (`db` is dropped) and one offline queue of its own; the other
  // options (name, password, TLS, retries, timeout) go to every node.
  const { host: _host, port: _port, db: _db, enableOfflineQueue: _queue, ...perNode } = options;
  const redis: RedisClient = seeds.length
    ? new Cluster(seeds, {
        redisOptions: perNode,
        enableOfflineQueue: behaviour.enableOfflineQueue,
        clusterRetryStrategy: retryStrategy,
        enableAutoPipelining: extra.autoPipelining ?? false,
      })
    : new Redis({ ...options, retryStrategy, enableAutoPipelining: extra.autoPipelining ?? false });
  redis.on('error', (err: Error) => {
    metrics.redisErrors.inc();
    const now = Date.now();
    if (now - (lastWarned.get(name) ?? 0) < 10_000) return;
    lastWarned.set(name, now);
    logger.warn(`Redis connection problem (reconnecting): ${err.message}`);
  });
  return redis;
}

/**
 * Resolves with `promise` or rejects after `ms` with an Error naming `what`; used to bound Redis
 * calls on the request path.
 */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Resolves once `redis` is connected, or after `ms` without throwing (returns whether it is ready).
 * A `fail-fast` connection rejects commands until then, so request paths wait for it at start.
 */
export async function waitUntilReady(redis: RedisClient, ms: number): Promise<boolean> {
  if (redis.status === 'ready') return true;
  return new Promise<boolean>((resolve) => {
    const done = (ok: boolean) => {
      clearTimeout(timer);
      redis.off('ready', onReady);
      resolve(ok);
    };
    const onReady = () => done(true);
    const timer = setTimeout(() => done(false), ms);
    redis.on('ready', onReady);
  });
}

/** Closes a connection: QUIT when connected (pending replies arrive first), then drops the socket. Never throws. */
export async function closeRedis(redis: RedisClient): Promise<void> {
  if (redis.status === 'end') return;
  if (redis.status === 'ready') {
    await withTimeout(redis.quit(), 1000, 'QUIT').catch(() => undefined);
  }
  // Destroy the socket now rather than when the server closes it, so the process can exit.
  redis.disconnect();
}

/**
 * Lets connecting BullMQ queues and workers finish (≤ `ms`) before Nest closes them: closing mid-
 * connect throws an unhandled `error` (taskforcesh/bullmq#3546). Never rejects.
 */
export async function settleBullConnections(
  items: { waitUntilReady(): Promise<unknown> }[],
  ms: number,
): Promise<void> {
  await withTimeout(Promise.all(items.map((item) => item.waitUntilReady())), ms, 'BullMQ connect').catch(
    () => undefined,
  );
}
