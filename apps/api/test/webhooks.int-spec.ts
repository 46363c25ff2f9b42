/**
 * Webhooks end to end, with the real API, an in-process agent-worker and local HTTP receivers: an
 * operator registers endpoints, a turn ends, the worker signs and sends each delivery (the receiver
 * verifies it with the `standardwebhooks` library), retries a 500 with back-off until a 200, and
 * records the outcome the API lists. A redirect is never followed; a failed delivery can be sent
 * again. Registration refuses what `WEBHOOK_URL_ALLOWLIST` and the private-address rule refuse.
 */
import 'reflect-metadata';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { Webhook } from 'standardwebhooks';
import type {
  CreatedWebhookEndpoint,
  PostMessageResponse,
  WebhookDeliveryView,
  WebhookPayload,
} from '@corpus-chat/contracts';
import { createTestDatabase, type TestDatabase } from '@corpus-chat/persistence/testing';
import {
  type ApiInstance,
  eventually,
  newDeployment,
  signIn,
  startApiInstance,
} from './support/chat-harness';
import type { LoginSession } from './support/login';
import { spawnWorkerProcess, WORKER_START_MS, type WorkerProcess } from './support/worker-process';

jest.setTimeout(120_000);

/** One request a receiver got, and whether its signature verified. */
interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  verified: boolean;
  answered: number;
}

/** A local receiver: `answers` per path, in order (the last repeats); verifies with `secrets[path]`. */
async function startReceiver(
  answers: Record<string, { status: number; headers?: Record<string, string> }[]>,
) {
  const received: Received[] = [];
  const secrets: Record<string, string> = {};
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '';
      const body = Buffer.concat(chunks).toString('utf8');
      let verified = false;
      try {
        new Webhook(secrets[path] ?? 'whsec_AAAA').verify(body, req.headers as Record<string, string>);
        verified = true;
      } catch {
        verified = false;
      }
      const list = answers[path] ?? [{ status: 404 }];
      const answer = list[Math.min(received.filter((r) => r.path === path).length, list.length - 1)]!;
      received.push({ path, headers: req.headers, body, verified, answered: answer.status });
      res.writeHead(answer.status, answer.headers).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, received, secrets, close: () => new Promise((r) => server.close(r)) };
}

let db: TestDatabase;
let api: ApiInstance;
let strictApi: ApiInstance;
let worker: WorkerProcess;
let alice: LoginSession;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

const httpOf = (on: ApiInstance) => request(on.app.getHttpServer());
const deliveries = async (): Promise<WebhookDeliveryView[]> =>
  (await httpOf(api).get('/api/webhooks/deliveries').set(alice.headers).expect(200)).body;

beforeAll(async () => {
  db = await createTestDatabase();
  receiver = await startReceiver({
    '/hook': [{ status: 500 }, { status: 500 }, { status: 200 }],
    '/moved': [{ status: 302, headers: { location: '/hook-elsewhere' } }],
  });
  const deployment = newDeployment();
  // Short retries by configuration; the production schedule is untouched.
  const webhookEnv = {
    WEBHOOK_URL_ALLOWLIST: '127.0.0.1',
    WEBHOOK_ATTEMPTS: '4',
    WEBHOOK_RETRY_DELAY_MS: '50',
  };
  api = await startApiInstance({ databaseUrl: db.url, ...deployment, env: webhookEnv });
  // The same deployment with the default (empty) allowlist: public https hosts only.
  strictApi = await startApiInstance({ databaseUrl: db.url, ...deployment });
  worker = await spawnWorkerProcess({
    databaseUrl: db.url,
    redisPrefix: deployment.redisPrefix,
    env: { ...webhookEnv, PUBLIC_ORIGIN: 'https://chat.example.org' },
  });
  alice = await signIn(api, db.dataSource);
}, WORKER_START_MS + 30_000);

afterAll(async () => {
  await worker?.stop();
  await api?.close();
  await strictApi?.close();
  await receiver?.close();
  await db?.drop();
});

async function register(path: string, events: string[]): Promise<CreatedWebhookEndpoint> {
  const res = await httpOf(api)
    .post('/api/webhooks')
    .set(alice.headers)
    .send({ url: receiver.base + path, events })
    .expect(201);
  const created = res.body as CreatedWebhookEndpoint;
  receiver.secrets[path] = created.secret;
  return created;
}

it('signs each attempt, retries 500s with back-off, and lists the one accepted delivery as delivered', async () => {
  const endpoint = await register('/hook', ['turn.done']);
  expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{40,}$/);
  const listed = await httpOf(api).get('/api/webhooks').set(alice.headers).expect(200);
  expect(listed.body).toEqual([expect.objectContaining({ id: endpoint.id, events: ['turn.done'] })]);
  expect(JSON.stringify(listed.body)).not.toContain(endpoint.secret);

  const chat = await httpOf(api).post('/api/chats').set(alice.headers).send({}).expect(201);
  const posted = await httpOf(api)
    .post(`/api/chats/${chat.body.id}/messages`)
    .set(alice.headers)
    .send({ content: 'How many findings?' })
    .expect(202);
  const { turnId } = posted.body as PostMessageResponse;

  const [delivered] = (await eventually(
    async () => {
      const list = await deliveries();
      return list.length === 1 && list[0]!.status === 'delivered' ? list : null;
    },
    60_000,
    'the delivery listed as delivered',
  ))!;
  expect(delivered).toMatchObject({
    endpointId: endpoint.id,
    eventType: 'turn.done',
    turnId,
    threadId: chat.body.id,
    status: 'delivered',
    attempts: 3,
    lastStatusCode: 200,
    lastError: null,
  });

  const hits = receiver.received.filter((r) => r.path === '/hook');
  expect(hits.map((h) => [h.answered, h.verified])).toEqual([
    [500, true],
    [500, true],
    [200, true],
  ]);
  expect(hits.filter((h) => h.answered === 200)).toHaveLength(1);
  // One message, retried: the same id (a receiver drops repeats by it) and body on every attempt.
  expect(new Set(hits.map((h) => h.headers['webhook-id']))).toEqual(new Set([delivered!.id]));
  expect(new Set(hits.map((h) => h.body)).size).toBe(1);
  const payload = JSON.parse(hits[0]!.body) as WebhookPayload;
  const [{ content, title }] = await db.dataSource.query(
    `SELECT m.content, c.title FROM chat_messages m JOIN chat_sessions c ON c.id = m.chat_id
      WHERE m.turn_id = $1 AND m.role = 'assistant'`,
    [turnId],
  );
  expect(payload).toEqual({
    type: 'turn.done',
    timestamp: expect.any(String),
    data: {
      threadId: chat.body.id,
      threadTitle: title,
      turnId,
      text: content,
      link: `https://chat.example.org/chat/${chat.body.id}`,
    },
  });
  expect(content.length).toBeGreaterThan(0);

  // A delivered one is not sent again.
  await httpOf(api).post(`/api/webhooks/deliveries/${delivered!.id}/resend`).set(alice.headers).expect(409);
});

it('does not follow a redirect; the failed delivery can be sent again', async () => {
  const endpoint = await register('/moved', ['turn.error']);
  const chat = await httpOf(api).post('/api/chats').set(alice.headers).send({}).expect(201);
  await httpOf(api)
    .post(`/api/chats/${chat.body.id}/messages`)
    .set(alice.headers)
    .send({ content: 'Fail please [[script {"fatal":"INTERNAL"}]]' })
    .expect(202);
  const failedOnce = (await eventually(
    async () => (await deliveries()).find((d) => d.endpointId === endpoint.id && d.status === 'failed'),
    60_000,
    'the redirected delivery marked failed',
  ))!;
  expect(failedOnce).toMatchObject({ eventType: 'turn.error', attempts: 4, lastStatusCode: 302 });
  expect(failedOnce.lastError).toMatch(/redirect.*not followed/);
  expect(receiver.received.filter((r) => r.path === '/moved')).toHaveLength(4);
  expect(receiver.received.filter((r) => r.path === '/hook-elsewhere')).toEqual([]);

  await httpOf(api).post(`/api/webhooks/deliveries/${failedOnce.id}/resend`).set(alice.headers).expect(202);
  const failedTwice = (await eventually(
    async () =>
      (await deliveries()).find((d) => d.id === failedOnce.id && d.attempts === 8 && d.status === 'failed'),
    60_000,
    'the resent delivery failed again after its attempts',
  ))!;
  expect(failedTwice.lastStatusCode).toBe(302);
  expect(receiver.received.filter((r) => r.path === '/moved')).toHaveLength(8);
});

it('refuses URLs the allowlist or the private-address rule forbids, with a message saying why', async () => {
  const bob = await signIn(strictApi, db.dataSource);
  const refuse = async (on: ApiInstance, who: LoginSession, url: string, status: number) =>
    (
      await httpOf(on)
        .post('/api/webhooks')
        .set(who.headers)
        .send({ url, events: ['turn.done'] })
        .expect(status)
    ).body.message as string;

  // Empty allowlist: no private or local address, by literal or by name.
  expect(await refuse(strictApi, bob, 'https://127.0.0.1/hook', 422)).toMatch(/private or local address/);
  expect(await refuse(strictApi, bob, 'https://10.1.2.3/hook', 422)).toMatch(/private or local address/);
  expect(await refuse(strictApi, bob, 'https://[::1]/hook', 422)).toMatch(/private or local address/);
  expect(await refuse(strictApi, bob, 'https://localhost/hook', 422)).toMatch(/resolves to .*private/);
  expect(await refuse(strictApi, bob, 'http://93.184.216.34/hook', 422)).toMatch(/https/);
  // A list: only what it names.
  expect(await refuse(api, alice, 'https://10.1.2.3/hook', 422)).toMatch(
    /not allowed by WEBHOOK_URL_ALLOWLIST/,
  );
  // Bad input and roles.
  expect(await refuse(api, alice, 'ftp://example.org/x', 400)).toEqual(expect.anything());
  await httpOf(api)
    .post('/api/webhooks')
    .set(alice.headers)
    .send({ url: 'https://example.org', events: [] })
    .expect(400);
  expect(
    (
      await httpOf(api)
        .post('/api/webhooks')
        .set(alice.headers)
        .send({ url: `${receiver.base}/x`, events: ['turn.done'], allOperators: true })
        .expect(403)
    ).body.message,
  ).toMatch(/Only an admin/);
  const [{ n }] = await db.dataSource.query(
    `SELECT count(*)::int AS n FROM webhook_endpoints WHERE operator_id = $1`,
    [bob.operator.id],
  );
  expect(n).toBe(0);
});

it('audits registering and deleting an endpoint; deleting removes its deliveries', async () => {
  const endpoint = await register('/audited', ['turn.cancelled']);
  await httpOf(api).delete(`/api/webhooks/${endpoint.id}`).set(alice.headers).expect(204);
  await httpOf(api).delete(`/api/webhooks/${endpoint.id}`).set(alice.headers).expect(404);
  const audit = await db.dataSource.query(
    `SELECT action, before, after FROM audit_events WHERE action LIKE 'webhook.%' AND (after->>'webhookId' = $1 OR before->>'webhookId' = $1) ORDER BY id`,
    [endpoint.id],
  );
  expect(audit).toEqual([
    { action: 'webhook.create', before: null, after: expect.objectContaining({ url: endpoint.url }) },
    { action: 'webhook.delete', before: { webhookId: endpoint.id, url: endpoint.url }, after: null },
  ]);
  expect(JSON.stringify(audit)).not.toContain(receiver.secrets['/audited']);
});
