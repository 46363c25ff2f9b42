import 'reflect-metadata';
import { getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import request from 'supertest';
import {
  CHAT_TURNS_QUEUE,
  type ChatDetailView,
  type ChatSummaryView,
  type OperatorLanguage,
  type PostMessageResponse,
  type RunTurnJobData,
} from '@corpus-chat/contracts';
import { searchFindings } from '@corpus-chat/corpus-queries';
import { createTestDatabase, type TestDatabase } from '@corpus-chat/persistence/testing';
import { importCorpusFiles } from '@corpus-chat/ingest/testing';
import {
  type ApiInstance,
  eventually,
  newDeployment,
  signIn,
  startApiInstance,
} from './support/chat-harness';
import type { LoginSession } from './support/login';
import { spawnWorkerProcess, type WorkerProcess } from './support/worker-process';

jest.setTimeout(60_000);

/**
 * The answer language end to end: the API reads the operator's language when it queues a turn and
 * puts it in the job; a worker process running the real agent (the built-in planner) answers in it,
 * whatever language the question is in. Real Postgres, Redis, BullMQ and worker process.
 */
describe('chat turns in the operator’s language: API → job → worker → planner', () => {
  let db: TestDatabase;
  let api: ApiInstance;
  let worker: WorkerProcess;
  let operator: LoginSession;
  let queue: Queue<RunTurnJobData>;
  let criticals: number;

  const http = () => request(api.app.getHttpServer());
  const setLanguage = (language: OperatorLanguage) =>
    db.dataSource.query('UPDATE operators SET language = $1 WHERE id = $2', [language, operator.operator.id]);

  /** Posts `question` in a new thread and resolves with the stored answer once the turn ended. */
  const ask = async (question: string): Promise<{ turnId: string; content: string }> => {
    const chat = await http().post('/api/chats').set(operator.headers).send({});
    expect(chat.status).toBe(201);
    const chatId = (chat.body as ChatSummaryView).id;
    const posted = await http()
      .post(`/api/chats/${chatId}/messages`)
      .set(operator.headers)
      .send({ content: question });
    expect(posted.status).toBe(202);
    const { turnId } = posted.body as PostMessageResponse;
    const answer = await eventually(
      async () => {
        const thread = (await http().get(`/api/chats/${chatId}`).set(operator.headers))
          .body as ChatDetailView;
        return thread.activeTurn
          ? undefined
          : thread.messages.find((m) => m.role === 'assistant' && m.turnId === turnId);
      },
      30_000,
      `the answer to "${question}"`,
    );
    expect(answer?.status).toBe('complete');
    return { turnId, content: answer?.content ?? '' };
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    expect(
      (
        await importCorpusFiles(db.dataSource, [
          'scans/sarif/dd__flawfinder.sarif',
          'scans/trivy/scb__juice-shop-v12.10.2.json',
        ])
      ).every((o) => o.ok),
    ).toBe(true);
    criticals = (await searchFindings(db.dataSource.manager, { severity: 'critical' })).total;
    const deployment = newDeployment();
    [api, worker] = await Promise.all([
      startApiInstance({ databaseUrl: db.url, ...deployment }),
      spawnWorkerProcess({
        databaseUrl: db.url,
        redisPrefix: deployment.redisPrefix,
        env: { TEST_AGENT: 'production' },
      }),
    ]);
    queue = api.app.get<Queue<RunTurnJobData>>(getQueueToken(CHAT_TURNS_QUEUE));
    operator = await signIn(api, db.dataSource);
  }, 120_000);

  afterAll(async () => {
    await worker?.stop();
    await api?.close();
    await db?.drop();
  });

  it('answers a Russian operator in Russian, for a Russian or an English question; the job carries the language', async () => {
    expect(criticals).toBeGreaterThan(4); // so the Russian plural below is the "many" or "few" form, not "one"
    await setLanguage('ru');
    const grouped = new Intl.NumberFormat('ru').format(criticals);

    const russian = await ask('Сколько критических находок?');
    expect(russian.content).toMatch(new RegExp(`^\\*\\*${grouped}\\*\\* наход(ки|ок) соответству`));
    expect(russian.content).toContain('серьёзность критическая');
    expect((await queue.getJob(russian.turnId))?.data.language).toBe('ru');

    const english = await ask('How many critical findings are there?');
    expect(english.content).toMatch(new RegExp(`^\\*\\*${grouped}\\*\\* наход(ки|ок) соответству`));
    expect(english.content).not.toMatch(/findings match/);
  });

  it('reads the language when the question is asked: after a switch to English the next answer is English', async () => {
    await setLanguage('ru');
    const before = await ask('Сколько отчётов?');
    expect(before.content).toMatch(/^Всего \*\*2\*\* отчёта/);
    await setLanguage('en');
    const after = await ask('Сколько критических находок?');
    expect(after.content).toMatch(new RegExp(`^\\*\\*${criticals}\\*\\* findings match severity critical`));
    expect(after.content).not.toMatch(/\p{Script=Cyrillic}/u);
    expect((await queue.getJob(after.turnId))?.data.language).toBe('en');
  });
});
