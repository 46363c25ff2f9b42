import { randomUUID } from 'node:crypto';
import {
  createTestDatabase,
  insertTestOperator,
  markTestTurnRunning,
  storeTestTurn,
  type TestDatabase,
} from '../testing';
import { ChatRepository } from './chat.repository';
import { QueuePositions } from './queue-positions';
import { TurnLedger } from './turn-ledger';

describe('queue positions (real Postgres)', () => {
  let db: TestDatabase;
  let chats: ChatRepository;
  let ledger: TurnLedger;
  let owner: string;

  beforeAll(async () => {
    db = await createTestDatabase();
    owner = (await insertTestOperator(db.dataSource)).id;
    chats = new ChatRepository(db.dataSource);
    ledger = new TurnLedger(db.dataSource);
  });
  afterAll(() => db.drop());

  /** Queues one turn in a new thread at `position`. */
  const queueTurn = async (position: number) => {
    const chat = await chats.createChat(owner, 'waiting');
    const turn = await storeTestTurn(db.dataSource, owner, chat.id, {
      turnId: randomUUID(),
      content: 'How many findings?',
      queuePosition: position,
      autoTitle: 'x',
    });
    return { chatId: chat.id, turnId: turn.turnId, position: turn.queuePosition };
  };

  it('returns only the turns whose place changed, each change once even when refreshed concurrently', async () => {
    const turns = [await queueTurn(1), await queueTurn(2), await queueTurn(3), await queueTurn(4)];
    expect(turns.map((t) => t.position)).toEqual([1, 2, 3, 4]);
    const positions = new QueuePositions(db.dataSource);
    expect(await positions.refresh()).toEqual([]);

    await markTestTurnRunning(db.dataSource, turns[0].turnId, 1, 'w1'); // picked up
    await ledger.finish(turns[2].turnId, { status: 'cancelled', content: '', metadata: { toolCalls: [] } });
    const moved = (await Promise.all([positions.refresh(), positions.refresh(), positions.refresh()])).flat();
    const again = await positions.refresh(); // a refresh that lost the lock: whatever was left
    expect([...moved, ...again].sort((a, b) => a.position - b.position)).toEqual([
      { turnId: turns[1].turnId, chatId: turns[1].chatId, position: 1 },
      { turnId: turns[3].turnId, chatId: turns[3].chatId, position: 2 },
    ]);
    expect(await positions.refresh()).toEqual([]);
  });
});
