/**
 * `GET /api/chats/:id/export.md`: the owner gets the thread as Markdown (title, each message with
 * its role and time, tool calls as one line, answers verbatim), recorded as `chat.export` in the
 * audit log; anyone else gets a 404.
 */
import 'reflect-metadata';
import request from 'supertest';
import type { AssistantMessageMetadata } from '@corpus-chat/contracts';
import { TurnLedger } from '@corpus-chat/persistence';
import { storeTestTurn } from '@corpus-chat/persistence/testing';
import { apiOnOwnDatabase, signIn } from '../../test/support/chat-harness';

const live = apiOnOwnDatabase();

const http = () => request(live.api.app.getHttpServer());
const ANSWER =
  'There are **3** critical findings:\n\n| id | title |\n|---|---|\n| 7 | SQL injection |\n\n# not a heading of ours';

it('exports the own thread as Markdown and 404s for anyone else', async () => {
  const owner = await signIn(live.api, live.db.dataSource);
  const other = await signIn(live.api, live.db.dataSource);
  const chat = await http()
    .post('/api/chats')
    .set(owner.headers)
    .send({ title: 'Critical\nfindings' })
    .expect(201);
  const [{ owner_id: ownerId }]: { owner_id: string }[] = await live.db.dataSource.query(
    `SELECT owner_id FROM chat_sessions WHERE id = $1`,
    [chat.body.id],
  );
  const turn = await storeTestTurn(live.db.dataSource, ownerId, chat.body.id, {
    content: 'How many critical findings?',
  });
  const metadata: AssistantMessageMetadata = {
    toolCalls: [
      {
        callId: 'c1',
        name: 'search_findings',
        args: { severity: 'critical' },
        ok: true,
        summary: 'search_findings: 3 findings\nfor severity=critical',
      },
      { callId: 'c2', name: 'count_findings_by', args: {}, ok: false, summary: 'groupBy is required' },
    ],
  };
  await new TurnLedger(live.db.dataSource).finish(turn.turnId, {
    status: 'complete',
    content: ANSWER,
    metadata,
    model: 'm',
  });

  const detail = await http().get(`/api/chats/${chat.body.id}`).set(owner.headers).expect(200);
  const [question, answer] = detail.body.messages as { createdAt: string }[];
  const res = await http()
    .get(`/api/chats/${chat.body.id}/export.md`)
    .set(owner.headers)
    .buffer(true)
    .expect(200);
  expect(res.headers['content-type']).toMatch(/^text\/markdown/);
  expect(res.headers['content-disposition']).toBe(`attachment; filename="chat-${chat.body.id}.md"`);
  expect(res.text).toBe(
    [
      '# Critical findings',
      `## Operator · ${question.createdAt}`,
      'How many critical findings?',
      `## Assistant · ${answer.createdAt}`,
      '- Tool `search_findings`: search_findings: 3 findings for severity=critical\n- Tool `count_findings_by` (failed): groupBy is required',
      ANSWER,
    ].join('\n\n') + '\n',
  );

  const events = await live.db.dataSource.query(
    `SELECT action, actor_id, subject_type, subject_id, after FROM audit_events WHERE action = 'chat.export'`,
  );
  expect(events).toEqual([
    {
      action: 'chat.export',
      actor_id: owner.operator.id,
      subject_type: 'chat',
      subject_id: chat.body.id,
      after: { messageCount: 2 },
    },
  ]);

  await http().get(`/api/chats/${chat.body.id}/export.md`).set(other.headers).expect(404);
  await http()
    .get('/api/chats/00000000-0000-4000-8000-000000000000/export.md')
    .set(owner.headers)
    .expect(404);
  await http().get(`/api/chats/${chat.body.id}/export.md`).expect(401);
  // Refused exports leave no event.
  expect(
    await live.db.dataSource.query(
      `SELECT count(*)::int AS n FROM audit_events WHERE action = 'chat.export'`,
    ),
  ).toEqual([{ n: 1 }]);
});
