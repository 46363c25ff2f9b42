import 'reflect-metadata';
import request from 'supertest';
import type { ChatEventOf, ChatSummaryView, PostMessageResponse } from '@corpus-chat/contracts';
import { createTestDatabase, markTestTurnRunning, type TestDatabase } from '@corpus-chat/persistence/testing';
import {
  type ApiInstance,
  type EventCollector,
  expectGapFree,
  newDeployment,
  openChatSocket,
  signIn,
  startApiInstance,
} from './support/chat-harness';
import type { LoginSession } from './support/login';

jest.setTimeout(60_000);

/**
 * The queue position a waiting turn shows is kept current: with no worker running, three turns
 * wait; as the turns ahead are cancelled or picked up, the last one's followers get
 * `turn.queued` with its new position, once per change.
 */
describe('chat turns: queue position while waiting', () => {
  let db: TestDatabase;
  let api: ApiInstance;
  let alice: LoginSession;
  let watcher: EventCollector | undefined;

  const http = () => request(api.app.getHttpServer());
  const newChat = async (): Promise<string> => {
    const res = await http().post('/api/chats').set(alice.headers).send({});
    expect(res.status).toBe(201);
    return (res.body as ChatSummaryView).id;
  };
  const post = async (chatId: string): Promise<PostMessageResponse> => {
    const res = await http()
      .post(`/api/chats/${chatId}/messages`)
      .set(alice.headers)
      .send({ content: 'How many findings?' });
    expect(res.status).toBe(202);
    return res.body as PostMessageResponse;
  };
  const positionsOf = (turnId: string): number[] =>
    (watcher?.forTurn(turnId) ?? [])
      .filter((e): e is ChatEventOf<'turn.queued'> => e.type === 'turn.queued')
      .map((e) => e.position);
  /** Waits (bounded) until the turn's followers were told `position`. */
  const toldPosition = async (turnId: string, position: number, ms = 10_000): Promise<void> => {
    await watcher!.until(
      () => (positionsOf(turnId).includes(position) ? true : undefined),
      ms,
      () =>
        `turn ${turnId} was not told position ${position} within ${ms} ms; got ${positionsOf(turnId).join(', ')}`,
    );
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    api = await startApiInstance({ databaseUrl: db.url, ...newDeployment() });
    alice = await signIn(api, db.dataSource);
  });

  afterAll(async () => {
    watcher?.close();
    await api?.close();
    await db?.drop();
  });

  it('publishes the new position when a turn ahead is cancelled or started, once per change', async () => {
    const chats = [await newChat(), await newChat(), await newChat()];
    const turns: PostMessageResponse[] = [];
    for (const chatId of chats) turns.push(await post(chatId));
    expect(turns.map((t) => t.queuePosition)).toEqual([1, 2, 3]);

    watcher = await openChatSocket(api, alice);
    expect(await watcher.join(chats[2])).toMatchObject({ ok: true, activeTurn: { turnId: turns[2].turnId } });
    await toldPosition(turns[2].turnId, 3);

    // The first turn is cancelled while it waits: the last one moves to 2.
    const cancel = await http()
      .post(`/api/chats/${chats[0]}/turns/${turns[0].turnId}/cancel`)
      .set(alice.headers)
      .send({});
    expect(cancel.body).toMatchObject({ state: 'cancelled' });
    await toldPosition(turns[2].turnId, 2);

    // A worker picks up the second one (as the worker marks it): the last one is next.
    expect(await markTestTurnRunning(db.dataSource, turns[1].turnId, 1, 'test-worker')).toBe(true);
    await toldPosition(turns[2].turnId, 1);

    const events = watcher.forTurn(turns[2].turnId);
    expectGapFree(events);
    expect(positionsOf(turns[2].turnId)).toEqual([3, 2, 1]);
    const stored = await db.dataSource.query(`SELECT queue_position FROM chat_turns WHERE id = $1`, [
      turns[2].turnId,
    ]);
    expect(stored).toEqual([{ queue_position: 1 }]);
  });
});
