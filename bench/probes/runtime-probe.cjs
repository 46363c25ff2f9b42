/**
 * Preloaded into a benchmarked process (`node -r bench/probes/runtime-probe.cjs …`) when
 * BENCH_PROBE_PORT is set: measures the event-loop delay with perf_hooks.monitorEventLoopDelay
 * (resolution 10 ms; the resolution is subtracted, so 0 means no lag) and serves, on
 * http://127.0.0.1:$BENCH_PROBE_PORT/, JSON `{ eventLoopLagMs: {p50, p99, max, mean, samples},
 * rssMiB, heapUsedMiB, cpuSeconds }`. `/?reset=1` starts a new measurement window after answering.
 * Not part of the application: nothing is loaded without the flag.
 */
const http = require('node:http');
const { monitorEventLoopDelay } = require('node:perf_hooks');

const { isMainThread } = require('node:worker_threads');

const port = Number(process.env.BENCH_PROBE_PORT || 0);
// Worker threads (the import's parser) inherit the preload: the main thread's loop is what counts.
if (port > 0 && isMainThread) {
  const RESOLUTION_MS = 10;
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  const lag = (ns) => Math.max(0, ns / 1e6 - RESOLUTION_MS);
  const server = http.createServer((req, res) => {
    const usage = process.cpuUsage();
    const mem = process.memoryUsage();
    const body = {
      pid: process.pid,
      eventLoopLagMs: {
        p50: lag(histogram.percentile(50)),
        p99: lag(histogram.percentile(99)),
        max: lag(histogram.max),
        mean: lag(histogram.mean),
        samples: histogram.count,
      },
      rssMiB: mem.rss / 2 ** 20,
      heapUsedMiB: mem.heapUsed / 2 ** 20,
      cpuSeconds: (usage.user + usage.system) / 1e6,
    };
    if ((req.url || '').includes('reset=1')) histogram.reset();
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  });
  server.listen(port, '127.0.0.1');
  server.unref();
}
