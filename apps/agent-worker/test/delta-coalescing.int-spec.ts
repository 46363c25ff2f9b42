import type { ChatEventOf } from '@corpus-chat/contracts';
import { scriptedMessage } from './support/scripted-runner';
import { expectGapFree, TurnTestBed } from './support/turn-test-bed';
import { type RunningWorker, startWorker } from './support/worker-harness';

jest.setTimeout(40_000);

describe('agent-worker with TEXT_DELTA_COALESCE_MS (real Postgres, Redis, BullMQ)', () => {
  let bed: TurnTestBed;
  let worker: RunningWorker | undefined;

  beforeAll(async () => {
    bed = await TurnTestBed.create();
  });
  afterEach(async () => {
    await worker?.close();
    worker = undefined;
  });
  afterAll(() => bed.close());

  it('publishes fewer, joined text deltas that add up to the stored answer, gap-free, tool events in place', async () => {
    worker = await startWorker({
      databaseUrl: bed.databaseUrl,
      redisPrefix: bed.prefix,
      env: { TEXT_DELTA_COALESCE_MS: '1000' },
    });
    const thread = await bed.newChat();
    const { turnId } = await bed.enqueue(thread, scriptedMessage({ tool: true, deltaCount: 40, deltaMs: 1 }));
    await bed.waitForEvent(turnId, 'turn.done');
    const events = bed.events(turnId);
    expectGapFree(events);
    const deltas = events.filter((e): e is ChatEventOf<'text.delta'> => e.type === 'text.delta');
    // 40 deltas 1 ms apart in 1 s windows: the first alone, then the rest joined. The window is
    // wide so a loaded host (timers late by seconds) still joins them: at most one per window.
    expect(deltas.length).toBeGreaterThanOrEqual(2);
    expect(deltas.length).toBeLessThanOrEqual(20);
    const expected = Array.from({ length: 40 }, (_, i) => `w${i + 1} `).join('');
    expect(deltas.map((d) => d.text).join('')).toBe(expected);
    expect(deltas[0].text).toBe('w1 ');
    expect(events.map((e) => e.type).slice(0, 4)).toEqual([
      'turn.queued',
      'turn.started',
      'tool.call',
      'tool.result',
    ]);
    expect(events.at(-1)?.type).toBe('turn.done');
    const [answer] = await bed.assistantMessages(turnId);
    expect(answer.content).toBe(expected);
  });
});
