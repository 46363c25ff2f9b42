/**
 * A turn on the worker against the real Postgres and Redis: run, cancelled, failed, recovered, its
 * deltas coalesced, and the turn processor's rules, one block per area, each on a database and
 * Redis prefix of its own. One file, so the worker's modules load once (seconds of CPU a file).
 */

import type { ChatEventOf } from '@corpus-chat/contracts';
import { ScriptedAgentRunner, scriptedMessage } from './support/scripted-runner';
import { expectGapFree, TurnTestBed } from './support/turn-test-bed';
import { type RunningWorker, startUseCaseWorker, startWorker } from './support/worker-harness';
import { randomUUID } from 'node:crypto';
import { RunTurn } from '../src/turns/run-turn';
import { RunningTurns } from '../src/turns/running-turns';
import { TurnAttemptError, TurnFailedError } from '../src/turns/turn-errors';
import { CancelTurn } from '../src/turns/cancel-turn';
import { STALLED_LIMIT_REASON } from '@corpus-chat/server-core';
import { FailTurn } from '../src/turns/fail-turn';
import type { TurnOutcome } from '@corpus-chat/persistence';
import { eventually } from '@corpus-chat/persistence/testing';
import { RecoverTurn } from '../src/turns/recover-turn';

jest.setTimeout(40_000);

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

  it("hands the runner the job's language: none (a job from an older API) is en, ru is ru, an unknown one is refused", async () => {
    const runner = new ScriptedAgentRunner();
    await start({}, runner);
    const thread = await bed.newChat();
    const older = await bed.enqueue(thread, scriptedMessage({}));
    await bed.waitForEvent(older.turnId, 'turn.done');
    const russian = await bed.enqueue(thread, scriptedMessage({}), { language: 'ru' });
    await bed.waitForEvent(russian.turnId, 'turn.done');
    expect(runner.runs.map((r) => [r.turnId, r.language])).toEqual([
      [older.turnId, 'en'],
      [russian.turnId, 'ru'],
    ]);
    const unknown = await bed.enqueue(thread, scriptedMessage({}), { language: 'fr' });
    expect(await bed.waitForEvent(unknown.turnId)).toMatchObject({ type: 'turn.error' });
    expect(runner.runs.map((r) => r.turnId)).not.toContain(unknown.turnId);
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
    await eventually(
      async () => (await bed.queue.getJobState(turnId)) === 'failed',
      10_000,
      'the job failed',
    );
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
    await eventually(
      () => worker.runner.runs[0].endedAt !== undefined,
      15_000,
      'the ignoring agent finished',
    );
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

describe('RunTurn: one attempt of a turn (real Postgres and Redis, no queue)', () => {
  let bed: TurnTestBed;
  let worker: RunningWorker;
  let runTurn: RunTurn;
  const job = (
    t: { turnId: string; userMessageId: string },
    thread: { chatId: string; ownerId: string },
  ) => ({
    turnId: t.turnId,
    chatId: thread.chatId,
    ownerId: thread.ownerId,
    userMessageId: t.userMessageId,
  });

  beforeAll(async () => {
    bed = await TurnTestBed.create();
    worker = await startUseCaseWorker({ databaseUrl: bed.databaseUrl, redisPrefix: bed.prefix });
    runTurn = worker.app.get(RunTurn);
  });
  afterAll(async () => {
    await worker?.close();
    await bed?.close();
  });

  it('runs the agent, stores its answer and publishes started → deltas → done in order', async () => {
    const thread = await bed.newChat();
    const t = await bed.store(thread, scriptedMessage({ deltas: ['Seven', '.'] }));
    const result = await runTurn.execute({ data: job(t, thread), attempt: 1 });
    expect(result).toMatchObject({ status: 'complete' });
    await bed.waitForEvent(t.turnId, 'turn.done');
    expect(bed.events(t.turnId).map((e) => e.type)).toEqual([
      'turn.started',
      'text.delta',
      'text.delta',
      'turn.done',
    ]);
    expectGapFree(bed.events(t.turnId));
    expect(await bed.assistantMessages(t.turnId)).toMatchObject([
      { id: result.messageId, content: 'Seven.', status: 'complete', metadata: { attempt: 1 } },
    ]);
    expect(worker.app.get(RunningTurns).size).toBe(0);
  });

  it('runs nothing for a missing turn, and refuses a job whose owner is not the thread’s', async () => {
    const thread = await bed.newChat();
    const t = await bed.store(thread, scriptedMessage({}));
    const before = worker.runner.runs.length;
    await expect(
      runTurn.execute({ data: job({ ...t, turnId: randomUUID() }, thread), attempt: 1 }),
    ).resolves.toEqual({ messageId: '', status: 'cancelled' });
    const forged = { ...job(t, thread), ownerId: await bed.newOperator() };
    const refused = runTurn.execute({ data: forged, attempt: 1 });
    await expect(refused).rejects.toBeInstanceOf(TurnFailedError);
    await expect(refused).rejects.toMatchObject({ code: 'FORBIDDEN' });
    expect(worker.runner.runs).toHaveLength(before);
  });

  it('ends a turn cancelled before it ran as cancelled, without running the agent', async () => {
    const thread = await bed.newChat();
    const t = await bed.store(thread, scriptedMessage({}));
    await bed.cancels.request(t.turnId);
    const before = worker.runner.runs.length;
    const result = await runTurn.execute({ data: job(t, thread), attempt: 1 });
    expect(result.status).toBe('cancelled');
    expect(await bed.waitForEvent(t.turnId)).toMatchObject({
      type: 'turn.cancelled',
      messageId: result.messageId,
    });
    expect(worker.runner.runs).toHaveLength(before);
  });

  it('turns a retryable agent failure into TurnAttemptError carrying what was streamed', async () => {
    const thread = await bed.newChat();
    const t = await bed.store(thread, scriptedMessage({ failAttempts: 1, deltas: ['partial'] }));
    const failed = runTurn.execute({ data: job(t, thread), attempt: 1 });
    await expect(failed).rejects.toBeInstanceOf(TurnAttemptError);
    await expect(failed).rejects.toMatchObject({
      code: 'MODEL_UNAVAILABLE',
      partial: { content: 'partial' },
    });
    // Nothing is stored: BullMQ retries the attempt, or `FailTurn` ends the turn.
    expect(await bed.assistantMessages(t.turnId)).toHaveLength(0);
  });
});

describe('CancelTurn (real Postgres and Redis)', () => {
  let bed: TurnTestBed;
  let worker: RunningWorker;
  let cancelTurn: CancelTurn;

  beforeAll(async () => {
    bed = await TurnTestBed.create();
    worker = await startUseCaseWorker({ databaseUrl: bed.databaseUrl, redisPrefix: bed.prefix });
    cancelTurn = worker.app.get(CancelTurn);
  });
  afterAll(async () => {
    await worker?.close();
    await bed?.close();
  });

  it('stores the partial answer as cancelled and publishes turn.cancelled, once', async () => {
    const thread = await bed.newChat();
    const { turnId } = await bed.store(thread, 'how many findings?');
    const partial = { content: 'There are', metadata: { toolCalls: [] } };
    const result = await cancelTurn.execute(turnId, partial);
    expect(result).toEqual({ messageId: expect.any(String), status: 'cancelled' });
    const event = (await bed.waitForEvent(turnId)) as ChatEventOf<'turn.cancelled'>;
    expect(event).toMatchObject({ type: 'turn.cancelled', messageId: result.messageId });
    expect(await bed.ledger.status(turnId)).toBe('cancelled');

    await expect(cancelTurn.execute(turnId, { ...partial, content: 'later' })).resolves.toEqual(result);
    expect(await bed.assistantMessages(turnId)).toMatchObject([
      { id: result.messageId, content: 'There are', status: 'cancelled' },
    ]);
  });

  it('stores nothing for a run that is no longer the turn’s current one', async () => {
    const thread = await bed.newChat();
    const t = await bed.store(thread, 'how many findings?');
    const claim = { ownerId: thread.ownerId, chatId: thread.chatId, userMessageId: t.userMessageId };
    // Attempt 2 runs on another worker: this worker's attempt 1 was taken over.
    await bed.ledger.startRun(t.turnId, { ...claim, attempt: 2, workerId: 'another-worker' });
    const result = await cancelTurn.execute(t.turnId, { content: 'stale', metadata: { toolCalls: [] } }, 1);
    expect(result).toEqual({ messageId: '', status: 'cancelled' });
    expect(await bed.assistantMessages(t.turnId)).toHaveLength(0);
    expect(await bed.ledger.status(t.turnId)).toBe('running');
  });
});

describe('FailTurn: the end of a job that failed for good (real Postgres and Redis)', () => {
  let bed: TurnTestBed;
  let worker: RunningWorker;
  let failTurn: FailTurn;
  const newTurn = async () => (await bed.store(await bed.newChat(), 'how many findings?')).turnId;

  beforeAll(async () => {
    bed = await TurnTestBed.create();
    worker = await startUseCaseWorker({ databaseUrl: bed.databaseUrl, redisPrefix: bed.prefix });
    failTurn = worker.app.get(FailTurn);
  });
  afterAll(async () => {
    await worker?.close();
    await bed?.close();
  });

  it('stores the partial answer of the last attempt as error and publishes its turn.error', async () => {
    const turnId = await newTurn();
    const partial = { content: 'There are', metadata: { toolCalls: [] } };
    const err = new TurnAttemptError('MODEL_UNAVAILABLE', 'The model server did not answer.', partial);
    await failTurn.execute({ id: turnId, data: { turnId }, attemptsStarted: 2 }, err);
    const event = (await bed.waitForEvent(turnId)) as ChatEventOf<'turn.error'>;
    expect(event).toMatchObject({ code: 'MODEL_UNAVAILABLE', message: 'The model server did not answer.' });
    expect(await bed.assistantMessages(turnId)).toMatchObject([
      {
        content: 'There are',
        status: 'error',
        metadata: { attempt: 2, error: { code: 'MODEL_UNAVAILABLE' } },
      },
    ]);
  });

  it('names a job given up after its workers died WORKER_LOST, an unknown error INTERNAL', async () => {
    const lost = await newTurn();
    await failTurn.execute(
      { id: lost, data: { turnId: lost }, attemptsStarted: 2 },
      new Error(STALLED_LIMIT_REASON),
    );
    expect(await bed.waitForEvent(lost)).toMatchObject({ type: 'turn.error', code: 'WORKER_LOST' });
    const crashed = await newTurn();
    await failTurn.execute({ id: crashed, data: { turnId: crashed }, attemptsStarted: 1 }, new Error('boom'));
    expect(await bed.waitForEvent(crashed)).toMatchObject({ type: 'turn.error', code: 'INTERNAL' });
  });

  it('stores no message in a thread whose job was forged (FORBIDDEN), yet ends the turn', async () => {
    const turnId = await newTurn();
    const empty = { content: '', metadata: { toolCalls: [] } };
    await failTurn.execute(
      { id: turnId, data: { turnId }, attemptsStarted: 1 },
      new TurnFailedError('FORBIDDEN', 'This turn does not match its thread or owner.', empty),
    );
    expect(await bed.waitForEvent(turnId)).toMatchObject({ type: 'turn.error', code: 'FORBIDDEN' });
    expect(await bed.assistantMessages(turnId)).toHaveLength(0);
    expect(await bed.ledger.status(turnId)).toBe('error');
  });

  it('leaves a turn that already ended as it was', async () => {
    const turnId = await newTurn();
    const job = { id: turnId, data: { turnId }, attemptsStarted: 1 };
    await failTurn.execute(job, new Error('first'));
    await failTurn.execute(job, new Error(STALLED_LIMIT_REASON));
    expect(await bed.assistantMessages(turnId)).toMatchObject([
      { metadata: { error: { code: 'INTERNAL' } } },
    ]);
  });
});

describe('RecoverTurn: an attempt that finds its answer stored (real Postgres and Redis)', () => {
  let bed: TurnTestBed;
  let worker: RunningWorker;

  beforeAll(async () => {
    bed = await TurnTestBed.create();
    worker = await startUseCaseWorker({ databaseUrl: bed.databaseUrl, redisPrefix: bed.prefix });
  });
  afterAll(async () => {
    await worker?.close();
    await bed?.close();
  });

  /** A turn whose attempt 1 stored `outcome` and died before publishing its terminal event. */
  const answeredTurn = async (outcome: Omit<TurnOutcome, 'claim'>) => {
    const thread = await bed.newChat();
    const t = await bed.store(thread, scriptedMessage({ deltas: ['Seven.'] }));
    const data = { ...thread, turnId: t.turnId, userMessageId: t.userMessageId };
    const claim = { attempt: 1, workerId: 'died-worker' };
    await bed.ledger.startRun(t.turnId, { ...data, ...claim });
    const stored = await bed.ledger.finish(t.turnId, { ...outcome, claim });
    if (stored.kind !== 'finished') throw new Error(`not stored: ${stored.kind}`);
    return { data, messageId: stored.messageId };
  };

  it('publishes turn.done of the stored answer at the next attempt, without running the agent', async () => {
    const t = await answeredTurn({ status: 'complete', content: 'Seven.', metadata: { toolCalls: [] } });
    const runs = worker.runner.runs.length;
    const result = await worker.app.get(RunTurn).execute({ data: t.data, attempt: 2 });
    expect(result).toEqual({ messageId: t.messageId, status: 'complete' });
    const done = (await bed.waitForEvent(t.data.turnId)) as ChatEventOf<'turn.done'>;
    expect(done).toMatchObject({ type: 'turn.done', messageId: t.messageId });
    expect(bed.events(t.data.turnId).map((e) => e.type)).toEqual(['turn.done']);
    expect(worker.runner.runs).toHaveLength(runs);
  });

  it('publishes the stored error of a failed turn with its code and message', async () => {
    const error = { code: 'MODEL_UNAVAILABLE' as const, message: 'The model server did not answer.' };
    const t = await answeredTurn({
      status: 'error',
      content: '',
      metadata: { toolCalls: [], error },
      errorCode: error.code,
    });
    const claim = { ...t.data, attempt: 2, workerId: worker.workerId };
    const loaded = (await bed.ledger.startRun(t.data.turnId, claim))!;
    expect(loaded).toMatchObject({ started: false, answer: { id: t.messageId, status: 'error' } });
    const result = await worker.app.get(RecoverTurn).execute(loaded, loaded.answer!);
    expect(result).toEqual({ messageId: t.messageId, status: 'error' });
    expect(await bed.waitForEvent(t.data.turnId)).toMatchObject({ type: 'turn.error', ...error });
  });
});

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
