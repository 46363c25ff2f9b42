import type { ChatEventOf } from '@corpus-chat/contracts';
import { STALLED_LIMIT_REASON } from '@corpus-chat/server-core';
import { FailTurn } from '../src/turns/fail-turn';
import { TurnAttemptError, TurnFailedError } from '../src/turns/turn-errors';
import { TurnTestBed } from './support/turn-test-bed';
import { type RunningWorker, startUseCaseWorker } from './support/worker-harness';

jest.setTimeout(30_000);

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
