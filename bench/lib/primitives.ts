import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import pg from 'pg';
import { Server } from 'socket.io';
import { io as connectClient } from 'socket.io-client';
import { redisOptionsFromUrl } from '@corpus-chat/server-core';
import { poolFor } from './api-client';
import type { BenchStack } from './stack';
import { nowMs, summarize, type Summary } from './stats';

/**
 * The bare primitives a figure is made of, timed in the same run (ms, after a warm-up): `bullmq`
 * add → processor start, `socket` PUBLISH → client, `postgres` a count, `commit` one insert, `http`
 * a message-sized POST no route takes.
 */
export interface Primitives {
  bullmq?: Summary;
  socket?: Summary;
  postgres?: Summary;
  commit?: Summary;
  http?: Summary;
}
export type PrimitiveName = keyof Primitives;

export const PRIMITIVE_LABELS: Record<PrimitiveName, string> = {
  bullmq: 'BullMQ add → process',
  socket: 'Redis publish → Socket.IO client',
  postgres: 'Postgres count(*)',
  commit: 'Postgres insert + commit',
  http: 'HTTP POST round trip',
};

type Target = Pick<BenchStack, 'redisUrl' | 'redisPrefix' | 'databaseUrl'>;

/** Times each primitive `n` times (after `n / 10` untimed); resolves with their summaries. */
export async function measurePrimitives(target: Target, n = 200): Promise<Primitives> {
  return {
    bullmq: await timeBullmq(target, n),
    socket: await timeSocket(target, n),
    postgres: await timePostgres(target, n, 'SELECT count(*) FROM findings'),
    commit: await timePostgres(target, n, 'INSERT INTO bench_commit (at) VALUES (now())', [
      'CREATE TABLE IF NOT EXISTS bench_commit (id bigserial PRIMARY KEY, at timestamptz NOT NULL)',
    ]),
  };
}

/** A POST round trip to the API at `baseUrl` answered by its 404 (see `Primitives.http`). */
export function timeHttpPost(baseUrl: string, n = 200): Promise<Summary> {
  const body = JSON.stringify({ content: 'How many findings are there?', clientMessageId: randomUUID() });
  return timed(n, async () => {
    const t0 = nowMs();
    const res = await poolFor(baseUrl).request({
      path: '/api/bench-primitive',
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-requested-with': 'XMLHttpRequest' },
      body,
    });
    await res.body.text();
    return nowMs() - t0;
  });
}

async function timed(n: number, once: () => Promise<number>): Promise<Summary> {
  for (let i = 0; i < Math.ceil(n / 10); i++) await once();
  const samples: number[] = [];
  for (let i = 0; i < n; i++) samples.push(await once());
  return summarize(samples);
}

async function timeBullmq(t: Target, n: number): Promise<Summary> {
  const connection = redisOptionsFromUrl(t.redisUrl);
  const prefix = `${t.redisPrefix}:primitive`;
  const queue = new Queue('primitive', { connection, prefix });
  let arrived: ((ms: number) => void) | undefined;
  const worker = new Worker(
    'primitive',
    async (job) => arrived?.(nowMs() - (job.data as { t0: number }).t0),
    { connection, prefix, concurrency: 1 },
  );
  try {
    await worker.waitUntilReady();
    return await timed(n, () => {
      const done = new Promise<number>((resolve) => (arrived = resolve));
      void queue.add('p', { t0: nowMs() }, { removeOnComplete: true });
      return done;
    });
  } finally {
    await worker.close();
    await queue.obliterate({ force: true }).catch(() => undefined);
    await queue.close();
  }
}

async function timeSocket(t: Target, n: number): Promise<Summary> {
  const channel = `${t.redisPrefix}:primitive`;
  const publisher = new Redis(t.redisUrl);
  const subscriber = new Redis(t.redisUrl);
  const server = http.createServer();
  const ioServer = new Server(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  await subscriber.subscribe(channel);
  subscriber.on('message', (_channel, message) => ioServer.emit('m', message));
  const client = connectClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, {
    transports: ['websocket'],
  });
  try {
    await new Promise<void>((resolve, reject) => {
      client.once('connect', resolve);
      client.once('connect_error', reject);
    });
    let seq = 0;
    return await timed(n, () => {
      const id = String(++seq);
      const t0 = nowMs();
      const done = new Promise<number>((resolve) => {
        const on = (m: string) => {
          if (m !== id) return;
          client.off('m', on);
          resolve(nowMs() - t0);
        };
        client.on('m', on);
      });
      void publisher.publish(channel, id);
      return done;
    });
  } finally {
    client.close();
    await new Promise<void>((resolve) => ioServer.close(() => resolve()));
    subscriber.disconnect();
    publisher.disconnect();
  }
}

async function timePostgres(t: Target, n: number, sql: string, setup: string[] = []): Promise<Summary> {
  const client = new pg.Client({ connectionString: t.databaseUrl });
  await client.connect();
  try {
    for (const s of setup) await client.query(s);
    return await timed(n, async () => {
      const t0 = nowMs();
      await client.query(sql);
      return nowMs() - t0;
    });
  } finally {
    await client.end();
  }
}
