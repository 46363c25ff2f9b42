import { randomUUID } from 'node:crypto';
import { createTestDatabase, insertTestOperator, markTestTurnRunning, type TestDatabase } from '../testing';
import {
  ChatRepository,
  DEFAULT_CHAT_TITLE,
  type StartedTurn,
  type TryStartTurnInput,
} from './chat.repository';
import { ChatMessageEntity } from './chat-message.entity';
import { ChatTurnEntity } from './chat-turn.entity';
import { TurnLedger } from './turn-ledger';

describe('chat repository and turn ledger (real Postgres)', () => {
  let db: TestDatabase;
  let chats: ChatRepository;
  let ledger: TurnLedger;
  // chat_sessions.owner_id references operators: owners are real operators.
  let alice: string;
  let bob: string;
  const input = (over: Partial<TryStartTurnInput> = {}): TryStartTurnInput => ({
    turnId: randomUUID(),
    content: 'How many critical findings?',
    clientMessageId: null,
    queuePosition: 1,
    autoTitle: 'How many critical findings?',
    maxActiveTurns: null,
    ...over,
  });
  /** A start without limit that must store (or find) the turn. */
  const started = async (
    owner: string,
    chatId: string,
    over: Partial<TryStartTurnInput> = {},
  ): Promise<StartedTurn> => {
    const outcome = await chats.tryStartTurn(owner, chatId, input(over));
    if (outcome.kind !== 'started' && outcome.kind !== 'existing')
      throw new Error(`not started: ${outcome.kind}`);
    return outcome.turn;
  };
  const running = (turnId: string, attempt: number, workerId: string) =>
    markTestTurnRunning(db.dataSource, turnId, attempt, workerId);

  beforeAll(async () => {
    db = await createTestDatabase();
    alice = (await insertTestOperator(db.dataSource)).id;
    bob = (await insertTestOperator(db.dataSource)).id;
    chats = new ChatRepository(db.dataSource);
    ledger = new TurnLedger(db.dataSource);
  });
  afterAll(() => db.drop());

  it("scopes every read and write by owner: another operator's thread looks missing", async () => {
    const chat = await chats.createChat(alice);
    expect(chat.title).toBe(DEFAULT_CHAT_TITLE);
    expect(await chats.findChat(bob, chat.id)).toBeNull();
    expect(await chats.listMessages(bob, chat.id)).toBeNull();
    expect(await chats.updateChat(bob, chat.id, { title: 'mine now' })).toBeNull();
    expect(await chats.deleteChat(bob, chat.id)).toBe(false);
    expect(await chats.tryStartTurn(bob, chat.id, input())).toEqual({ kind: 'not-found' });
    expect((await chats.listChats(bob, false)).map((r) => r.chat.id)).not.toContain(chat.id);
    expect((await chats.listChats(alice, false)).map((r) => r.chat.id)).toContain(chat.id);
  });

  it('starts one turn at a time, titles the thread from the first message, and honours client message ids', async () => {
    const chat = await chats.createChat(alice);
    const clientMessageId = randomUUID();
    const first = await started(alice, chat.id, { clientMessageId });
    expect(first.created).toBe(true);
    expect((await chats.findChat(alice, chat.id))!.title).toBe('How many critical findings?');
    const retried = await chats.tryStartTurn(alice, chat.id, input({ clientMessageId }), async () => {
      throw new Error('must not check twice');
    });
    expect(retried.kind).toBe('existing');
    expect((retried as { turn: StartedTurn }).turn).toMatchObject({
      turnId: first.turnId,
      userMessageId: first.userMessageId,
      created: false,
    });
    expect(await chats.tryStartTurn(alice, chat.id, input())).toEqual({
      kind: 'busy',
      activeTurnId: first.turnId,
    });
    const summary = await chats.getChatSummary(alice, chat.id);
    expect(summary).toMatchObject({
      messageCount: 1,
      activeTurn: { turnId: first.turnId, status: 'queued' },
    });
  });

  it('stores nothing when the last check before the commit refuses the turn', async () => {
    const chat = await chats.createChat(alice, 'Named');
    await expect(
      chats.tryStartTurn(alice, chat.id, input(), async () => {
        throw new Error('over the message budget');
      }),
    ).rejects.toThrow('over the message budget');
    expect(await db.dataSource.getRepository(ChatMessageEntity).countBy({ chatId: chat.id })).toBe(0);
    expect(await db.dataSource.getRepository(ChatTurnEntity).countBy({ chatId: chat.id })).toBe(0);
    expect((await chats.findChat(alice, chat.id))!.title).toBe('Named');
    // What Postgres refuses is refused before the last check runs (every write precedes it), as
    // its own error, and nothing is stored.
    let checked = false;
    const refuse = (over: Partial<TryStartTurnInput>) =>
      chats.tryStartTurn(alice, chat.id, input(over), async () => {
        checked = true;
      });
    await expect(refuse({ content: 'a\u0000b' })).rejects.toMatchObject({
      code: '22021',
      message: expect.stringMatching(/0x00/),
    });
    await expect(refuse({ autoTitle: 'a\u0000b' })).rejects.toMatchObject({ code: '22021' });
    const fresh = await chats.createChat(alice); // never named: it takes the auto title
    await expect(
      chats.tryStartTurn(alice, fresh.id, input({ autoTitle: 'x'.repeat(201) }), async () => {
        checked = true;
      }),
    ).rejects.toMatchObject({ code: '22001', message: expect.stringMatching(/too long/) });
    expect(checked).toBe(false);
    for (const id of [chat.id, fresh.id]) {
      expect(await db.dataSource.getRepository(ChatTurnEntity).countBy({ chatId: id })).toBe(0);
      expect(await db.dataSource.getRepository(ChatMessageEntity).countBy({ chatId: id })).toBe(0);
    }
    expect((await chats.findChat(alice, fresh.id))!.title).toBe(DEFAULT_CHAT_TITLE);
    // The connection is still usable: the next start on the same pool succeeds.
    expect((await started(alice, fresh.id, { autoTitle: 'x'.repeat(200) })).created).toBe(true);
  });

  it('keeps the per-operator limit exact when posts to different threads race, and counts only that operator', async () => {
    const carol = (await insertTestOperator(db.dataSource)).id;
    const threads = await Promise.all(Array.from({ length: 8 }, () => chats.createChat(carol)));
    const bobThread = await chats.createChat(bob);
    const outcomes = await Promise.all(
      threads.map((t) =>
        chats.tryStartTurn(carol, t.id, { ...input(), maxActiveTurns: 3 }, async () => {
          await new Promise((r) => setTimeout(r, 20)); // widen the window a racing check would use
        }),
      ),
    );
    expect(outcomes.filter((o) => o.kind === 'started')).toHaveLength(3);
    expect(
      outcomes.filter((o) => o.kind === 'over-quota').map((o) => (o as { activeTurns: number }).activeTurns),
    ).toEqual([3, 3, 3, 3, 3]);
    const active = await db.dataSource.query(
      `SELECT count(*)::int AS n FROM chat_turns t JOIN chat_sessions s ON s.id = t.chat_id WHERE s.owner_id = $1`,
      [carol],
    );
    expect(active[0].n).toBe(3);
    // Over-quota posts wrote nothing: three user messages in all.
    const messages = await db.dataSource.query(
      `SELECT count(*)::int AS n FROM chat_messages m JOIN chat_sessions s ON s.id = m.chat_id WHERE s.owner_id = $1`,
      [carol],
    );
    expect(messages[0].n).toBe(3);
    expect(
      (await chats.tryStartTurn(bob, bobThread.id, { ...input(), maxActiveTurns: 1 }, async () => undefined))
        .kind,
    ).toBe('started');
  });

  it('answers a retried client message id with its turn, and places a new turn behind the turns queued now', async () => {
    const dave = (await insertTestOperator(db.dataSource)).id;
    const [one, two, three] = await Promise.all([
      chats.createChat(dave),
      chats.createChat(dave),
      chats.createChat(dave),
    ]);
    const queuedNow = async () =>
      Number(
        (await db.dataSource.query(`SELECT count(*) AS n FROM chat_turns WHERE status = 'queued'`))[0].n,
      );
    const clientMessageId = randomUUID();
    const start = (chatId: string, over: Partial<TryStartTurnInput> = {}) =>
      chats.tryStartTurn(
        dave,
        chatId,
        { ...input(over), queuePosition: null, maxActiveTurns: null },
        async () => undefined,
      );
    const before = await queuedNow();
    const first = await start(one.id, { clientMessageId });
    expect(first).toMatchObject({ kind: 'started', turn: { queuePosition: before + 1 } });
    const retried = await chats.tryStartTurn(
      dave,
      one.id,
      { ...input({ clientMessageId }), queuePosition: null, maxActiveTurns: 1 },
      async () => {
        throw new Error('must not enqueue twice');
      },
    );
    expect(retried).toEqual({
      kind: 'existing',
      turn: { ...(first as { turn: object }).turn, created: false },
    });
    await running((first as { turn: { turnId: string } }).turn.turnId, 1, 'w1');
    expect(await start(two.id)).toMatchObject({ kind: 'started', turn: { queuePosition: before + 1 } }); // a running turn is not ahead
    expect(await start(three.id)).toMatchObject({ kind: 'started', turn: { queuePosition: before + 2 } });
    expect(
      (
        await chats.tryStartTurn(
          bob,
          one.id,
          { ...input({ clientMessageId }), maxActiveTurns: null },
          async () => undefined,
        )
      ).kind,
    ).toBe('not-found');
  });

  it("gives up after 5 s when another start holds the operator's lock (locked), storing nothing", async () => {
    const erin = (await insertTestOperator(db.dataSource)).id;
    const chat = await chats.createChat(erin);
    const holder = db.dataSource.createQueryRunner();
    await holder.connect();
    await holder.startTransaction();
    try {
      await holder.query(`SELECT 1 FROM operators WHERE id = $1 FOR NO KEY UPDATE`, [erin]);
      const t0 = Date.now();
      const outcome = await chats.tryStartTurn(
        erin,
        chat.id,
        { ...input(), maxActiveTurns: null },
        async () => undefined,
      );
      expect(outcome).toEqual({ kind: 'locked' });
      expect(Date.now() - t0).toBeGreaterThanOrEqual(4900);
    } finally {
      await holder.rollbackTransaction();
      await holder.release();
    }
    expect(await db.dataSource.getRepository(ChatTurnEntity).countBy({ chatId: chat.id })).toBe(0);
    expect(
      (await chats.tryStartTurn(erin, chat.id, { ...input(), maxActiveTurns: null }, async () => undefined))
        .kind,
    ).toBe('started');
  }, 15_000);

  it('ends a turn exactly once, even when two finishers race', async () => {
    const chat = await chats.createChat(alice);
    const t = await started(alice, chat.id);
    expect(await running(t.turnId, 1, 'w1')).toBe(true);
    const results = await Promise.all([
      ledger.finish(t.turnId, {
        status: 'complete',
        content: 'There are 3.',
        metadata: { toolCalls: [] },
        model: 'planner',
      }),
      ledger.finish(t.turnId, { status: 'cancelled', content: 'There', metadata: { toolCalls: [] } }),
    ]);
    expect(results.map((r) => r.kind).sort()).toEqual(['already', 'finished']);
    const messages = await chats.listMessages(alice, chat.id);
    expect(messages!.filter((m) => m.role === 'assistant')).toHaveLength(1);
    expect(await running(t.turnId, 2, 'w2')).toBe(false);
    expect(await ledger.status(t.turnId)).toMatch(/complete|cancelled/);
    // The thread is free for the next turn.
    await started(alice, chat.id);
  });

  it('reports a turn whose thread was deleted as gone', async () => {
    const chat = await chats.createChat(alice);
    const t = await started(alice, chat.id);
    expect(await chats.deleteChat(alice, chat.id)).toBe(true);
    expect(await ledger.finish(t.turnId, { status: 'cancelled', content: '', metadata: {} })).toEqual({
      kind: 'gone',
    });
    expect(await ledger.findActive(t.turnId)).toBeNull();
    expect(await chats.turnIds(alice, chat.id)).toEqual([]);
  });

  it('undoes a turn that could not be queued only while it is still queued', async () => {
    const chat = await chats.createChat(alice);
    const t = await started(alice, chat.id);
    expect(await chats.turnIds(alice, chat.id)).toEqual([t.turnId]);
    expect(await chats.turnIds(bob, chat.id)).toEqual([]);
    expect(await ledger.discardQueued(t.turnId)).toBe(true);
    expect(await chats.listMessages(alice, chat.id)).toEqual([]);
    const taken = await started(alice, chat.id);
    await running(taken.turnId, 1, 'w1'); // a worker took it: the add reached Redis after all
    expect(await ledger.discardQueued(taken.turnId)).toBe(false);
    expect(await ledger.status(taken.turnId)).toBe('running');
  });

  it('lists active turns older than a bound with the ids their jobs carry, oldest first', async () => {
    const frank = (await insertTestOperator(db.dataSource)).id;
    const [one, two] = await Promise.all([chats.createChat(frank), chats.createChat(frank)]);
    const old = await started(frank, one.id);
    const fresh = await started(frank, two.id);
    await db.dataSource.query(
      `UPDATE chat_turns SET created_at = now() - interval '1 minute' WHERE id = $1`,
      [old.turnId],
    );
    const stale = await ledger.staleActive(30_000, 1000);
    const ref = {
      turnId: old.turnId,
      chatId: one.id,
      ownerId: frank,
      userMessageId: old.userMessageId,
      queuePosition: 1,
      status: 'queued',
    };
    // A queued turn has no worker whose heartbeat could keep it alive.
    expect(stale).toContainEqual({ ...ref, workerAlive: false });
    expect(stale.map((s) => s.turnId)).not.toContain(fresh.turnId);
    expect(await ledger.findActive(old.turnId)).toEqual({ ...ref, workerAlive: false });
    await ledger.finish(old.turnId, { status: 'cancelled', content: '', metadata: {} });
    expect(await ledger.findActive(old.turnId)).toBeNull();
    expect((await ledger.staleActive(30_000, 1000)).map((s) => s.turnId)).not.toContain(old.turnId);
  });
});
