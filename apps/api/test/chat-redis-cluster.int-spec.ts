import 'reflect-metadata';
import request from 'supertest';
import { Cluster } from 'ioredis';
import type { ChatDetailView, ChatSummaryView, PostMessageResponse } from '@corpus-chat/contracts';
import { createTestDatabase, type TestDatabase } from '@corpus-chat/persistence/testing';
import { RedisKeys } from '@corpus-chat/server-core';
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
import { startTestRedisCluster, type TestRedisCluster } from './support/redis-cluster';
import { scriptedMessage } from './support/turn-script';
import { spawnWorkerProcess, WORKER_START_MS, type WorkerProcess } from './support/worker-process';

jest.setTimeout(60_000);

/**
 * The turn path on a 3-master Redis Cluster this file starts (`REDIS_CLUSTER_NODES`): an API
 * instance and a worker process, BullMQ, the event bus's script, pub/sub, the Socket.IO adapter,
 * the sign-in slow-down and the rate limiter all on cluster clients.
 */
describe('chat turns on Redis Cluster', () => {
  let cluster: TestRedisCluster;
  let db: TestDatabase;
  let api: ApiInstance;
  let worker: WorkerProcess;
  let alice: LoginSession;
  let socket: EventCollector | undefined;
  let keys: RedisKeys;

  beforeAll(async () => {
    [cluster, db] = await Promise.all([startTestRedisCluster(), createTestDatabase()]);
    const deployment = newDeployment();
    keys = new RedisKeys(deployment.redisPrefix);
    // REDIS_URL names a node too: in cluster mode only its credentials would count.
    const redis = {
      redisUrl: `redis://127.0.0.1:${cluster.ports[0]}`,
      env: { REDIS_CLUSTER_NODES: cluster.nodes },
    };
    [api, worker] = await Promise.all([
      startApiInstance({ databaseUrl: db.url, ...deployment, ...redis }),
      spawnWorkerProcess({ databaseUrl: db.url, redisPrefix: deployment.redisPrefix, ...redis }),
    ]);
    alice = await signIn(api, db.dataSource);
  }, WORKER_START_MS + 60_000);

  afterAll(async () => {
    socket?.close();
    await worker?.stop();
    await api?.close();
    await db?.drop();
    await cluster?.stop();
  });

  it('streams a turn to the socket and stores the answer; every key of the deployment is in one slot', async () => {
    const http = request(api.app.getHttpServer());
    const chatId = ((await http.post('/api/chats').set(alice.headers).send({})).body as ChatSummaryView).id;
    socket = await openChatSocket(api, alice);
    expect(await socket.join(chatId)).toEqual({ ok: true, activeTurn: null });
    const res = await http
      .post(`/api/chats/${chatId}/messages`)
      .set(alice.headers)
      .send({ content: scriptedMessage({ tool: true, deltas: ['Seven ', 'findings.'] }) });
    expect(res.status).toBe(202);
    const { turnId } = res.body as PostMessageResponse;

    await socket.waitFor(turnId, 'turn.done');
    const events = socket.forTurn(turnId);
    expectGapFree(events);
    expect(events.map((e) => e.type)).toEqual([
      'turn.queued',
      'turn.started',
      'tool.call',
      'tool.result',
      'text.delta',
      'text.delta',
      'turn.done',
    ]);
    const thread = (await http.get(`/api/chats/${chatId}`).set(alice.headers)).body as ChatDetailView;
    expect(thread.messages.map((m) => [m.role, m.status, m.content])).toEqual([
      ['user', 'complete', expect.any(String)],
      ['assistant', 'complete', 'Seven findings.'],
    ]);

    // Where the keys landed: the deployment's on the one master owning its hash tag, except the
    // rate limiter's counters, which the limiter tags itself (per operator and route).
    const client = new Cluster(
      cluster.nodes.split(',').map((n) => ({ host: '127.0.0.1', port: Number(n.split(':')[1]) })),
    );
    try {
      const slot = Number(await client.call('CLUSTER', 'KEYSLOT', keys.root));
      const found: { port: number; key: string }[] = [];
      for (const node of client.nodes('master')) {
        for (const key of await node.keys(`*${keys.prefix}*`)) found.push({ port: node.options.port!, key });
      }
      const tagged = found.filter(({ key }) => key.startsWith(`${keys.root}:`));
      const limiter = found.filter(({ key }) => key.startsWith(`{${keys.prefix}:auth:throttle:`));
      expect(found.length).toBe(tagged.length + limiter.length);
      expect(limiter.length).toBeGreaterThan(0);
      expect(tagged.map(({ key }) => key)).toEqual(
        expect.arrayContaining([
          keys.turnEvents(turnId),
          `${keys.bullPrefix}:chat-turns:meta`,
          expect.stringMatching(`^${keys.root.replace(/[{}]/g, '\\$&')}:auth:login-fail:`),
        ]),
      );
      const owner = Number(
        ((await client.call('CLUSTER', 'SLOTS')) as [number, number, [string, number]][]).find(
          ([from, to]) => from <= slot && slot <= to,
        )![2][1],
      );
      expect(new Set(tagged.map(({ port }) => port))).toEqual(new Set([owner]));
    } finally {
      client.disconnect();
    }
  });

  it('stops a running turn on request (cancel key and channel): turn.cancelled, stored as cancelled', async () => {
    const http = request(api.app.getHttpServer());
    const chatId = ((await http.post('/api/chats').set(alice.headers).send({})).body as ChatSummaryView).id;
    expect((await socket!.join(chatId)).ok).toBe(true);
    // A minute of deltas: it cannot end by itself before the cancel.
    const res = await http
      .post(`/api/chats/${chatId}/messages`)
      .set(alice.headers)
      .send({ content: scriptedMessage({ deltaCount: 1200, deltaMs: 50 }) });
    const { turnId } = res.body as PostMessageResponse;
    await socket!.waitFor(turnId, 'text.delta');
    const cancel = await http.post(`/api/chats/${chatId}/turns/${turnId}/cancel`).set(alice.headers).send();
    // `cancelled` when its worker obeyed the signal before the API read the job's state.
    expect([
      { turnId, state: 'stopping' },
      { turnId, state: 'cancelled' },
    ]).toContainEqual(cancel.body);
    expect((await socket!.waitFor(turnId, undefined, 10_000)).type).toBe('turn.cancelled');
    const thread = (await http.get(`/api/chats/${chatId}`).set(alice.headers)).body as ChatDetailView;
    expect(thread.messages.map((m) => [m.role, m.status])).toEqual([
      ['user', 'complete'],
      ['assistant', 'cancelled'],
    ]);
  });
});
