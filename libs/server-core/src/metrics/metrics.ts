import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Queue } from 'bullmq';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The process's Prometheus metrics (`prom-client`), served at `GET /metrics` on `METRICS_PORT`
 * (off by default, and never on the public API port). Labels stay within small fixed sets: queue
 * and state names, tool names, outcomes; never a thread, turn or operator id.
 *
 * Default Node.js metrics come with it, among them `nodejs_eventloop_lag_p99_seconds` and
 * `process_resident_memory_bytes`.
 */
export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry, eventLoopMonitoringPrecision: 10 });

const registers = [metricsRegistry];
/** Seconds, from 5 ms to 10 minutes (a local model's turn can take minutes). */
const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

export const metrics = {
  turnWait: new Histogram({
    name: 'corpus_chat_turn_wait_seconds',
    help: 'Time a turn job waited in the queue before a worker took it.',
    buckets: SECONDS,
    registers,
  }),
  turnDuration: new Histogram({
    name: 'corpus_chat_turn_duration_seconds',
    help: 'Time a worker spent on a turn, by outcome (complete, cancelled, error).',
    labelNames: ['outcome'] as const,
    buckets: SECONDS,
    registers,
  }),
  modelFirstToken: new Histogram({
    name: 'corpus_chat_model_first_token_seconds',
    help: 'Time from a model request to its first streamed chunk.',
    buckets: SECONDS,
    registers,
  }),
  modelTokensPerSecond: new Histogram({
    name: 'corpus_chat_model_tokens_per_second',
    help: "Completion tokens per second of a model request's stream, after its first chunk.",
    buckets: [1, 2, 5, 10, 20, 40, 80, 160, 320],
    registers,
  }),
  toolQuery: new Histogram({
    name: 'corpus_chat_tool_query_seconds',
    help: 'Time of one corpus tool call, by tool and outcome (ok, error).',
    labelNames: ['tool', 'outcome'] as const,
    buckets: SECONDS,
    registers,
  }),
  importDuration: new Histogram({
    name: 'corpus_chat_import_duration_seconds',
    help: 'Time a worker spent on one report import job, by its final status.',
    labelNames: ['status'] as const,
    buckets: SECONDS,
    registers,
  }),
  importBytes: new Histogram({
    name: 'corpus_chat_import_bytes',
    help: 'Size of the report files imported.',
    buckets: [1e3, 1e4, 1e5, 1e6, 1e7, 5e7, 1e8],
    registers,
  }),
  redisErrors: new Counter({
    name: 'corpus_chat_redis_errors_total',
    help: 'Errors reported by this process’s Redis connections.',
    registers,
  }),
  postgresErrors: new Counter({
    name: 'corpus_chat_postgres_errors_total',
    help: 'Postgres found unreachable (connection refused, lost or not handed out in time).',
    registers,
  }),
};

/** The BullMQ job states reported per queue. */
const QUEUE_STATES = ['waiting', 'paused', 'prioritized', 'delayed', 'active', 'failed'] as const;

const watched = new Set<Queue>();
new Gauge({
  name: 'corpus_chat_queue_jobs',
  help: 'BullMQ jobs per queue and state, read from Redis at scrape time.',
  labelNames: ['queue', 'state'] as const,
  registers,
  async collect() {
    for (const queue of watched) {
      // Redis down: the gauge keeps its last values rather than failing the whole scrape.
      const counts = await queue.getJobCounts(...QUEUE_STATES).catch(() => null);
      if (!counts) continue;
      for (const state of QUEUE_STATES) this.set({ queue: queue.name, state }, counts[state] ?? 0);
    }
  },
});

/**
 * Reports the job counts of `queues` (`corpus_chat_queue_jobs{queue,state}`) at each scrape, until
 * the returned function is called.
 */
export function watchQueues(queues: Queue[]): () => void {
  for (const q of queues) watched.add(q);
  return () => queues.forEach((q) => watched.delete(q));
}

const socketCounts = new Set<() => number>();
new Gauge({
  name: 'corpus_chat_sockets',
  help: 'Chat sockets connected to this API instance.',
  registers,
  collect() {
    this.set([...socketCounts].reduce((n, count) => n + count(), 0));
  },
});

/** Reports `count()` (a namespace's connected sockets) in `corpus_chat_sockets` until the returned function is called. */
export function observeSockets(count: () => number): () => void {
  socketCounts.add(count);
  return () => socketCounts.delete(count);
}

/** Seconds since `startMs` (a `performance.now()` or `Date.now()` reading of the same clock). */
export const secondsSince = (startMs: number, now = performance.now()): number => (now - startMs) / 1000;

/**
 * Serves `GET /metrics` on `port` (0: any free port), apart from the public HTTP server so that
 * metrics are never exposed through the API's ingress. Resolves with the server once listening.
 */
export function serveMetrics(port: number, host = '0.0.0.0'): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res.writeHead(404).end();
      return;
    }
    metricsRegistry.metrics().then(
      (body) => res.writeHead(200, { 'Content-Type': metricsRegistry.contentType }).end(body),
      (e: Error) => res.writeHead(500).end(e.message),
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

/** The port a `serveMetrics` server listens on. */
export const metricsPort = (server: http.Server): number => (server.address() as AddressInfo).port;
