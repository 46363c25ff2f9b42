/**
 * The per-operator import quota: imports queued or running (`IMPORT_QUEUE_PER_OPERATOR`) and bytes
 * of queued uploads (`IMPORT_QUEUED_BYTES_PER_OPERATOR`). No worker runs, so uploads stay queued.
 */
import 'reflect-metadata';
import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { createTestDatabase, type TestDatabase } from '@corpus-chat/persistence/testing';
import { type ApiInstance, newDeployment, signIn, startApiInstance } from './support/chat-harness';
import type { LoginSession } from './support/login';

jest.setTimeout(120_000);

const QUEUED_BYTES = 100_000;

let db: TestDatabase;
let api: ApiInstance;

beforeAll(async () => {
  db = await createTestDatabase();
  api = await startApiInstance({
    databaseUrl: db.url,
    ...newDeployment(),
    env: { IMPORT_QUEUE_PER_OPERATOR: '2', IMPORT_QUEUED_BYTES_PER_OPERATOR: String(QUEUED_BYTES) },
  });
});
afterAll(async () => {
  await api?.close();
  await db?.drop();
});

const upload = (who: LoginSession, ...files: { bytes: Buffer; name: string }[]) => {
  let req = request(api.baseUrl).post('/api/reports/import').set(who.headers);
  for (const f of files) req = req.attach('files', f.bytes, f.name);
  return req;
};
const csv = (name: string, bytes = 64) => ({
  name,
  bytes: Buffer.from(`title,severity\n${'x'.repeat(Math.max(1, bytes - 20))},high\n`),
});
const queuedOf = async (who: LoginSession): Promise<number> =>
  (
    await db.dataSource.query(`SELECT count(*)::int AS n FROM import_jobs WHERE operator_id = $1`, [
      who.operator.id,
    ])
  )[0].n;
const uploadsLeft = () => {
  const dir = path.join(api.env.DATA_DIR, 'uploads');
  return fs.existsSync(dir) ? fs.readdirSync(dir).length : 0;
};

it('refuses imports past the operator’s queued or running count with 429 saying what to do, keeping nothing', async () => {
  const alice = await signIn(api, db.dataSource);
  const bob = await signIn(api, db.dataSource);
  const first = await upload(alice, csv('a.csv'), csv('b.csv'));
  expect(first.status).toBe(202);
  const filesBefore = uploadsLeft();
  const refused = await upload(alice, csv('c.csv'));
  expect(refused.status).toBe(429);
  expect(refused.body).toMatchObject({ error: 'IMPORT_QUOTA', queued: 2 });
  expect(refused.body.message).toMatch(
    /You have 2 imports waiting or running.*limit of 2; nothing was imported/,
  );
  expect(refused.body.message).toMatch(/cancel ones you no longer need/);
  expect(await queuedOf(alice)).toBe(2);
  expect(uploadsLeft()).toBe(filesBefore);
  // Another operator's queue is their own.
  expect((await upload(bob, csv('d.csv'))).status).toBe(202);
  // An ended import no longer counts.
  const id: string = first.body.imports[0].id;
  expect((await request(api.baseUrl).post(`/api/imports/${id}/cancel`).set(alice.headers)).status).toBe(200);
  expect((await upload(alice, csv('c.csv'))).status).toBe(202);
});

it('refuses uploads past the bytes of queued uploads with 429, and two parallel uploads cannot both pass', async () => {
  const carol = await signIn(api, db.dataSource);
  const big = (name: string) => csv(name, QUEUED_BYTES * 0.6);
  const answers = await Promise.all([upload(carol, big('e.csv')), upload(carol, big('f.csv'))]);
  expect(answers.map((r) => r.status).sort()).toEqual([202, 429]);
  const refused = answers.find((r) => r.status === 429)!;
  expect(refused.body.message).toMatch(
    /Your queued uploads hold 58\.6 KB, and these 58\.6 KB would pass your limit of 97\.7 KB/,
  );
  expect(await queuedOf(carol)).toBe(1);
});

it('counts chat attachments against the same quota: past it, 429 and nothing attached', async () => {
  const dave = await signIn(api, db.dataSource);
  expect((await upload(dave, csv('g.csv'), csv('h.csv'))).status).toBe(202);
  const chat = await request(api.baseUrl).post('/api/chats').set(dave.headers).send({}).expect(201);
  const attached = await request(api.baseUrl)
    .post(`/api/chats/${chat.body.id}/attachments`)
    .set(dave.headers)
    .attach('file', csv('i.csv').bytes, 'i.csv');
  expect(attached.status).toBe(429);
  expect(attached.body).toMatchObject({ error: 'IMPORT_QUOTA', queued: 2 });
  expect(await queuedOf(dave)).toBe(2);
  const attachments = await db.dataSource.query(
    `SELECT count(*)::int AS n FROM chat_attachments WHERE chat_id = $1`,
    [chat.body.id],
  );
  expect(attachments[0].n).toBe(0);
});
