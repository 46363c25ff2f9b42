/**
 * Sessions and the operator's own account on the auth and operators modules alone (real Postgres
 * and Redis): sign-in sessions, changing the password, choosing the language, and the `Origin`
 * check, one block per area, each on a database and app of its own. One file, so the modules load
 * once (about 5 s of CPU a file).
 */

import { JwtService } from '@nestjs/jwt';
import type { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import WebSocket from 'ws';
import { insertOperatorSession, OperatorEntity } from '@corpus-chat/persistence';
import {
  createTestDatabase,
  insertTestOperator,
  type TestDatabase,
  type TestOperator,
} from '@corpus-chat/persistence/testing';
import { type AuthEnv, loadAuthEnv } from '../../src/auth/auth.env';
import { LoginThrottleService } from '../../src/auth/login-throttle.service';
import { FOREIGN_ORIGIN } from '../../src/auth/socket-auth.service';
import { connectChatSocket, CSRF_HEADERS, loginAs } from '../support/login';
import { startAuthOnlyApp } from './standalone-app';

jest.setTimeout(120_000);

/**
 * Sign-in slow-down under parallel guesses and behind a proxy, revocable sessions (token version,
 * absolute lifetime) and the Origin check of the socket handshake, on the auth and operators
 * modules alone (real Postgres + Redis; instances share Redis through the Socket.IO adapter).
 */
describe('sessions', () => {
  const FREE = 3;

  // A safety net, not a timing: most tests start a Nest app of their own, and a password reset hashes
  // at production argon2 cost, both slow on a loaded 2-core host.

  let db: TestDatabase;
  let app: NestExpressApplication;
  let baseUrl: string;
  let env: AuthEnv;
  let admin: TestOperator;

  beforeAll(async () => {
    db = await createTestDatabase();
    ({ app, baseUrl, env } = await startAuthOnlyApp(db.url, { LOGIN_FREE_ATTEMPTS: String(FREE) }));
    admin = await insertTestOperator(db.dataSource, { role: 'admin' });
  });
  afterAll(async () => {
    await app?.close();
    await db?.drop();
  });

  const login = (target: string, username: string, password: string, forwardedFor?: string) => {
    const req = request(target).post('/api/auth/login').set(CSRF_HEADERS);
    if (forwardedFor) req.set('X-Forwarded-For', forwardedFor);
    return req.send({ username, password });
  };
  const versionOf = async (id: string) =>
    (await db.dataSource.getRepository(OperatorEntity).findOneByOrFail({ id })).tokenVersion;
  /** A hand-made session token of a new, live session row of operator `claims.sub`. */
  const sign = async (claims: Record<string, unknown> & { sub: string }) =>
    new JwtService({ secret: env.JWT_SECRET! }).signAsync(
      {
        sid: await insertOperatorSession(db.dataSource, {
          operatorId: claims.sub,
          userAgent: 'test',
          ip: '',
        }),
        ...claims,
      },
      { algorithm: 'HS256' },
    );
  const cookieOf = (res: request.Response) =>
    ([] as string[])
      .concat(res.headers['set-cookie'] ?? [])
      .map((c) => c.split(';')[0]!)
      .find((c) => /^cc_session=./.test(c));
  const claimsOf = (cookie: string) =>
    JSON.parse(Buffer.from(cookie.split('=')[1]!.split('.')[1]!, 'base64url').toString()) as Record<
      string,
      number
    >;

  /**
   * Records `n` failed sign-ins of `username` from `ip` directly, spaced further apart than any wait
   * and the last a second ago, so the next attempt must wait 2^(n − free) s: minutes, not a race.
   */
  async function recordFailures(
    throttle: LoginThrottleService,
    n: number,
    username: (i: number) => string,
    ip: string,
  ): Promise<void> {
    const last = Date.now() - 1000;
    for (let i = 0; i < n; i++)
      expect(await throttle.reserveAttempt(username(i), ip, last - (n - 1 - i) * 6 * 60_000)).toBe(0);
  }

  /** An app of its own (own Redis prefix, so its slow-down counts start at zero). */
  async function withApp<T>(
    overrides: Record<string, string>,
    run: (url: string, throttle: LoginThrottleService) => Promise<T>,
  ): Promise<T> {
    const started = await startAuthOnlyApp(db.url, {
      LOGIN_FREE_ATTEMPTS: String(FREE),
      JWT_SECRET: env.JWT_SECRET!,
      ...overrides,
    });
    try {
      return await run(started.baseUrl, started.app.get(LoginThrottleService));
    } finally {
      await started.app.close();
    }
  }

  describe('sign-in slow-down', () => {
    it('checks at most the free number of passwords for 40 parallel wrong guesses at one username', async () => {
      const victim = await insertTestOperator(db.dataSource);
      await withApp({}, async (url) => {
        const answers = await Promise.all(
          Array.from({ length: 40 }, (_, i) => login(url, victim.username, `guess-${i}-xxxx`)),
        );
        const statuses = answers.map((r) => r.status);
        // A 401 is a password that was checked; every other guess was refused before the check. One
        // more is allowed a second after the last failure, so a guess that reaches a loaded server
        // that late may be checked too.
        expect(statuses.filter((s) => s === 401).length).toBeGreaterThanOrEqual(FREE);
        expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(FREE + 2);
        expect(statuses.filter((s) => s !== 401 && s !== 429)).toEqual([]);
      });
    });

    it('checks at most the per-IP allowance for 40 parallel guesses at 40 usernames from one address', async () => {
      // Existing operators (test-cost hashes): an unknown username is checked against the dummy hash
      // at production cost, twelve of which take minutes on a loaded 2-core host.
      const victims = await Promise.all(Array.from({ length: 40 }, () => insertTestOperator(db.dataSource)));
      await withApp({}, async (url) => {
        const answers = await Promise.all(victims.map((v) => login(url, v.username, 'wrong-password')));
        const checked = answers.filter((r) => r.status === 401).length;
        expect(checked).toBeGreaterThanOrEqual(FREE * 4);
        expect(checked).toBeLessThanOrEqual(FREE * 4 + 2); // as above: one more per elapsed wait
        expect(answers.filter((r) => r.status !== 401 && r.status !== 429)).toEqual([]);
      });
    });

    it('does not lock the right password out from an address that has not failed for that username', async () => {
      const victim = await insertTestOperator(db.dataSource);
      await withApp({ TRUST_PROXY: 'loopback' }, async (url, throttle) => {
        // Ten failed guesses from one address (recorded directly: minutes of waits, not seconds).
        await recordFailures(throttle, 10, () => victim.username, '203.0.113.7');
        // The guessing address waits, even with the right password…
        expect((await login(url, victim.username, victim.password, '203.0.113.7')).status).toBe(429);
        // …another address that failed for this username once is slowed down by the username's count…
        expect((await login(url, victim.username, 'one-more-guess', '203.0.113.8')).status).toBe(401);
        expect((await login(url, victim.username, victim.password, '203.0.113.8')).status).toBe(429);
        // …and the operator's own clean address gets in.
        expect((await login(url, victim.username, victim.password, '198.51.100.20')).status).toBe(200);
      });
    });
  });

  describe('TRUST_PROXY', () => {
    /**
     * Records failed sign-ins (distinct usernames) from address 203.0.113.1 until it must wait
     * minutes; answers the status of a sign-in claiming to come from it and from 203.0.113.2.
     */
    const lockThenTry = async (url: string, throttle: LoginThrottleService) => {
      await recordFailures(throttle, FREE * 4 + 8, (i) => `nobody-${i}`, '203.0.113.1');
      // An existing operator: a check of its test-cost hash is quick, unlike the production-cost dummy.
      const { username } = await insertTestOperator(db.dataSource);
      return [
        (await login(url, username, 'wrong-password', '203.0.113.1')).status,
        (await login(url, username, 'wrong-password', '203.0.113.2')).status,
      ];
    };

    it('with a hop count, X-Forwarded-For is the client address the slow-down counts', async () => {
      await withApp({ TRUST_PROXY: '1' }, async (url, throttle) => {
        expect(await lockThenTry(url, throttle)).toEqual([429, 401]);
      });
    });

    it('with a CIDR list, X-Forwarded-For from those proxies is believed', async () => {
      await withApp({ TRUST_PROXY: '127.0.0.0/8,::1/128' }, async (url, throttle) => {
        expect(await lockThenTry(url, throttle)).toEqual([429, 401]);
      });
    });

    it('without it, X-Forwarded-For is ignored (the locked address is not the client)', async () => {
      await withApp({}, async (url, throttle) => {
        expect(await lockThenTry(url, throttle)).toEqual([401, 401]);
      });
    });

    it('refuses a malformed value at start-up, naming the variable', () => {
      const base = { NODE_ENV: 'test', DATABASE_URL: db.url };
      expect(() => loadAuthEnv({ ...base, TRUST_PROXY: 'yes please' })).toThrow(/TRUST_PROXY/);
      expect(() => loadAuthEnv({ ...base, TRUST_PROXY: '10.0.0.0/33' })).toThrow(/TRUST_PROXY/);
      expect(loadAuthEnv({ ...base, TRUST_PROXY: '10.0.0.0/8, loopback' }).TRUST_PROXY).toBe(
        '10.0.0.0/8, loopback',
      );
    });
  });

  describe('revocable sessions', () => {
    it('logout ends this session only: its cookie gets 401 and its socket drops, the other session and its socket go on', async () => {
      const op = await insertTestOperator(db.dataSource);
      const s = await loginAs(baseUrl, op.username, op.password);
      const other = await loginAs(baseUrl, op.username, op.password);
      const mine = await connectChatSocket(baseUrl, s);
      const theirs = await connectChatSocket(baseUrl, other);
      const disconnected = new Promise<string>((resolve) => mine.once('disconnect', resolve));
      try {
        expect((await request(baseUrl).post('/api/auth/logout').set(s.headers)).status).toBe(204);
        expect((await request(baseUrl).get('/api/auth/me').set(s.headers)).status).toBe(401);
        expect(await disconnected).toBe('io server disconnect');
        await expect(connectChatSocket(baseUrl, s)).rejects.toThrow('unauthorized');
        expect((await request(baseUrl).get('/api/auth/me').set(other.headers)).status).toBe(200);
        // The other session's socket was left connected: it still answers.
        expect(theirs.connected).toBe(true);
        expect(await theirs.timeout(5000).emitWithAck('whoami')).toMatchObject({ id: op.id });
        const listed = await request(baseUrl).get('/api/auth/sessions').set(other.headers);
        expect(listed.body.map((x: { current: boolean }) => x.current)).toEqual([true]);
      } finally {
        theirs.close();
      }
    });

    it('sign out everywhere ends every session and socket of the operator, and no other operator’s', async () => {
      const op = await insertTestOperator(db.dataSource);
      const bystander = await insertTestOperator(db.dataSource);
      const a = await loginAs(baseUrl, op.username, op.password);
      const b = await loginAs(baseUrl, op.username, op.password);
      const c = await loginAs(baseUrl, bystander.username, bystander.password);
      const socketB = await connectChatSocket(baseUrl, b);
      const socketC = await connectChatSocket(baseUrl, c);
      const dropped = new Promise<string>((resolve) => socketB.once('disconnect', resolve));
      try {
        const r = await request(baseUrl).post('/api/auth/logout-everywhere').set(a.headers);
        expect(r.status).toBe(204);
        expect(String(r.headers['set-cookie'])).toMatch(/cc_session=;/);
        expect(await dropped).toBe('io server disconnect');
        for (const s of [a, b])
          expect((await request(baseUrl).get('/api/auth/me').set(s.headers)).status).toBe(401);
        expect((await request(baseUrl).get('/api/auth/me').set(c.headers)).status).toBe(200);
        expect(await socketC.timeout(5000).emitWithAck('whoami')).toMatchObject({ id: bystander.id });
        expect(
          await db.dataSource.query(`SELECT id FROM operator_sessions WHERE operator_id = $1`, [op.id]),
        ).toEqual([]);
      } finally {
        socketC.close();
      }
    });

    it('lists my sessions (device, address, created, last seen) and ends one of them, not another operator’s', async () => {
      const op = await insertTestOperator(db.dataSource);
      const intruder = await insertTestOperator(db.dataSource);
      const ua = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';
      const phone = await request(baseUrl)
        .post('/api/auth/login')
        .set({ ...CSRF_HEADERS, 'User-Agent': ua })
        .send({ username: op.username, password: op.password });
      const phoneCookie = cookieOf(phone)!;
      const laptop = await loginAs(baseUrl, op.username, op.password);
      const socket = await connectChatSocket(baseUrl, { cookie: phoneCookie });
      const dropped = new Promise<string>((resolve) => socket.once('disconnect', resolve));
      const listed = await request(baseUrl).get('/api/auth/sessions').set(laptop.headers);
      expect(listed.status).toBe(200);
      expect(listed.body).toHaveLength(2);
      const phoneRow = listed.body.find((x: { userAgent: string }) => x.userAgent === ua);
      expect(phoneRow).toMatchObject({ current: false, ip: expect.stringMatching(/127\.0\.0\.1/) });
      expect(Date.parse(phoneRow.createdAt)).toBeLessThanOrEqual(Date.parse(phoneRow.lastSeenAt));
      expect(listed.body.filter((x: { current: boolean }) => x.current)).toHaveLength(1);
      // Another operator cannot see or end it.
      const other = await loginAs(baseUrl, intruder.username, intruder.password);
      expect((await request(baseUrl).get('/api/auth/sessions').set(other.headers)).body).toHaveLength(1);
      expect(
        (await request(baseUrl).delete(`/api/auth/sessions/${phoneRow.id}`).set(other.headers)).status,
      ).toBe(404);
      expect(socket.connected).toBe(true);
      expect(
        (await request(baseUrl).delete(`/api/auth/sessions/${phoneRow.id}`).set(laptop.headers)).status,
      ).toBe(204);
      expect(await dropped).toBe('io server disconnect');
      expect((await request(baseUrl).get('/api/auth/me').set('Cookie', phoneCookie)).status).toBe(401);
      expect((await request(baseUrl).get('/api/auth/me').set(laptop.headers)).status).toBe(200);
      expect(
        (await request(baseUrl).delete('/api/auth/sessions/not-a-uuid').set(laptop.headers)).status,
      ).toBe(400);
    });

    it('records a session’s last request at most once a minute, not once per request', async () => {
      const op = await insertTestOperator(db.dataSource);
      const s = await loginAs(baseUrl, op.username, op.password);
      const seen = async () =>
        (
          await db.dataSource.query(
            `SELECT last_seen_at, xmin::text AS xmin FROM operator_sessions WHERE operator_id = $1`,
            [op.id],
          )
        )[0] as { last_seen_at: Date; xmin: string };
      const first = await seen();
      for (let i = 0; i < 5; i++)
        expect((await request(baseUrl).get('/api/auth/me').set(s.headers)).status).toBe(200);
      // The row was not rewritten (same tuple version).
      expect((await seen()).xmin).toBe(first.xmin);
      await db.dataSource.query(
        `UPDATE operator_sessions SET last_seen_at = now() - interval '2 minutes' WHERE operator_id = $1`,
        [op.id],
      );
      expect((await request(baseUrl).get('/api/auth/me').set(s.headers)).status).toBe(200);
      expect(Date.now() - (await seen()).last_seen_at.getTime()).toBeLessThan(30_000);
    });

    it('logout on one instance disconnects the operator’s sockets on another (through the adapter)', async () => {
      const op = await insertTestOperator(db.dataSource);
      await withApp({ REDIS_PREFIX: env.REDIS_PREFIX }, async (otherUrl) => {
        const s = await loginAs(otherUrl, op.username, op.password);
        const socket = await connectChatSocket(otherUrl, s);
        const disconnected = new Promise<string>((resolve) => socket.once('disconnect', resolve));
        expect((await request(baseUrl).post('/api/auth/logout').set(s.headers)).status).toBe(204);
        expect(await disconnected).toBe('io server disconnect');
      });
    });

    it('a password reset kills a token issued in the same second', async () => {
      const op = await insertTestOperator(db.dataSource);
      const before = await versionOf(op.id);
      const adminSession = await loginAs(baseUrl, admin.username, admin.password);
      const reset = await request(baseUrl)
        .patch(`/api/operators/${op.id}`)
        .set(adminSession.headers)
        .send({ password: 'a-brand-new-password' });
      expect(reset.status).toBe(200);
      // Issued at the reset's second (or later), of the version before it.
      const now = Math.floor(Date.now() / 1000);
      const token = await sign({ sub: op.id, ver: before, authAt: now, iat: now, exp: now + 600 });
      expect((await request(baseUrl).get('/api/auth/me').set('Cookie', `cc_session=${token}`)).status).toBe(
        401,
      );
      await expect(connectChatSocket(baseUrl, { cookie: `cc_session=${token}` })).rejects.toThrow(
        'unauthorized',
      );
    });

    it('re-enabling a disabled operator does not revive their old tokens', async () => {
      const op = await insertTestOperator(db.dataSource);
      const s = await loginAs(baseUrl, op.username, op.password);
      const adminSession = await loginAs(baseUrl, admin.username, admin.password);
      const patch = (disabled: boolean) =>
        request(baseUrl).patch(`/api/operators/${op.id}`).set(adminSession.headers).send({ disabled });
      expect((await patch(true)).status).toBe(200);
      expect((await patch(false)).status).toBe(200);
      expect((await request(baseUrl).get('/api/auth/me').set(s.headers)).status).toBe(401);
      await expect(connectChatSocket(baseUrl, s)).rejects.toThrow('unauthorized');
    });

    it('renewal never goes past SESSION_MAX_HOURS after sign-in, and a session older than that is refused', async () => {
      const op = await insertTestOperator(db.dataSource);
      const ver = await versionOf(op.id);
      const now = Math.floor(Date.now() / 1000);
      const ttl = env.SESSION_TTL_MINUTES * 60;
      const max = env.SESSION_MAX_HOURS * 3600;
      // Past half its lifetime, signed in 5 minutes short of the limit: renewed, but only up to the limit.
      const authAt = now - max + 300;
      const nearLimit = await sign({
        sub: op.id,
        ver,
        authAt,
        iat: now - Math.ceil(ttl * 0.6),
        exp: now + 200,
      });
      const renewed = await request(baseUrl).get('/api/auth/me').set('Cookie', `cc_session=${nearLimit}`);
      expect(renewed.status).toBe(200);
      const cookie = cookieOf(renewed);
      expect(cookie).toBeDefined();
      expect(claimsOf(cookie!)).toMatchObject({ authAt, ver });
      expect(claimsOf(cookie!).exp).toBeLessThanOrEqual(authAt + max);
      // A token past half its lifetime whose expiry is already the limit is not renewed.
      const atLimit = await sign({
        sub: op.id,
        ver,
        authAt,
        iat: now - Math.ceil(ttl * 0.6),
        exp: authAt + max,
      });
      const notRenewed = await request(baseUrl).get('/api/auth/me').set('Cookie', `cc_session=${atLimit}`);
      expect(notRenewed.status).toBe(200);
      expect(notRenewed.headers['set-cookie']).toBeUndefined();
      // Signed in longer ago than the limit: refused although the token itself has not expired.
      const tooOld = await sign({ sub: op.id, ver, authAt: now - max - 60, iat: now - 60, exp: now + 600 });
      const refused = await request(baseUrl).get('/api/auth/me').set('Cookie', `cc_session=${tooOld}`);
      expect(refused.status).toBe(401);
      expect(refused.body.message).toMatch(/maximum length/);
      await expect(connectChatSocket(baseUrl, { cookie: `cc_session=${tooOld}` })).rejects.toThrow(
        'unauthorized',
      );
    });
  });

  describe('socket handshake Origin', () => {
    /** A page of the same site on another port. */
    const otherPort = () => `http://127.0.0.1:${Number(new URL(baseUrl).port) - 1}`;

    it('refuses a WebSocket upgrade from a page of another origin with HTTP 403, even with a valid session', async () => {
      const op = await insertTestOperator(db.dataSource);
      const s = await loginAs(baseUrl, op.username, op.password);
      const wsUrl = `${baseUrl.replace('http', 'ws')}/socket.io/?EIO=4&transport=websocket`;
      for (const origin of [otherPort(), 'http://evil.example']) {
        const refused = await new Promise<{ status?: number; body: string }>((resolve, reject) => {
          const ws = new WebSocket(wsUrl, { headers: { cookie: s.cookie, origin } });
          ws.on('unexpected-response', (_req, res) => {
            let body = '';
            res.on('data', (c: Buffer) => (body += c));
            res.on('end', () => resolve({ status: res.statusCode, body }));
          });
          ws.on('open', () => reject(new Error(`upgraded from ${origin}`)));
          ws.on('error', () => undefined); // the refused upgrade also errors the client
        });
        expect(refused).toEqual({ status: 403, body: FOREIGN_ORIGIN });
      }
      const own = await connectChatSocket(baseUrl, s, {
        transports: ['websocket'],
        extraHeaders: { cookie: s.cookie, origin: baseUrl },
      });
      own.close();
    });

    it('refuses a Socket.IO handshake from a page of another origin, accepts its own', async () => {
      const op = await insertTestOperator(db.dataSource);
      const s = await loginAs(baseUrl, op.username, op.password);
      const as = (origin: string) =>
        connectChatSocket(baseUrl, s, { extraHeaders: { cookie: s.cookie, origin } });
      await expect(as(otherPort())).rejects.toThrow(FOREIGN_ORIGIN);
      await expect(as('http://evil.example')).rejects.toThrow(FOREIGN_ORIGIN);
      const own = await as(baseUrl);
      try {
        expect(await own.emitWithAck('whoami')).toMatchObject({ id: op.id });
      } finally {
        own.close();
      }
    });
  });
});

/**
 * `POST /api/auth/password`: an operator changes their own password (real Postgres + Redis, the
 * auth and operators modules alone). The session that made the change continues with a fresh
 * cookie; every other session and socket of the operator ends; a wrong current password is refused
 * and slowed down like a failed sign-in.
 */
describe('changing the password', () => {
  // passes) and the sign-ins after it verify at that cost, seconds each on a loaded 2-core host.

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
});

/**
 * `PATCH /api/auth/me`: an operator chooses the language of the interface (real Postgres + Redis,
 * the auth and operators modules alone). The choice is stored, answered by `GET /api/auth/me` and
 * at sign-in, audited once per change; a language not offered is 400 and changes nothing.
 */
describe('the interface language', () => {
  let db: TestDatabase;
  let app: NestExpressApplication;
  let baseUrl: string;

  beforeAll(async () => {
    db = await createTestDatabase();
    ({ app, baseUrl } = await startAuthOnlyApp(db.url));
  });
  afterAll(async () => {
    await app?.close();
    await db?.drop();
  });

  const http = () => request(baseUrl);
  const languageOf = async (id: string) =>
    (await db.dataSource.getRepository(OperatorEntity).findOneByOrFail({ id })).language;
  const auditOf = (id: string) =>
    db.dataSource.query<{ action: string; actor_id: string; before: unknown; after: unknown }[]>(
      `SELECT action, actor_id, before, after FROM audit_events WHERE subject_type = 'operator' AND subject_id = $1 ORDER BY id`,
      [id],
    );

  describe('PATCH /api/auth/me', () => {
    it('stores the chosen language, answers it from /me and at sign-in, and audits each change once', async () => {
      const olga = await insertTestOperator(db.dataSource);
      const s = await loginAs(baseUrl, olga.username, olga.password);
      expect((await http().get('/api/auth/me').set(s.headers)).body.language).toBe('en');

      const res = await http().patch('/api/auth/me').set(s.headers).send({ language: 'ru' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: olga.id, language: 'ru' });
      expect(await languageOf(olga.id)).toBe('ru');
      expect((await http().get('/api/auth/me').set(s.headers)).body.language).toBe('ru');
      const again = await http()
        .post('/api/auth/login')
        .set(CSRF_HEADERS)
        .send({ username: olga.username, password: olga.password });
      expect(again.body.language).toBe('ru');

      // Choosing the language already chosen changes nothing and records nothing.
      expect((await http().patch('/api/auth/me').set(s.headers).send({ language: 'ru' })).status).toBe(200);
      expect(await auditOf(olga.id)).toEqual([
        {
          action: 'operator.update',
          actor_id: olga.id,
          before: { language: 'en' },
          after: { language: 'ru' },
        },
      ]);
    });

    it('refuses a language not offered, a missing or extra field with 400, changing nothing', async () => {
      const pyotr = await insertTestOperator(db.dataSource);
      const s = await loginAs(baseUrl, pyotr.username, pyotr.password);
      const de = await http().patch('/api/auth/me').set(s.headers).send({ language: 'de' });
      expect(de.status).toBe(400);
      expect(JSON.stringify(de.body.message)).toContain('language must be one of: en, ru');
      for (const body of [{}, { language: 'RU' }, { language: 'ru', role: 'admin' }, { language: 1 }]) {
        expect((await http().patch('/api/auth/me').set(s.headers).send(body)).status).toBe(400);
      }
      expect(await languageOf(pyotr.id)).toBe('en');
      expect(await auditOf(pyotr.id)).toEqual([]);
    });

    it('needs a session and the CSRF header', async () => {
      const rita = await insertTestOperator(db.dataSource);
      const s = await loginAs(baseUrl, rita.username, rita.password);
      expect((await http().patch('/api/auth/me').set(CSRF_HEADERS).send({ language: 'ru' })).status).toBe(
        401,
      );
      expect(
        (await http().patch('/api/auth/me').set('Cookie', s.cookie).send({ language: 'ru' })).status,
      ).toBe(403);
      expect(await languageOf(rita.id)).toBe('en');
    });
  });
});

/**
 * The `Origin` check runs before any sign-in (on public writes and on every Socket.IO handshake),
 * so its cost must stay proportional to the header. Trimming trailing slashes with `/\/+$/`
 * rescanned a long run of slashes from each of them: a 16 kB header (Node's limit) cost 0.4 s of
 * the event loop per request, and a few requests a second stalled the API for everyone.
 */
describe('the Origin check', () => {
  let db: TestDatabase;
  let app: NestExpressApplication;
  let baseUrl: string;

  beforeAll(async () => {
    db = await createTestDatabase();
    ({ app, baseUrl } = await startAuthOnlyApp(db.url));
  });
  afterAll(async () => {
    await app?.close();
    await db?.drop();
  });

  it('refuses 20 requests with a 16 kB Origin of slashes at once, without stalling the API', async () => {
    const origin = `http://evil.example${'/'.repeat(15_000)}x`;
    const started = Date.now();
    const answers = await Promise.all([
      ...Array.from({ length: 10 }, () =>
        request(baseUrl).post('/api/auth/logout').set(CSRF_HEADERS).set('Origin', origin),
      ),
      ...Array.from({ length: 10 }, () =>
        request(baseUrl).get('/socket.io/?EIO=4&transport=polling').set('Origin', origin),
      ),
    ]);
    const elapsed = Date.now() - started;
    expect(answers.map((r) => r.status)).toEqual(Array(20).fill(403));
    expect(answers[0]!.body.message).toMatch(/Cross-origin request refused/);
    // Linear checks take milliseconds each; the quadratic trim took 0.4 s per request (8 s here).
    expect(elapsed).toBeLessThan(3_000);
  });
});
