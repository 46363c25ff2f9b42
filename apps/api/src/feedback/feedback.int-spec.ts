/**
 * Feedback on answers: the thread owner rates a finished answer up or down (with an optional
 * comment), changes it, sees it after a reload; anyone else gets the thread routes' 404; bad input
 * is a 400 that writes nothing; every change is audited; admins list it with filters, others get 403.
 */
import 'reflect-metadata';
import request from 'supertest';
import { TurnLedger } from '@corpus-chat/persistence';
import { insertTestOperator, storeTestTurn } from '@corpus-chat/persistence/testing';
import { apiOnOwnDatabase, signIn } from '../../test/support/chat-harness';
import { loginAs, type LoginSession } from '../../test/support/login';

const live = apiOnOwnDatabase();

const http = () => request(live.api.app.getHttpServer());

/** A thread of `session` with one answered turn (and, with `pending`, a second turn still queued). */
async function answeredTurn(session: LoginSession, question = 'How many critical findings?') {
  const chat = await http().post('/api/chats').set(session.headers).send({}).expect(201);
  const [{ owner_id: ownerId }]: { owner_id: string }[] = await live.db.dataSource.query(
    `SELECT owner_id FROM chat_sessions WHERE id = $1`,
    [chat.body.id],
  );
  const turn = await storeTestTurn(live.db.dataSource, ownerId, chat.body.id, { content: question });
  await new TurnLedger(live.db.dataSource).finish(turn.turnId, {
    status: 'complete',
    content: 'There are 3.',
    metadata: { toolCalls: [] },
    model: 'm',
  });
  return { chatId: chat.body.id as string, turnId: turn.turnId, ownerId };
}

const feedbackUrl = (chatId: string, turnId: string) => `/api/chats/${chatId}/turns/${turnId}/feedback`;
const auditOf = (turnId: string) =>
  live.db.dataSource.query(
    `SELECT action, actor_id AS "actorId", subject_type AS "subjectType", before, after FROM audit_events WHERE subject_id = $1 ORDER BY id`,
    [turnId],
  );

it('the owner rates an answer, changes the rating, and sees it in the thread; each change is audited', async () => {
  const owner = await signIn(live.api, live.db.dataSource);
  const { chatId, turnId, ownerId } = await answeredTurn(owner);

  const first = await http()
    .put(feedbackUrl(chatId, turnId))
    .set(owner.headers)
    .send({ rating: 'down', comment: '  wrong count  ' })
    .expect(200);
  expect(first.body).toMatchObject({ turnId, rating: 'down', comment: 'wrong count' });
  const changed = await http()
    .put(feedbackUrl(chatId, turnId))
    .set(owner.headers)
    .send({ rating: 'up' })
    .expect(200);
  expect(changed.body).toMatchObject({
    turnId,
    rating: 'up',
    comment: null,
    createdAt: first.body.createdAt,
  });

  const thread = await http().get(`/api/chats/${chatId}`).set(owner.headers).expect(200);
  const answer = thread.body.messages.find((m: { role: string }) => m.role === 'assistant');
  expect(answer.feedback).toMatchObject({ turnId, rating: 'up', comment: null });
  expect(thread.body.messages.find((m: { role: string }) => m.role === 'user').feedback).toBeUndefined();
  expect(
    await live.db.dataSource.query(`SELECT count(*)::int AS n FROM turn_feedback WHERE turn_id = $1`, [
      turnId,
    ]),
  ).toEqual([{ n: 1 }]);

  expect(await auditOf(turnId)).toEqual([
    {
      action: 'turn.feedback',
      actorId: ownerId,
      subjectType: 'turn',
      before: null,
      after: { chatId, rating: 'down', comment: 'wrong count' },
    },
    {
      action: 'turn.feedback',
      actorId: ownerId,
      subjectType: 'turn',
      before: { rating: 'down', comment: 'wrong count' },
      after: { chatId, rating: 'up', comment: null },
    },
  ]);
});

it("answers 404 for another operator's turn, exactly like an unknown one, and writes nothing", async () => {
  const owner = await signIn(live.api, live.db.dataSource);
  const other = await signIn(live.api, live.db.dataSource);
  const { chatId, turnId } = await answeredTurn(owner);
  const foreign = await http().put(feedbackUrl(chatId, turnId)).set(other.headers).send({ rating: 'down' });
  const unknown = await http()
    .put(feedbackUrl(chatId, '00000000-0000-4000-8000-000000000000'))
    .set(other.headers)
    .send({ rating: 'down' });
  expect(foreign.status).toBe(404);
  expect(foreign.body).toEqual(unknown.body);
  // The owner's own other thread with this turn id: the turn is not in it.
  const elsewhere = await http().post('/api/chats').set(owner.headers).send({}).expect(201);
  await http()
    .put(feedbackUrl(elsewhere.body.id, turnId))
    .set(owner.headers)
    .send({ rating: 'up' })
    .expect(404);
  expect(await live.db.dataSource.query(`SELECT 1 FROM turn_feedback WHERE turn_id = $1`, [turnId])).toEqual(
    [],
  );
  expect(await auditOf(turnId)).toEqual([]);
});

it('refuses a bad rating, a comment over 2,000 characters, bad ids and an unanswered turn, writing nothing', async () => {
  const owner = await signIn(live.api, live.db.dataSource);
  const { chatId, turnId, ownerId } = await answeredTurn(owner);
  const put = (body: unknown) =>
    http()
      .put(feedbackUrl(chatId, turnId))
      .set(owner.headers)
      .send(body as object);

  expect((await put({ rating: 'meh' })).body.message).toEqual(['rating must be one of up, down']);
  expect((await put({})).status).toBe(400);
  expect((await put({ rating: 'up', comment: 'x'.repeat(2001) })).body.message).toEqual([
    'comment must be at most 2,000 characters',
  ]);
  expect((await put({ rating: 'up', comment: 42 })).status).toBe(400);
  expect((await put({ rating: 'up', extra: true })).status).toBe(400);
  const badId = await http()
    .put(feedbackUrl(chatId, 'not-a-uuid'))
    .set(owner.headers)
    .send({ rating: 'up' })
    .expect(400);
  expect(badId.body.message).toBe('turnId must be a UUID');
  await put({ rating: 'up', comment: 'x'.repeat(2000) }).expect(200);

  // A turn still queued has no answer to rate yet.
  const queued = await storeTestTurn(live.db.dataSource, ownerId, chatId, { content: 'And high?' });
  const early = await http()
    .put(feedbackUrl(chatId, queued.turnId))
    .set(owner.headers)
    .send({ rating: 'up' })
    .expect(409);
  expect(early.body.message).toMatch(/no answer yet/);
  expect(
    await live.db.dataSource.query(
      `SELECT turn_id AS "turnId" FROM turn_feedback WHERE turn_id IN ($1, $2)`,
      [turnId, queued.turnId],
    ),
  ).toEqual([{ turnId }]);
  expect(await auditOf(queued.turnId)).toEqual([]);
});

it('lists feedback to admins with rating, operator and date filters, and refuses operators with 403', async () => {
  const admin = await insertTestOperator(live.db.dataSource, { role: 'admin' });
  const adminSession = await loginAs(live.api.app, admin.username, admin.password);
  const alice = await insertTestOperator(live.db.dataSource, {
    username: `alice-${Date.now().toString(36)}`,
  });
  const aliceSession = await loginAs(live.api.app, alice.username, alice.password);
  const bob = await signIn(live.api, live.db.dataSource);
  const a = await answeredTurn(aliceSession, 'Which report has the most criticals?');
  const b = await answeredTurn(bob, 'Show finding 42');
  await http()
    .put(feedbackUrl(a.chatId, a.turnId))
    .set(aliceSession.headers)
    .send({ rating: 'down', comment: 'missed one' })
    .expect(200);
  await http().put(feedbackUrl(b.chatId, b.turnId)).set(bob.headers).send({ rating: 'up' }).expect(200);

  const byAlice = await http()
    .get(`/api/feedback?operatorId=${alice.id}`)
    .set(adminSession.headers)
    .expect(200);
  expect(byAlice.body).toMatchObject({ total: 1, limit: 50, offset: 0 });
  expect(byAlice.body.entries).toEqual([
    expect.objectContaining({
      turnId: a.turnId,
      chatId: a.chatId,
      chatTitle: 'Which report has the most criticals?',
      operatorId: alice.id,
      operatorName: alice.username,
      rating: 'down',
      comment: 'missed one',
      question: 'Which report has the most criticals?',
    }),
  ]);
  const downs = (await http().get('/api/feedback?rating=down').set(adminSession.headers).expect(200)).body
    .entries as { turnId: string; rating: string }[];
  expect(downs.map((e) => e.turnId)).toContain(a.turnId);
  expect(downs.map((e) => e.turnId)).not.toContain(b.turnId);
  expect(downs.every((e) => e.rating === 'down')).toBe(true);

  const [{ at }]: { at: Date }[] = await live.db.dataSource.query(
    `SELECT updated_at AS at FROM turn_feedback WHERE turn_id = $1`,
    [b.turnId],
  );
  const since = (
    await http()
      .get(`/api/feedback?from=${encodeURIComponent(new Date(at).toISOString())}`)
      .set(adminSession.headers)
      .expect(200)
  ).body;
  expect(since.entries.map((e: { turnId: string }) => e.turnId)).toContain(b.turnId);
  const before = (
    await http()
      .get(`/api/feedback?to=${encodeURIComponent(new Date(at).toISOString())}`)
      .set(adminSession.headers)
      .expect(200)
  ).body;
  expect(before.entries.map((e: { turnId: string }) => e.turnId)).not.toContain(b.turnId);

  const bad = await http()
    .get('/api/feedback?rating=sideways&from=yesterday')
    .set(adminSession.headers)
    .expect(400);
  expect(bad.body.message).toEqual(
    expect.arrayContaining(['rating must be one of up, down', 'from must be an ISO 8601 date or date-time']),
  );
  await http().get('/api/feedback').set(aliceSession.headers).expect(403);
  await http().get('/api/feedback').expect(401);
});
