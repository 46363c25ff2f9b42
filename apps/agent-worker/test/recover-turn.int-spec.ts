import type { ChatEventOf } from '@corpus-chat/contracts';
import type { TurnOutcome } from '@corpus-chat/persistence';
import { RecoverTurn } from '../src/turns/recover-turn';
import { RunTurn } from '../src/turns/run-turn';
import { scriptedMessage } from './support/scripted-runner';
import { TurnTestBed } from './support/turn-test-bed';
import { type RunningWorker, startUseCaseWorker } from './support/worker-harness';

jest.setTimeout(30_000);

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
