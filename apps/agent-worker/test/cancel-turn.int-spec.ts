import type { ChatEventOf } from '@corpus-chat/contracts';
import { CancelTurn } from '../src/turns/cancel-turn';
import { TurnTestBed } from './support/turn-test-bed';
import { type RunningWorker, startUseCaseWorker } from './support/worker-harness';

jest.setTimeout(30_000);

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
