/**
 * A worker's Prometheus `/metrics` (`METRICS_PORT`) against the benchmark's own counts, so
 * docs/benchmarks.md can say how far what a dashboard shows is from what happened.
 */
export async function scrapeMetrics(port: number): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${port}/metrics`);
  if (!res.ok) throw new Error(`GET /metrics on port ${port}: HTTP ${res.status}`);
  return res.text();
}

/** The sum of `name`'s samples whose labels include every pair of `labels` (0 when none). */
export function metricSum(text: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    if (Object.entries(labels).every(([k, v]) => (m[2] ?? '').includes(`${k}="${v}"`))) sum += Number(m[3]);
  }
  return sum;
}

export interface MetricsAgreement {
  /** Readings, one a second while the turns ran, of queue depth beside the turns not yet ended. */
  samples: number;
  /** The reading where `corpus_chat_queue_jobs` (chat-turns, not failed) and Postgres differed most. */
  widest: { depth: number; open: number };
  /** The median of |depth − open| over the readings. */
  medianGap: number;
  /**
   * Turns `corpus_chat_turn_duration_seconds` counted when Postgres had all ended, and once the
   * jobs completed.
   */
  countedAtEnd: number;
  counted: number;
  turns: number;
}

const DURATION_COUNT = 'corpus_chat_turn_duration_seconds_count';
const DEPTH_STATES = ['waiting', 'prioritized', 'delayed', 'active', 'paused'];

/** Reads a worker's metrics beside the bench's counts while one batch of turns runs. */
export class MetricsWatch {
  private readonly readings: { depth: number; open: number }[] = [];
  private timer: NodeJS.Timeout | undefined;

  private constructor(
    private readonly port: number,
    private readonly before: number,
  ) {}

  /**
   * Call before the jobs are added: reads the count the batch's turns will add to, once the turns
   * before them are counted (`queueIdle`: their jobs completed).
   */
  static async start(port: number, queueIdle: () => Promise<boolean>): Promise<MetricsWatch> {
    await untilIdle(queueIdle);
    return new MetricsWatch(port, metricSum(await scrapeMetrics(port), DURATION_COUNT));
  }

  /** Call once every job is added; `openTurns` counts the batch's turns still queued or running. */
  follow(openTurns: () => Promise<number>): void {
    this.timer = setInterval(() => {
      void Promise.all([scrapeMetrics(this.port), openTurns()])
        .then(([text, open]) => {
          const depth = DEPTH_STATES.map((state) =>
            metricSum(text, 'corpus_chat_queue_jobs', { queue: 'chat-turns', state }),
          ).reduce((a, b) => a + b, 0);
          this.readings.push({ depth, open });
        })
        .catch(() => undefined);
    }, 1000);
  }

  /**
   * Call once Postgres has every turn ended. The worker counts a turn after publishing its end, so
   * the count is read then and again once `queueIdle`.
   */
  async stop(turns: number, queueIdle: () => Promise<boolean>): Promise<MetricsAgreement> {
    clearInterval(this.timer);
    const counted = async () => metricSum(await scrapeMetrics(this.port), DURATION_COUNT) - this.before;
    const countedAtEnd = await counted();
    await untilIdle(queueIdle);
    const gap = (r: { depth: number; open: number }) => Math.abs(r.depth - r.open);
    const widest = this.readings.reduce((w, r) => (gap(r) > gap(w) ? r : w), { depth: 0, open: 0 });
    const gaps = this.readings.map(gap).sort((a, b) => a - b);
    const medianGap = gaps[Math.floor(gaps.length / 2)] ?? NaN;
    return {
      samples: this.readings.length,
      widest,
      medianGap,
      countedAtEnd,
      counted: await counted(),
      turns,
    };
  }
}

/** Waits (at most 60 s) until the worker's jobs have completed: it counts a turn just before. */
async function untilIdle(queueIdle: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 600 && !(await queueIdle()); i++) await new Promise((r) => setTimeout(r, 100));
}
