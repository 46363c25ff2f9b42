/**
 * The API's Prometheus metrics: served on `METRICS_PORT` only (never on the public port), with the
 * chat sockets connected to this instance and the turn queue's depth.
 */
import { MetricsServer } from '@corpus-chat/server-core';
import { createTestDatabase, type TestDatabase } from '@corpus-chat/persistence/testing';
import {
  type ApiInstance,
  eventually,
  newDeployment,
  openChatSocket,
  signIn,
  startApiInstance,
} from './support/chat-harness';

jest.setTimeout(40_000);

let db: TestDatabase;
let api: ApiInstance;
let metricsUrl: string;

beforeAll(async () => {
  db = await createTestDatabase();
  api = await startApiInstance({ databaseUrl: db.url, ...newDeployment(), env: { METRICS_PORT: '0' } });
  metricsUrl = `http://127.0.0.1:${api.app.get(MetricsServer).port}/metrics`;
});
afterAll(async () => {
  await api.close();
  await db.drop();
});

const socketsNow = async () => {
  const text = await (await fetch(metricsUrl)).text();
  return Number(/^corpus_chat_sockets (\d+)$/m.exec(text)?.[1]);
};

it('counts the chat sockets connected to this instance and reports the queues', async () => {
  expect(await socketsNow()).toBe(0);
  const session = await signIn(api, db.dataSource);
  const a = await openChatSocket(api, session);
  const b = await openChatSocket(api, session);
  expect(await socketsNow()).toBe(2);
  const text = await (await fetch(metricsUrl)).text();
  expect(text).toMatch(/^corpus_chat_queue_jobs\{queue="chat-turns",state="waiting"\} 0$/m);
  expect(text).toMatch(/^corpus_chat_queue_jobs\{queue="imports",state="active"\} 0$/m);
  a.socket.disconnect();
  b.socket.disconnect();
  await eventually(async () => ((await socketsNow()) === 0 ? true : undefined), 5000, 'no sockets left');
});

it('is not served on the public API port', async () => {
  expect((await fetch(`${api.baseUrl}/metrics`)).status).toBe(404);
  expect((await fetch(`${api.baseUrl}/api/metrics`)).status).toBe(404);
});
