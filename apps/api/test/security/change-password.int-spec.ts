/**
 * `POST /api/auth/password`: an operator changes their own password (real Postgres + Redis, the
 * auth and operators modules alone). The session that made the change continues with a fresh
 * cookie; every other session and socket of the operator ends; a wrong current password is refused
 * and slowed down like a failed sign-in.
 */
import type { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { OperatorEntity } from '@corpus-chat/persistence';
import { createTestDatabase, insertTestOperator, type TestDatabase } from '@corpus-chat/persistence/testing';
import { CSRF_HEADERS, connectChatSocket, loginAs } from '../support/login';
import { startAuthOnlyApp } from './standalone-app';

// A safety net, not a timing: a password change hashes at production argon2 cost (64 MiB, 3
// passes) and the sign-ins after it verify at that cost, seconds each on a loaded 2-core host.
jest.setTimeout(120_000);

let db: TestDatabase;
let app: NestExpressApplication;
let baseUrl: string;

beforeAll(async () => {
  db = await createTestDatabase();
  ({ app, baseUrl } = await startAuthOnlyApp(db.url, { LOGIN_FREE_ATTEMPTS: '3' }));
});
afterAll(async () => {
  await app?.close();
  await db?.drop();
});

const http = () => request(baseUrl);
const hashOf = async (id: string) =>
  (await db.dataSource.getRepository(OperatorEntity).findOneByOrFail({ id })).passwordHash;
const sessionCookie = (res: request.Response) =>
  ([] as string[])
    .concat(res.headers['set-cookie'] ?? [])
    .map((c) => c.split(';')[0]!)
    .filter((c) => c.startsWith('cc_session='))
    .at(-1);

describe('POST /api/auth/password', () => {
  it('changes the password: this session continues with a new cookie, other sessions and sockets end', async () => {
    const bob = await insertTestOperator(db.dataSource);
    const here = await loginAs(baseUrl, bob.username, bob.password);
    const elsewhere = await loginAs(baseUrl, bob.username, bob.password);
    const socket = await connectChatSocket(baseUrl, elsewhere);
    const disconnected = new Promise<string>((resolve) =>
      socket.once('disconnect', (reason) => resolve(reason)),
    );

    const res = await http()
      .post('/api/auth/password')
      .set(here.headers)
      .send({ currentPassword: bob.password, newPassword: 'a-fresh-password-1' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: bob.id, username: bob.username });
    expect(res.body.passwordHash).toBeUndefined();
    const renewed = sessionCookie(res);
    expect(renewed).toBeDefined();
    expect(String(res.headers['set-cookie'])).toMatch(/HttpOnly/i);

    expect(
      (
        await http()
          .get('/api/auth/me')
          .set({ Cookie: renewed!, ...CSRF_HEADERS })
      ).status,
    ).toBe(200);
    expect((await http().get('/api/auth/me').set(elsewhere.headers)).status).toBe(401);
    expect((await http().get('/api/auth/me').set(here.headers)).status).toBe(401); // the old cookie of this session too
    expect(await disconnected).toBe('io server disconnect');
    await expect(loginAs(baseUrl, bob.username, bob.password)).rejects.toThrow(/401/);
    await expect(loginAs(baseUrl, bob.username, 'a-fresh-password-1')).resolves.toBeDefined();
  });

  it('refuses a wrong current password with 403 and slows down repeated guesses (429), changing nothing', async () => {
    const carol = await insertTestOperator(db.dataSource);
    const s = await loginAs(baseUrl, carol.username, carol.password);
    const before = await hashOf(carol.id);
    for (let i = 0; i < 3; i++) {
      const r = await http()
        .post('/api/auth/password')
        .set(s.headers)
        .send({ currentPassword: `guess-${i}-xxxx`, newPassword: 'attacker-password' });
      expect(r.status).toBe(403);
      expect(r.body.message).toBe('Your current password is not right.');
    }
    const blocked = await http()
      .post('/api/auth/password')
      .set(s.headers)
      .send({ currentPassword: carol.password, newPassword: 'attacker-password' });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(await hashOf(carol.id)).toBe(before);
    // The session that guessed is still signed in: a wrong current password is not a sign-out.
    expect((await http().get('/api/auth/me').set(s.headers)).status).toBe(200);
  });

  it('validates the body: a short or unchanged new password, missing or unknown fields are 400', async () => {
    const dan = await insertTestOperator(db.dataSource);
    const s = await loginAs(baseUrl, dan.username, dan.password);
    const before = await hashOf(dan.id);
    const short = await http()
      .post('/api/auth/password')
      .set(s.headers)
      .send({ currentPassword: dan.password, newPassword: 'short' });
    expect(short.status).toBe(400);
    expect(JSON.stringify(short.body.message)).toContain('newPassword must be at least 10 characters');
    const same = await http()
      .post('/api/auth/password')
      .set(s.headers)
      .send({ currentPassword: dan.password, newPassword: dan.password });
    expect(same.status).toBe(400);
    expect(same.body.message).toMatch(/differs from the current one/);
    for (const body of [
      {},
      { newPassword: 'long-enough-pw' },
      { currentPassword: dan.password, newPassword: 'long-enough-pw', role: 'admin' },
      { currentPassword: 1, newPassword: 2 },
    ]) {
      expect((await http().post('/api/auth/password').set(s.headers).send(body)).status).toBe(400);
    }
    expect(await hashOf(dan.id)).toBe(before);
  });

  it('needs a session and the CSRF header', async () => {
    const erin = await insertTestOperator(db.dataSource);
    const s = await loginAs(baseUrl, erin.username, erin.password);
    const body = { currentPassword: erin.password, newPassword: 'long-enough-pw' };
    expect((await http().post('/api/auth/password').set(CSRF_HEADERS).send(body)).status).toBe(401);
    expect((await http().post('/api/auth/password').set('Cookie', s.cookie).send(body)).status).toBe(403);
    await expect(loginAs(baseUrl, erin.username, erin.password)).resolves.toBeDefined();
  });
});
