import { randomUUID } from 'node:crypto';
import { RunTurn } from '../src/turns/run-turn';
import { RunningTurns } from '../src/turns/running-turns';
import { TurnAttemptError, TurnFailedError } from '../src/turns/turn-errors';
import { scriptedMessage } from './support/scripted-runner';
import { expectGapFree, TurnTestBed } from './support/turn-test-bed';
import { type RunningWorker, startUseCaseWorker } from './support/worker-harness';

jest.setTimeout(30_000);

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
