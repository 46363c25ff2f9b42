import 'reflect-metadata';
import { getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import request from 'supertest';
import {
  CHAT_TURNS_QUEUE,
  type ChatEventOf,
  type ChatSummaryView,
  type PostMessageResponse,
} from '@corpus-chat/contracts';
import {
  createTestDatabase,
  eventually,
  startTcpProxy,
  type TcpProxy,
} from '@corpus-chat/persistence/testing';
import { JobSweeper } from '../src/jobs/job-sweeper';
import {
  type ApiInstance,
  type EventCollector,
  newDeployment,
  openChatSocket,
  signIn,
  startApiInstance,
} from './support/chat-harness';
import type { LoginSession } from './support/login';

import { newGate, openGate, scriptedMessage, type TurnScript } from './support/turn-script';
import { spawnWorkerProcess, type WorkerProcess } from './support/worker-process';

jest.setTimeout(90_000);

/** The worker's Postgres goes away mid-turn (a proxy on its DATABASE_URL is cut); the API's stays. */
describe('Postgres down mid-turn (for the worker)', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let proxy: TcpProxy;
  let api: ApiInstance;
  let session: LoginSession;
  let worker: WorkerProcess;
  let watcher: EventCollector;

  beforeAll(async () => {
    db = await createTestDatabase();
    const u = new URL(db.url);
    proxy = await startTcpProxy({ host: u.hostname, port: Number(u.port || 5432) });
    const deployment = newDeployment();
    api = await startApiInstance({ databaseUrl: db.url, ...deployment });
    session = await signIn(api, db.dataSource);
    worker = await spawnWorkerProcess({
      databaseUrl: proxy.url(db.url),
      redisPrefix: deployment.redisPrefix,
      env: { TURN_TIMEOUT_MS: '8000', LOCK_DURATION_MS: '2000', STALLED_INTERVAL_MS: '1000' },
    });
    watcher = await openChatSocket(api, session);
  });
  afterAll(async () => {
    watcher?.close();
    proxy?.restore();
    await worker?.stop();
    await api?.close();
    await proxy?.close();
    await db?.drop();
  });

  const http = () => request(api.app.getHttpServer());
  const post = async (script: TurnScript) => {
    const chatId = ((await http().post('/api/chats').set(session.headers).send({})).body as ChatSummaryView)
      .id;
    await watcher.join(chatId);
    const res = await http()
      .post(`/api/chats/${chatId}/messages`)
      .set(session.headers)
      .send({ content: scriptedMessage(script) });
    return (res.body as PostMessageResponse).turnId;
  };
  const answerOf = async (turnId: string) =>
    (
      (await db.dataSource.query(
        `SELECT t.status AS turn, m.status AS answer, m.content FROM chat_turns t
           LEFT JOIN chat_messages m ON m.turn_id = t.id AND m.role = 'assistant' WHERE t.id = $1`,
        [turnId],
      )) as { turn: string; answer: string | null; content: string | null }[]
    )[0];

  it('keeps trying to store the answer and stores it once Postgres is back, without running the turn again', async () => {
    const gate = newGate();
    const turnId = await post({ deltas: ['kept ', 'answer'], hold: { afterDeltas: 1, gate } });
    await watcher.waitFor(turnId, { count: 3 }); // queued, started, the first delta
    proxy.cut();
    const refusedBefore = proxy.refused;
    openGate(gate);
    // The worker has tried (and been refused) three times: it is retrying, not giving up.
    await eventually(() => proxy.refused - refusedBefore >= 3, 15_000, 'the worker retrying its store');
    expect(await answerOf(turnId)).toMatchObject({ turn: 'running', answer: null });
    proxy.restore();

    const done = (await watcher.waitFor(turnId, 'turn.done', 20_000)) as ChatEventOf<'turn.done'>;
    expect(watcher.forTurn(turnId).filter((e) => e.type === 'turn.started')).toHaveLength(1);
    expect(await answerOf(turnId)).toEqual({ turn: 'complete', answer: 'complete', content: 'kept answer' });
    expect(done.messageId).toBeTruthy();
  });

  it('past the turn’s time limit the turn ends with turn.error once Postgres is back; it never stays running', async () => {
    const gate = newGate();
    const turnId = await post({ deltas: ['lost ', 'answer'], hold: { afterDeltas: 1, gate } });
    await watcher.waitFor(turnId, { count: 3 });
    proxy.cut();
    openGate(gate);
    // The worker gives up at the turn's time limit (TURN_TIMEOUT_MS) and its job fails.
    const queue = api.app.get<Queue>(getQueueToken(CHAT_TURNS_QUEUE));
    await eventually(async () => (await queue.getJobState(turnId)) === 'failed', 30_000, 'the job failed');
    proxy.restore();

    // Either the worker's failure handler stores it (still retrying) or the sweep does.
    const sweeper = api.app.get(JobSweeper);
    await eventually(
      async () => {
        await sweeper.sweep(0);
        return (await answerOf(turnId)).turn === 'error';
      },
      30_000,
      'the turn ended',
    );
    const error = (await watcher.waitFor(turnId, 'turn.error')) as ChatEventOf<'turn.error'>;
    expect(['INTERNAL', 'WORKER_LOST']).toContain(error.code);
    expect(error.message).toMatch(/Ask again/);
  });
});
