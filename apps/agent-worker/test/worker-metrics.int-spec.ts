/**
 * The worker's Prometheus metrics on `METRICS_PORT`: queue depth read from Redis at scrape time,
 * and the turn histograms counting what the worker ran (real Postgres, Redis and BullMQ).
 */
import { MetricsServer } from '@corpus-chat/server-core';
import { scriptedMessage } from './support/scripted-runner';
import { TurnTestBed } from './support/turn-test-bed';
import { type RunningWorker, startWorker } from './support/worker-harness';

jest.setTimeout(40_000);

/** The value of one sample line (`name{labels} value`) of a scrape, 0 when absent. */
function sample(text: string, name: string, labels = ''): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels ? `{${labels}}` : ''} `));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

describe('worker metrics', () => {
  let bed: TurnTestBed;
  let worker: RunningWorker;
  let url: string;
  const scrape = async () => {
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    return res.text();
  };

  beforeAll(async () => {
    bed = await TurnTestBed.create();
    worker = await startWorker({
      databaseUrl: bed.databaseUrl,
      redisPrefix: bed.prefix,
      env: { METRICS_PORT: '0' },
    });
    url = `http://127.0.0.1:${worker.app.get(MetricsServer).port}/metrics`;
  });
  afterAll(async () => {
    await worker.close();
    await bed.close();
  });

  it('shows waiting turns in the queue, then counts the turns run and their wait', async () => {
    const before = await scrape();
    const depth = (text: string) =>
      sample(text, 'corpus_chat_queue_jobs', 'queue="chat-turns",state="waiting"') +
      sample(text, 'corpus_chat_queue_jobs', 'queue="chat-turns",state="paused"');
    await bed.queue.pause();
    // One running turn per thread: two threads.
    const turns = [
      await bed.enqueue(await bed.newChat(), scriptedMessage({ deltas: ['one'] })),
      await bed.enqueue(await bed.newChat(), scriptedMessage({ deltas: ['two'] })),
    ];
    expect(depth(await scrape())).toBe(2);

    await bed.queue.resume();
    for (const { turnId } of turns) await bed.waitForEvent(turnId, 'turn.done');
    const after = await scrape();
    expect(depth(after)).toBe(0);
    const count = (text: string, name: string, labels = '') => sample(text, `${name}_count`, labels);
    expect(
      count(after, 'corpus_chat_turn_duration_seconds', 'outcome="complete"') -
        count(before, 'corpus_chat_turn_duration_seconds', 'outcome="complete"'),
    ).toBe(2);
    expect(
      count(after, 'corpus_chat_turn_wait_seconds') - count(before, 'corpus_chat_turn_wait_seconds'),
    ).toBe(2);
    expect(after).toMatch(/^nodejs_eventloop_lag_p99_seconds \d/m);
  });

  it('serves nothing but /metrics', async () => {
    expect((await fetch(url.replace('/metrics', '/'))).status).toBe(404);
  });
});
