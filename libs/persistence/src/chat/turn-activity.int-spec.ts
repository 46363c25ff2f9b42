import { randomUUID } from 'node:crypto';
import {
  createTestDatabase,
  insertTestOperator,
  markTestTurnRunning,
  storeTestTurn,
  type TestDatabase,
} from '../testing';
import { writeModelSettings } from '../settings/settings.queries';
import { ChatRepository } from './chat.repository';
import { estimateStartMs, TurnActivityQueries } from './turn-activity';
import { TurnLedger } from './turn-ledger';

describe('estimateStartMs', () => {
  it('waits for the first lane to free, then a typical turn per turn ahead', () => {
    expect(estimateStartMs(1, [], 60_000)).toBe(0);
    expect(estimateStartMs(1, [20_000], 60_000)).toBe(40_000);
    expect(estimateStartMs(2, [20_000], 60_000)).toBe(100_000);
    // Two lanes: the second turn ahead takes the other lane.
    expect(estimateStartMs(2, [50_000, 20_000], 60_000)).toBe(40_000);
    expect(estimateStartMs(3, [50_000, 20_000], 60_000)).toBe(70_000);
    // A turn running past the typical time may end any moment.
    expect(estimateStartMs(1, [90_000], 60_000)).toBe(0);
  });
});

describe('turn activity queries (real Postgres)', () => {
  let db: TestDatabase;
  let chats: ChatRepository;
  let ledger: TurnLedger;
  let queries: TurnActivityQueries;
  let alice: string;
  let bob: string;

  beforeAll(async () => {
    db = await createTestDatabase();
    alice = (await insertTestOperator(db.dataSource)).id;
    bob = (await insertTestOperator(db.dataSource)).id;
    chats = new ChatRepository(db.dataSource);
    ledger = new TurnLedger(db.dataSource);
    queries = new TurnActivityQueries(db.dataSource);
  });
  afterAll(() => db.drop());

  const startTurn = async (owner: string, chatId: string) =>
    (
      await storeTestTurn(db.dataSource, owner, chatId, {
        turnId: randomUUID(),
        content: 'How many findings?',
        queuePosition: 1,
        autoTitle: 'x',
      })
    ).turnId;
  const answer = (turnId: string, content: string, model = 'other-model') =>
    ledger.finish(turnId, { status: 'complete', content, metadata: { toolCalls: [], model }, model });
  const unreadIds = async (owner: string) =>
    (await chats.listChats(owner, false)).filter((r) => r.unread).map((r) => r.chat.id);

  it('marks a thread unread when an answer lands after it was last seen, per operator and thread', async () => {
    const a = await chats.createChat(alice, 'A');
    const b = await chats.createChat(alice, 'B');
    expect(await unreadIds(alice)).toEqual([]);

    const t1 = await startTurn(alice, a.id);
    expect(await unreadIds(alice)).toEqual([]); // a question alone is nothing to read
    await markTestTurnRunning(db.dataSource, t1, 1, 'w1');
    const done = await answer(t1, 'There are 7 findings.\nSecond line.');
    expect(await unreadIds(alice)).toEqual([a.id]);
    expect((await chats.getChatSummary(alice, b.id))?.unread).toBe(false);
    if (done.kind !== 'finished') throw new Error(`not finished: ${done.kind}`);
    expect(await queries.answerFirstLine(done.messageId)).toBe('There are 7 findings.');

    // Another operator cannot mark it, and nothing is written for them.
    expect(await queries.markSeen(bob, a.id)).toBe(false);
    expect(await unreadIds(alice)).toEqual([a.id]);
    expect(await queries.markSeen(alice, a.id)).toBe(true);
    expect(await unreadIds(alice)).toEqual([]);
    expect(await queries.markSeen(alice, a.id)).toBe(true); // again: updated, not duplicated
    const rows = await db.dataSource.query(`SELECT operator_id FROM chat_reads WHERE chat_id = $1`, [a.id]);
    expect(rows).toEqual([{ operator_id: alice }]);

    // The next answer is unread again.
    const t2 = await startTurn(alice, a.id);
    await markTestTurnRunning(db.dataSource, t2, 1, 'w1');
    await answer(t2, 'Eight now.');
    expect(await unreadIds(alice)).toEqual([a.id]);
    expect(await queries.ownerOf(a.id)).toBe(alice);
    expect(await queries.ownerOf(randomUUID())).toBeNull();
  });

  it("lists an operator's queued and running turns, and times the queue from recent turns on the current model", async () => {
    await writeModelSettings(db.dataSource, {
      backend: 'openai',
      baseUrl: 'http://127.0.0.1:1/v1',
      model: 'qwen3',
    });
    // Two completed qwen3 turns of 40 s and 60 s, one of another model (not counted).
    for (const [model, seconds] of [
      ['qwen3', 40],
      ['qwen3', 60],
      ['llama', 600],
    ] as const) {
      const chat = await chats.createChat(bob, `done ${model}`);
      const turnId = await startTurn(bob, chat.id);
      await markTestTurnRunning(db.dataSource, turnId, 1, 'w1');
      await answer(turnId, 'ok', model);
      await db.dataSource.query(
        `UPDATE chat_turns SET started_at = finished_at - make_interval(secs => $2) WHERE id = $1`,
        [turnId, seconds],
      );
    }
    const running = await chats.createChat(alice, 'running');
    const queued = await chats.createChat(alice, 'queued');
    const runningTurn = await startTurn(alice, running.id);
    await markTestTurnRunning(db.dataSource, runningTurn, 1, 'w1');
    const queuedTurn = await startTurn(alice, queued.id);

    const mine = await queries.activeTurns(alice);
    expect(mine.map((t) => [t.turnId, t.title, t.status])).toEqual([
      [runningTurn, 'running', 'running'],
      [queuedTurn, 'queued', 'queued'],
    ]);
    expect(await queries.activeTurns(bob)).toEqual([]);

    const timing = await queries.queueTiming();
    expect(timing.model).toBe('qwen3');
    expect(timing.typicalMs).toBeCloseTo(50_000, -2);
    expect(timing.runningElapsedMs).toHaveLength(1);
    expect(timing.runningElapsedMs[0]).toBeGreaterThanOrEqual(0);
  });
});
