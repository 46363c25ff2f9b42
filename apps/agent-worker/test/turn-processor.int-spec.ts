import type { ChatEventOf } from '@corpus-chat/contracts';
import { scriptedMessage, ScriptedAgentRunner } from './support/scripted-runner';
import { expectGapFree, TurnTestBed } from './support/turn-test-bed';
import { type RunningWorker, startWorker } from './support/worker-harness';

jest.setTimeout(40_000);

/** Resolves once `check` holds (polled every 20 ms); rejects naming `what` after `ms`. */
async function until(check: () => boolean | Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('agent-worker turn processing (real Postgres, Redis, BullMQ)', () => {
  let bed: TurnTestBed;
  const workers: RunningWorker[] = [];
  const start = async (env: Record<string, string> = {}, runner?: ScriptedAgentRunner) => {
    const w = await startWorker({ databaseUrl: bed.databaseUrl, redisPrefix: bed.prefix, env, runner });
    workers.push(w);
    return w;
  };

  beforeAll(async () => {
    bed = await TurnTestBed.create();
  });
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((w) => w.close()));
  });
  afterAll(() => bed.close());

  it('runs a turn: started → tool events → deltas → done, gap-free, and stores one answer with its tool calls', async () => {
    const worker = await start();
    const thread = await bed.newChat();
    const { turnId } = await bed.enqueue(
      thread,
      scriptedMessage({ tool: true, deltas: ['There ', 'are ', '7.'] }),
    );
    const done = (await bed.waitForEvent(turnId, 'turn.done')) as ChatEventOf<'turn.done'>;
    const events = bed.events(turnId);
    expectGapFree(events);
    expect(events.map((e) => e.type)).toEqual([
      'turn.queued',
      'turn.started',
      'tool.call',
      'tool.result',
      'text.delta',
      'text.delta',
      'text.delta',
      'turn.done',
    ]);
    expect(events[1]).toMatchObject({ workerId: worker.workerId, attempt: 1 });
    const [answer] = await bed.assistantMessages(turnId);
    expect(answer).toMatchObject({ id: done.messageId, content: 'There are 7.', status: 'complete' });
    expect(answer.metadata).toMatchObject({
      toolCalls: [{ name: 'count_findings_by', ok: true, summary: '3 groups' }],
      model: 'scripted',
    });
    expect((await bed.queue.getJob(turnId))?.returnvalue).toEqual({
      messageId: done.messageId,
      status: 'complete',
    });
    // The next turn sees the first one as history.
    const second = await bed.enqueue(thread, scriptedMessage({}, 'and how many are high?'));
    await bed.waitForEvent(second.turnId, 'turn.done');
    const run = worker.runner.runs.find((r) => r.turnId === second.turnId)!;
    expect(run.history.map((h) => [h.role, h.status])).toEqual([
      ['user', 'complete'],
      ['assistant', 'complete'],
    ]);
    // Of an answer's metadata the history carries only the follow-up state; its tool calls
    // (stored, as checked above) stay in the database.
    expect(run.history[1].metadata).not.toHaveProperty('toolCalls');
    expect(run.history[1].metadata).not.toHaveProperty('model');
  });

  it("refuses a job whose owner is not the thread's: turn.error FORBIDDEN, the agent never runs", async () => {
    const worker = await start();
    const thread = await bed.newChat();
    const { turnId } = await bed.enqueue(thread, scriptedMessage({}), {
      jobOwnerId: await bed.newOperator(),
    });
    const error = (await bed.waitForEvent(turnId)) as ChatEventOf<'turn.error'>;
    expect(error).toMatchObject({ type: 'turn.error', code: 'FORBIDDEN' });
    expect(worker.runner.runs).toHaveLength(0);
    expect(await bed.assistantMessages(turnId)).toHaveLength(0);
    expect(await bed.ledger.status(turnId)).toBe('error');
  });

  it('ends a turn over its time limit with TIMEOUT, keeps the partial text, and does not retry it', async () => {
    const worker = await start({ TURN_TIMEOUT_MS: '400' });
    const thread = await bed.newChat();
    const { turnId } = await bed.enqueue(thread, scriptedMessage({ deltaCount: 40, deltaMs: 50 }));
    const error = (await bed.waitForEvent(turnId)) as ChatEventOf<'turn.error'>;
    expect(error).toMatchObject({ type: 'turn.error', code: 'TIMEOUT' });
    expect(error.message).toMatch(/longer than the limit/);
    const [answer] = await bed.assistantMessages(turnId);
    expect(answer.status).toBe('error');
    expect(answer.content).toMatch(/^w1 w2 /);
    expect(answer.metadata).toMatchObject({ error: { code: 'TIMEOUT' } });
    // Failed for good: BullMQ runs a failed job no more, so one run is all there will be.
    await until(async () => (await bed.queue.getJobState(turnId)) === 'failed', 'the job failed');
    expect(worker.runner.runs).toHaveLength(1);
  });

  it('retries a retryable failure as attempt 2, and gives up with a readable turn.error after the last attempt', async () => {
    const worker = await start();
    const thread = await bed.newChat();
    const retried = await bed.enqueue(thread, scriptedMessage({ failAttempts: 1, deltas: ['ok'] }));
    await bed.waitForEvent(retried.turnId, 'turn.done');
    const started = bed.events(retried.turnId).filter((e) => e.type === 'turn.started');
    expect(started.map((e) => (e as ChatEventOf<'turn.started'>).attempt)).toEqual([1, 2]);
    expectGapFree(bed.events(retried.turnId));

    const failing = await bed.enqueue(thread, scriptedMessage({ failAttempts: 9, deltas: ['partial'] }));
    const error = (await bed.waitForEvent(failing.turnId)) as ChatEventOf<'turn.error'>;
    expect(error).toMatchObject({
      code: 'MODEL_UNAVAILABLE',
      message: 'The model server did not answer (scripted).',
    });
    expect(worker.runner.runs.filter((r) => r.turnId === failing.turnId)).toHaveLength(2);
    const answers = await bed.assistantMessages(failing.turnId);
    expect(answers).toHaveLength(1);
    expect(answers[0]).toMatchObject({ status: 'error', content: 'partial' });
  });

  it('cancels a running turn within a second even when the agent ignores the signal, storing the partial text', async () => {
    const worker = await start({ WORKER_CONCURRENCY: '1' });
    const thread = await bed.newChat();
    const { turnId } = await bed.enqueue(
      thread,
      scriptedMessage({ deltaCount: 100, deltaMs: 50, ignoreAbort: true }),
    );
    await bed.waitForEvent(turnId, 'text.delta');
    await bed.cancels.request(turnId);
    const cancelled = (await bed.waitForEvent(turnId)) as ChatEventOf<'turn.cancelled'>;
    expect(cancelled.type).toBe('turn.cancelled');
    // The worker did not wait for the agent: its run (5 s of deltas) is still going.
    expect(worker.runner.runs[0].endedAt).toBeUndefined();
    // The worker (concurrency 1) takes the next job at once.
    const next = await bed.enqueue(thread, scriptedMessage({ deltas: ['next'] }));
    await bed.waitForEvent(next.turnId, 'turn.started', 1000);
    const [answer] = await bed.assistantMessages(turnId);
    expect(answer).toMatchObject({ id: cancelled.messageId, status: 'cancelled' });
    expect(answer.content).toMatch(/^w1 /);
    // Once the ignoring agent has emitted its last delta, none of its late deltas was published.
    await until(() => worker.runner.runs[0].endedAt !== undefined, 'the ignoring agent finished', 15_000);
    expect(bed.events(turnId).at(-1)!.type).toBe('turn.cancelled');
    expectGapFree(bed.events(turnId));
    expect(worker.runner.runs[0].turnId).toBe(turnId);
  });

  it('with a 2 s lock and a 10 s turn, exactly one of two workers runs it (the lock is renewed)', async () => {
    const lockEnv = { LOCK_DURATION_MS: '2000', STALLED_INTERVAL_MS: '1000' };
    const a = await start(lockEnv);
    const b = await start(lockEnv);
    const thread = await bed.newChat();
    const { turnId } = await bed.enqueue(thread, scriptedMessage({ deltaCount: 20, deltaMs: 500 }));
    await bed.waitForEvent(turnId, 'turn.done', 20_000);
    const runs = [...a.runner.runs, ...b.runner.runs].filter((r) => r.turnId === turnId);
    expect(runs).toHaveLength(1);
    expect(runs[0].endedAt! - runs[0].startedAt).toBeGreaterThanOrEqual(10_000);
    expect(bed.events(turnId).filter((e) => e.type === 'turn.started')).toHaveLength(1);
    expect(await bed.assistantMessages(turnId)).toHaveLength(1);
  });

  it('on shutdown lets a running turn finish; past the shutdown timeout hands it to another worker as attempt 2', async () => {
    const patient = await start({ SHUTDOWN_TIMEOUT_MS: '5000' });
    const thread = await bed.newChat();
    const graceful = await bed.enqueue(thread, scriptedMessage({ deltaCount: 8, deltaMs: 100 }));
    await bed.waitForEvent(graceful.turnId, 'text.delta');
    await patient.close();
    workers.splice(workers.indexOf(patient), 1);
    expect(bed.events(graceful.turnId).at(-1)!.type).toBe('turn.done');

    const hasty = await start({ SHUTDOWN_TIMEOUT_MS: '200' });
    const handedBack = await bed.enqueue(thread, scriptedMessage({ deltaCount: 20, deltaMs: 100 }));
    await bed.waitForEvent(handedBack.turnId, 'text.delta');
    await hasty.close();
    workers.splice(workers.indexOf(hasty), 1);
    const successor = await start();
    await bed.waitForEvent(handedBack.turnId, 'turn.done', 15_000);
    const started = bed
      .events(handedBack.turnId)
      .filter((e) => e.type === 'turn.started') as ChatEventOf<'turn.started'>[];
    expect(started.map((e) => [e.workerId, e.attempt])).toEqual([
      [hasty.workerId, 1],
      [successor.workerId, 2],
    ]);
    expect(await bed.assistantMessages(handedBack.turnId)).toHaveLength(1);
  });
});
