import { randomUUID } from 'node:crypto';
import {
  createTestDatabase,
  insertTestOperator,
  markTestTurnRunning,
  storeTestTurn,
  type TestDatabase,
} from '../testing';
import { ChatMessageEntity } from './chat-message.entity';
import { ChatRepository } from './chat.repository';
import { TurnLedger } from './turn-ledger';

describe('turn ledger: what a turn leaves behind (real Postgres)', () => {
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

  const startTurn = async (chatId: string) => {
    const turnId = randomUUID();
    await storeTestTurn(db.dataSource, owner, chatId, { turnId, content: 'How many findings?' });
    return turnId;
  };
  const thread = async (chatId: string) =>
    (
      await db.dataSource.query(`SELECT updated_at, last_model FROM chat_sessions WHERE id = $1`, [chatId])
    )[0] as { updated_at: Date; last_model: string | null };
  const assistantMessage = (turnId: string) =>
    db.dataSource.getRepository(ChatMessageEntity).findOneBy({ turnId, role: 'assistant' });
  const turnRow = async (turnId: string) =>
    (
      await db.dataSource.query(`SELECT status, finished_at, error_code FROM chat_turns WHERE id = $1`, [
        turnId,
      ])
    )[0] as { status: string; finished_at: Date | null; error_code: string | null };

  it('starts a run in one statement: marks a matching turn running with the history, refuses a foreign claim, an answered or ended turn', async () => {
    const chat = await chats.createChat(owner, 'start-run');
    const first = await startTurn(chat.id);
    await ledger.finish(first, {
      status: 'complete',
      content: 'There are 7.',
      metadata: { toolCalls: [], lastFilter: { text: 'xss' } },
      model: 'm',
    });
    const turnId = await startTurn(chat.id);
    const userMessageId = (
      await db.dataSource.query(`SELECT id FROM chat_messages WHERE turn_id = $1 AND role = 'user'`, [turnId])
    )[0].id as string;
    const claim = { attempt: 1, workerId: 'w1', ownerId: owner, chatId: chat.id, userMessageId };

    const foreign = await ledger.startRun(turnId, { ...claim, ownerId: randomUUID() });
    expect(foreign).toMatchObject({ started: false, ownerId: owner, chatId: chat.id, history: [] });
    expect(await turnRow(turnId)).toMatchObject({ status: 'queued' });

    const run = await ledger.startRun(turnId, claim);
    expect(run).toMatchObject({
      turnId,
      chatId: chat.id,
      status: 'queued',
      started: true,
      userMessageId,
      userContent: 'How many findings?',
      answer: null,
    });
    expect(run?.history).toEqual([
      { role: 'user', content: 'How many findings?', status: 'complete', metadata: {} },
      {
        role: 'assistant',
        content: 'There are 7.',
        status: 'complete',
        metadata: { lastFilter: { text: 'xss' } },
      },
    ]);
    const row = (
      await db.dataSource.query(
        `SELECT status, attempt, worker_id, started_at FROM chat_turns WHERE id = $1`,
        [turnId],
      )
    )[0];
    expect(row).toMatchObject({ status: 'running', attempt: 1, worker_id: 'w1' });

    // A second attempt on another worker keeps the first start time.
    expect(await ledger.startRun(turnId, { ...claim, attempt: 2, workerId: 'w2' })).toMatchObject({
      status: 'running',
      started: true,
    });
    const again = (
      await db.dataSource.query(`SELECT attempt, worker_id, started_at FROM chat_turns WHERE id = $1`, [
        turnId,
      ])
    )[0];
    expect(again).toMatchObject({ attempt: 2, worker_id: 'w2', started_at: row.started_at });

    // The first run, whose job w2 took over (its loop stalled past the lock), stores nothing.
    expect(
      await ledger.finish(turnId, {
        status: 'complete',
        content: 'stale run',
        metadata: { toolCalls: [] },
        claim: { attempt: 1, workerId: 'w1' },
      }),
    ).toMatchObject({ kind: 'already', status: 'running', messageId: null });
    expect(await turnRow(turnId)).toMatchObject({ status: 'running' });

    // Answered by the current run: the answer comes back and nothing is marked.
    const done = await ledger.finish(turnId, {
      status: 'complete',
      content: 'ok',
      metadata: { toolCalls: [] },
      claim: { attempt: 2, workerId: 'w2' },
    });
    const answered = await ledger.startRun(turnId, { ...claim, attempt: 3 });
    expect(answered).toMatchObject({
      started: false,
      status: 'complete',
      answer: { id: done.kind === 'finished' ? done.messageId : '', status: 'complete' },
    });
    expect(await turnRow(turnId)).toMatchObject({ status: 'complete' });

    // Ended without an answer (cancelled while queued): not started again.
    const third = await startTurn(chat.id);
    await ledger.finish(third, {
      status: 'cancelled',
      content: '',
      metadata: { toolCalls: [] },
      storeMessage: false,
    });
    const thirdMessage = (
      await db.dataSource.query(`SELECT id FROM chat_messages WHERE turn_id = $1`, [third])
    )[0].id as string;
    expect(await ledger.startRun(third, { ...claim, userMessageId: thirdMessage })).toMatchObject({
      started: false,
      status: 'cancelled',
      answer: null,
    });
    expect(await ledger.startRun(randomUUID(), claim)).toBeNull();
  });

  it('hands over only the latest messages as history, each with only the follow-up state of its metadata', async () => {
    const chat = await chats.createChat(owner, 'long thread');
    const toolCall = {
      callId: 'c1',
      name: 'search_findings',
      args: { text: 'xss' },
      ok: true,
      summary: '7 findings',
      data: { rows: [{ id: 1, title: 'a'.repeat(2000) }] },
    };
    for (let i = 1; i <= 3; i++) {
      const turn = await startTurn(chat.id);
      const lastGroups =
        i === 3
          ? { lastGroups: { groupBy: 'report' as const, groups: [{ key: '4', label: 'a.sarif' }] } }
          : {};
      const metadata = {
        toolCalls: [toolCall as never],
        lastFilter: { text: `topic ${i}` },
        lastFindingIds: i === 3 ? [] : [i],
        ...lastGroups,
        model: 'm',
        attempt: 1,
      };
      await ledger.finish(turn, { status: 'complete', content: `Answer ${i}.`, metadata, model: 'm' });
    }
    const turnId = await startTurn(chat.id);
    const userMessageId = (
      await db.dataSource.query(`SELECT id FROM chat_messages WHERE turn_id = $1 AND role = 'user'`, [turnId])
    )[0].id as string;
    const claim = { attempt: 1, workerId: 'w1', ownerId: owner, chatId: chat.id, userMessageId };

    const run = await ledger.startRun(turnId, claim, { historyLimit: 3 });
    expect(run?.history).toEqual([
      {
        role: 'assistant',
        content: 'Answer 2.',
        status: 'complete',
        metadata: { lastFilter: { text: 'topic 2' }, lastFindingIds: [2] },
      },
      { role: 'user', content: 'How many findings?', status: 'complete', metadata: {} },
      // An empty list is kept: it says the last answer listed nothing.
      // A ranking's listed groups travel with it (migration ChatMessagesFollowUpGroups).
      {
        role: 'assistant',
        content: 'Answer 3.',
        status: 'complete',
        metadata: {
          lastFilter: { text: 'topic 3' },
          lastFindingIds: [],
          lastGroups: { groupBy: 'report', groups: [{ key: '4', label: 'a.sarif' }] },
        },
      },
    ]);
    // Without a limit: the whole thread, oldest first.
    const all = await ledger.startRun(turnId, { ...claim, attempt: 2 });
    expect(all?.history.map((m) => m.content)).toEqual([
      'How many findings?',
      'Answer 1.',
      'How many findings?',
      'Answer 2.',
      'How many findings?',
      'Answer 3.',
    ]);
  });

  it('stores the answer, ends the turn, and moves the thread (updated, last model) in the same transaction', async () => {
    const chat = await chats.createChat(owner, 'finished');
    const turnId = await startTurn(chat.id);
    expect(await markTestTurnRunning(db.dataSource, turnId, 1, 'worker-a')).toBe(true);
    const before = await thread(chat.id);
    const result = await ledger.finish(turnId, {
      status: 'complete',
      content: 'There are 7.',
      metadata: { toolCalls: [] },
      model: 'qwen3:8b',
    });
    expect(result).toMatchObject({ kind: 'finished', chatId: chat.id });
    const messageId = result.kind === 'finished' ? result.messageId : '';
    expect(await assistantMessage(turnId)).toMatchObject({
      id: messageId,
      content: 'There are 7.',
      status: 'complete',
    });
    expect(await turnRow(turnId)).toMatchObject({ status: 'complete', error_code: null });
    expect((await turnRow(turnId)).finished_at).toBeInstanceOf(Date);
    const after = await thread(chat.id);
    expect(after.last_model).toBe('qwen3:8b');
    expect(after.updated_at.getTime()).toBeGreaterThanOrEqual(before.updated_at.getTime());

    // A second finisher changes nothing and is told which message ended it.
    const again = await ledger.finish(turnId, {
      status: 'cancelled',
      content: '',
      metadata: { toolCalls: [] },
    });
    expect(again).toEqual({ kind: 'already', chatId: chat.id, messageId, status: 'complete' });
    expect(await turnRow(turnId)).toMatchObject({ status: 'complete' });
  });

  it('stores an answer holding what Postgres refuses (NUL, lone surrogates) with U+FFFD instead, so the turn still ends', async () => {
    const chat = await chats.createChat(owner, 'hostile output');
    const turnId = await startTurn(chat.id);
    expect(await markTestTurnRunning(db.dataSource, turnId, 1, 'worker-a')).toBe(true);
    const splitEmoji = ('x'.repeat(63) + '\u{1F600}').slice(0, 64); // ends in half a surrogate pair
    const metadata = {
      toolCalls: [
        {
          callId: 'c1',
          name: splitEmoji,
          args: { text: 'a\u0000b', lone: '\udc00z', path: 'C:\\u0000dir' },
          ok: false,
          summary: 'no such tool',
        },
      ],
    };
    const result = await ledger.finish(turnId, {
      status: 'complete',
      content: 'nul\u0000 and \ud800 here \u{1F600}',
      metadata,
    });
    expect(result.kind).toBe('finished');
    const stored = await assistantMessage(turnId);
    expect(stored?.content).toBe('nul\ufffd and \ufffd here \u{1F600}');
    const call = (stored?.metadata as typeof metadata).toolCalls[0];
    expect(call.name).toBe('x'.repeat(63) + '\ufffd');
    // An escaped backslash before "u0000" is text, not an escape: kept as it was.
    expect(call.args).toEqual({ text: 'a\ufffdb', lone: '\ufffdz', path: 'C:\\u0000dir' });
    expect(await turnRow(turnId)).toMatchObject({ status: 'complete' });
  });

  it('keeps the last model when an ending names none, records error codes, and can end a turn without a message', async () => {
    const chat = await chats.createChat(owner, 'errors');
    const first = await startTurn(chat.id);
    await ledger.finish(first, {
      status: 'complete',
      content: 'ok',
      metadata: { toolCalls: [] },
      model: 'builtin',
    });
    const second = await startTurn(chat.id);
    const result = await ledger.finish(second, {
      status: 'error',
      content: '',
      metadata: { toolCalls: [] },
      errorCode: 'FORBIDDEN',
      storeMessage: false,
    });
    expect(result).toEqual({ kind: 'finished', chatId: chat.id, messageId: '', webhooks: false });
    expect(await turnRow(second)).toMatchObject({ status: 'error', error_code: 'FORBIDDEN' });
    expect(await assistantMessage(second)).toBeNull();
    expect((await thread(chat.id)).last_model).toBe('builtin');
    expect(
      await ledger.finish(randomUUID(), { status: 'cancelled', content: '', metadata: { toolCalls: [] } }),
    ).toEqual({ kind: 'gone' });
  });
});
