/**
 * Operator accounts and sessions on the auth and operators modules alone (real Postgres + Redis):
 * login/logout/me, slow-down, CSRF, expiry and renewal, admin-only operator management,
 * revocation on disable and password reset, socket handshake auth, hardening of HTTP input.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { JwtService } from '@nestjs/jwt';
import type { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import WebSocket from 'ws';
import { insertOperatorSession, OperatorEntity } from '@corpus-chat/persistence';
import {
  createTestDatabase,
  insertTestOperator,
  testRedisPrefix,
  type TestDatabase,
  type TestOperator,
} from '@corpus-chat/persistence/testing';
import type { AuthEnv } from '../../src/auth/auth.env';
import { AdminBootstrapService, adminPasswordFileName } from '../../src/operators/admin-bootstrap.service';
import { CSRF_HEADERS, connectChatSocket, loginAs, type LoginSession } from '../support/login';
import { ProbeGateway, startAuthOnlyApp } from './standalone-app';

let db: TestDatabase;
let app: NestExpressApplication;
let baseUrl: string;
let env: AuthEnv;
let admin: TestOperator;
let alice: TestOperator;

beforeAll(async () => {
  db = await createTestDatabase();
  ({ app, baseUrl, env } = await startAuthOnlyApp(db.url, { LOGIN_FREE_ATTEMPTS: '3' }));
  admin = await insertTestOperator(db.dataSource, { username: 'Root', role: 'admin' });
  alice = await insertTestOperator(db.dataSource, { username: 'alice' });
  // Hand-made tokens below are back-dated: the password must be older than them.
  await db.dataSource.query(
    `UPDATE operators SET password_changed_at = now() - interval '1 day' WHERE id = $1`,
    [alice.id],
  );
});
afterAll(async () => {
  await app?.close();
  await db?.drop();
});

const http = () => request(baseUrl);
const operatorCount = () => db.dataSource.getRepository(OperatorEntity).count();
const signToken = (secret: string, claims: Record<string, unknown>) =>
  new JwtService({ secret }).signAsync(claims, { algorithm: 'HS256' });
/**
 * A hand-made session token of operator `sub` at its current token version, of a new session row, signed in
 * at `iat` unless `authAt` says otherwise.
 */
const signSession = async (claims: { sub: string; iat: number; exp: number; authAt?: number }) => {
  const { tokenVersion } = await db.dataSource
    .getRepository(OperatorEntity)
    .findOneByOrFail({ id: claims.sub });
  const sid = await insertOperatorSession(db.dataSource, {
    operatorId: claims.sub,
    userAgent: 'test',
    ip: '',
  });
  return signToken(env.JWT_SECRET!, { ver: tokenVersion, sid, authAt: claims.iat, ...claims });
};

describe('sign-in', () => {
  it('sets an httpOnly SameSite=Lax session cookie, and /me answers the operator', async () => {
    const res = await http()
      .post('/api/auth/login')
      .set(CSRF_HEADERS)
      .send({ username: 'ALICE', password: alice.password });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: alice.id, username: 'alice', role: 'operator', disabled: false });
    expect(res.body.passwordHash).toBeUndefined();
    const cookie = String(res.headers['set-cookie']);
    expect(cookie).toMatch(/cc_session=[^;]+/);
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    const me = await http().get('/api/auth/me').set('Cookie', cookie.split(';')[0]);
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(alice.id);
  });

  it('answers 401 with the same generic message for a wrong password and an unknown user', async () => {
    const wrong = await http()
      .post('/api/auth/login')
      .set(CSRF_HEADERS)
      .send({ username: 'alice', password: 'not-her-password' });
    const unknown = await http()
      .post('/api/auth/login')
      .set(CSRF_HEADERS)
      .send({ username: 'nobody', password: 'whatever-123' });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body.message).toBe(unknown.body.message);
    expect(wrong.headers['set-cookie']).toBeUndefined();
  });

  it('slows down repeated failures for a username: 429 with Retry-After, even with the right password', async () => {
    const victim = await insertTestOperator(db.dataSource);
    for (let i = 0; i < 3; i++) {
      const r = await http()
        .post('/api/auth/login')
        .set(CSRF_HEADERS)
        .send({ username: victim.username, password: `guess-${i}-xxxx` });
      expect(r.status).toBe(401);
    }
    const blocked = await http()
      .post('/api/auth/login')
      .set(CSRF_HEADERS)
      .send({ username: victim.username, password: victim.password });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(blocked.body.message).toMatch(/Try again in \d+ s/);
    // Another username from the same IP is not affected yet (the per-IP allowance is larger).
    await expect(loginAs(baseUrl, alice.username, alice.password)).resolves.toBeDefined();
  });

  it('tells a disabled operator with the right password that the account is disabled, and anyone else the generic 401', async () => {
    const gone = await insertTestOperator(db.dataSource, { disabled: true });
    const r = await http()
      .post('/api/auth/login')
      .set(CSRF_HEADERS)
      .send({ username: gone.username, password: gone.password });
    expect(r.status).toBe(403);
    expect(r.body.message).toBe('This account is disabled. Ask an administrator to enable it again.');
    expect(String(r.headers['set-cookie'] ?? '')).not.toMatch(/cc_session=[^;]+/);
    const guess = await http()
      .post('/api/auth/login')
      .set(CSRF_HEADERS)
      .send({ username: gone.username, password: 'a-wrong-guess' });
    expect(guess.status).toBe(401);
    expect(guess.body.message).toBe('Wrong username or password.');
  });

  it('logout clears the cookie', async () => {
    const s = await loginAs(baseUrl, alice.username, alice.password);
    const r = await http().post('/api/auth/logout').set(s.headers);
    expect(r.status).toBe(204);
    expect(String(r.headers['set-cookie'])).toMatch(/cc_session=;.*Expires=Thu, 01 Jan 1970/i);
  });

  it('rejects unknown fields and wrong types in the login body with 400 naming the field', async () => {
    const extra = await http()
      .post('/api/auth/login')
      .set(CSRF_HEADERS)
      .send({ username: 'a', password: 'b', admin: true });
    expect(extra.status).toBe(400);
    expect(JSON.stringify(extra.body.message)).toMatch(/admin/);
    const typed = await http()
      .post('/api/auth/login')
      .set(CSRF_HEADERS)
      .send({ username: 42, password: 'b' });
    expect(typed.status).toBe(400);
    expect(JSON.stringify(typed.body.message)).toMatch(/username/);
  });
});

describe('sessions', () => {
  it('refuses requests without a session (401) but lets @Public routes through', async () => {
    expect((await http().get('/api/auth/me')).status).toBe(401);
    expect((await http().get('/api/operators')).status).toBe(401);
    expect((await http().get('/api/probe/public')).status).toBe(200);
  });

  it('refuses an expired token, a token signed with another secret and garbage', async () => {
    const now = Math.floor(Date.now() / 1000);
    const expired = await signSession({ sub: alice.id, iat: now - 3600, exp: now - 60 });
    const forged = await signToken('x'.repeat(40), {
      sub: admin.id,
      ver: 0,
      authAt: now,
      iat: now,
      exp: now + 600,
    });
    for (const token of [expired, forged, 'not.a.jwt']) {
      const r = await http().get('/api/auth/me').set('Cookie', `cc_session=${token}`);
      expect(r.status).toBe(401);
    }
    const r = await http().get('/api/auth/me').set('Cookie', `cc_session=${expired}`);
    expect(r.body.message).toMatch(/expired/);
  });

  it('renews the cookie once more than half of the session lifetime has elapsed, not before', async () => {
    const now = Math.floor(Date.now() / 1000);
    const ttl = env.SESSION_TTL_MINUTES * 60;
    const old = await signSession({
      sub: alice.id,
      iat: now - Math.ceil(ttl * 0.6),
      exp: now + Math.floor(ttl * 0.4),
    });
    const renewed = await http().get('/api/auth/me').set('Cookie', `cc_session=${old}`);
    expect(renewed.status).toBe(200);
    expect(String(renewed.headers['set-cookie'])).toMatch(/cc_session=/);
    const fresh = await loginAs(baseUrl, alice.username, alice.password);
    const notRenewed = await http().get('/api/auth/me').set('Cookie', fresh.cookie);
    expect(notRenewed.headers['set-cookie']).toBeUndefined();
  });

  it('CSRF: a state-changing request needs X-Requested-With and, with an Origin, the own origin', async () => {
    const s = await loginAs(baseUrl, admin.username, admin.password);
    const body = { username: 'csrf-victim', displayName: 'x', password: 'long-enough-pw', role: 'admin' };
    const before = await operatorCount();
    const noHeader = await http().post('/api/operators').set('Cookie', s.cookie).send(body);
    expect(noHeader.status).toBe(403);
    expect(noHeader.body.message).toMatch(/X-Requested-With/);
    const foreign = await http()
      .post('/api/operators')
      .set(s.headers)
      .set('Origin', 'https://evil.example')
      .send(body);
    expect(foreign.status).toBe(403);
    expect(await operatorCount()).toBe(before);
    const own = await http().post('/api/operators').set(s.headers).set('Origin', baseUrl).send(body);
    expect(own.status).toBe(201);
    // Reads need no header.
    expect((await http().get('/api/operators').set('Cookie', s.cookie)).status).toBe(200);
  });
});

describe('operators (admin only)', () => {
  let adminSession: LoginSession;
  let aliceSession: LoginSession;
  beforeAll(async () => {
    adminSession = await loginAs(baseUrl, admin.username, admin.password);
    aliceSession = await loginAs(baseUrl, alice.username, alice.password);
  });

  it('refuses a non-admin with 403 and writes nothing', async () => {
    const before = await operatorCount();
    expect((await http().get('/api/operators').set(aliceSession.headers)).status).toBe(403);
    const r = await http()
      .post('/api/operators')
      .set(aliceSession.headers)
      .send({ username: 'sneaky', displayName: 'S', password: 'long-enough-pw', role: 'admin' });
    expect(r.status).toBe(403);
    expect(await operatorCount()).toBe(before);
  });

  it('creates, lists, and refuses a second spelling of a username with 409', async () => {
    const created = await http()
      .post('/api/operators')
      .set(adminSession.headers)
      .send({ username: 'Bob', displayName: 'Bob B.', password: 'bob-password-1', role: 'operator' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      username: 'Bob',
      displayName: 'Bob B.',
      role: 'operator',
      disabled: false,
    });
    const dup = await http()
      .post('/api/operators')
      .set(adminSession.headers)
      .send({ username: 'bOB', displayName: 'Other', password: 'bob-password-2', role: 'operator' });
    expect(dup.status).toBe(409);
    const list = await http().get('/api/operators').set(adminSession.headers);
    expect(list.body.map((o: { username: string }) => o.username)).toContain('Bob');
    expect(JSON.stringify(list.body)).not.toMatch(/argon2|password/i);
    await expect(loginAs(baseUrl, 'bob', 'bob-password-1')).resolves.toMatchObject({
      operator: { username: 'Bob' },
    });
  });

  it('validates bodies and ids: unknown field, short password, bad role, non-UUID id → 400', async () => {
    const cases = [
      { username: 'x1', displayName: 'X', password: 'long-enough-pw', role: 'operator', isAdmin: true },
      { username: 'x2', displayName: 'X', password: 'short', role: 'operator' },
      { username: 'x3', displayName: 'X', password: 'long-enough-pw', role: 'root' },
      { username: 'bad name!', displayName: 'X', password: 'long-enough-pw', role: 'operator' },
    ];
    for (const body of cases) {
      expect((await http().post('/api/operators').set(adminSession.headers).send(body)).status).toBe(400);
    }
    expect(
      (await http().patch('/api/operators/1').set(adminSession.headers).send({ disabled: true })).status,
    ).toBe(400);
    expect(
      (
        await http()
          .patch('/api/operators/00000000-0000-4000-8000-000000000000')
          .set(adminSession.headers)
          .send({ disabled: true })
      ).status,
    ).toBe(404);
  });

  it('disabling an operator refuses their next request and disconnects their sockets', async () => {
    const carol = await insertTestOperator(db.dataSource);
    const s = await loginAs(baseUrl, carol.username, carol.password);
    const socket = await connectChatSocket(baseUrl, s);
    const disconnected = new Promise<string>((resolve) =>
      socket.once('disconnect', (reason) => resolve(reason)),
    );
    const r = await http()
      .patch(`/api/operators/${carol.id}`)
      .set(adminSession.headers)
      .send({ disabled: true });
    expect(r.status).toBe(200);
    expect(r.body.disabled).toBe(true);
    expect(await disconnected).toBe('io server disconnect');
    expect((await http().get('/api/auth/me').set(s.headers)).status).toBe(401);
    await expect(connectChatSocket(baseUrl, s)).rejects.toThrow('unauthorized');
    // Re-enabled: the old session stays ended; signing in again works.
    await http().patch(`/api/operators/${carol.id}`).set(adminSession.headers).send({ disabled: false });
    expect((await http().get('/api/auth/me').set(s.headers)).status).toBe(401);
    await expect(connectChatSocket(baseUrl, s)).rejects.toThrow('unauthorized');
    const again = await loginAs(baseUrl, carol.username, carol.password);
    expect((await http().get('/api/auth/me').set(again.headers)).status).toBe(200);
  });

  it('a password reset ends existing sessions, even one signed in the same second; the new password signs in', async () => {
    const dave = await insertTestOperator(db.dataSource);
    const s = await loginAs(baseUrl, dave.username, dave.password);
    const r = await http()
      .patch(`/api/operators/${dave.id}`)
      .set(adminSession.headers)
      .send({ password: 'a-brand-new-password' });
    expect(r.status).toBe(200);
    expect((await http().get('/api/auth/me').set(s.headers)).status).toBe(401);
    await expect(loginAs(baseUrl, dave.username, dave.password)).rejects.toThrow(/401/);
    await expect(loginAs(baseUrl, dave.username, 'a-brand-new-password')).resolves.toBeDefined();
  });

  it('an admin cannot disable or demote themself, and the last enabled admin stays', async () => {
    const self = await http()
      .patch(`/api/operators/${admin.id}`)
      .set(adminSession.headers)
      .send({ disabled: true });
    expect(self.status).toBe(400);
    const other = await insertTestOperator(db.dataSource, { role: 'admin' });
    const otherSession = await loginAs(baseUrl, other.username, other.password);
    // Demote every other admin first, then the last one may not be demoted by `other`.
    const admins = (
      await db.dataSource.getRepository(OperatorEntity).findBy({ role: 'admin', disabled: false })
    ).filter((o) => o.id !== admin.id && o.id !== other.id);
    for (const a of admins)
      await http().patch(`/api/operators/${a.id}`).set(adminSession.headers).send({ role: 'operator' });
    await http().patch(`/api/operators/${other.id}`).set(adminSession.headers).send({ role: 'operator' });
    expect((await http().get('/api/operators').set(otherSession.headers)).status).toBe(403);
    expect(
      await db.dataSource.getRepository(OperatorEntity).countBy({ role: 'admin', disabled: false }),
    ).toBe(1);
  });
});

describe('socket handshake', () => {
  it('refuses an anonymous client with connect_error "unauthorized" and accepts a signed-in one', async () => {
    await expect(connectChatSocket(baseUrl, null)).rejects.toThrow('unauthorized');
    await expect(connectChatSocket(baseUrl, { cookie: 'cc_session=garbage' })).rejects.toThrow(
      'unauthorized',
    );
    const s = await loginAs(baseUrl, alice.username, alice.password);
    const socket = await connectChatSocket(baseUrl, s);
    try {
      const me = await socket.emitWithAck('whoami');
      expect(me).toMatchObject({ id: alice.id, username: 'alice' });
    } finally {
      socket.close();
    }
  });

  it('refuses an expired token at the handshake', async () => {
    const now = Math.floor(Date.now() / 1000);
    const expired = await signSession({ sub: alice.id, iat: now - 3600, exp: now - 60 });
    await expect(connectChatSocket(baseUrl, { cookie: `cc_session=${expired}` })).rejects.toThrow(
      'unauthorized',
    );
  });

  it('disconnects a socket when the session its handshake carried expires, and refuses it again with that token', async () => {
    const now = Math.floor(Date.now() / 1000);
    const shortLived = await signSession({ sub: alice.id, iat: now, exp: now + 4 });
    const socket = await connectChatSocket(baseUrl, { cookie: `cc_session=${shortLived}` });
    // 4 s leaves a loaded host time to connect before it expires. Bounded by the test's timeout,
    // not asserted on the clock: only "not before it expired" is.
    const reason = await new Promise<string>((resolve) => socket.once('disconnect', resolve));
    expect(reason).toBe('io server disconnect');
    expect(Date.now()).toBeGreaterThanOrEqual((now + 4) * 1000 - 50);
    await expect(connectChatSocket(baseUrl, { cookie: `cc_session=${shortLived}` })).rejects.toThrow(
      'unauthorized',
    );
  });

  it('refuses a WebSocket upgrade without a session with HTTP 401, and lets a signed-in one upgrade', async () => {
    const wsUrl = `${baseUrl.replace('http', 'ws')}/socket.io/?EIO=4&transport=websocket`;
    const refused = await new Promise<{ status?: number; body: string }>((resolve, reject) => {
      const ws = new WebSocket(wsUrl);
      ws.on('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode, body }));
      });
      ws.on('open', () => reject(new Error('upgraded without a session')));
      ws.on('error', () => undefined); // the refused upgrade also errors the client
    });
    expect(refused).toEqual({ status: 401, body: 'unauthorized' });
    // The server closes the refused connection itself, even when the client never closes its side
    // (a half-open socket would stay counted by the HTTP server).
    const server = app.getHttpServer() as import('node:http').Server;
    const connections = () =>
      new Promise<number>((r, j) => server.getConnections((e, n) => (e ? j(e) : r(n))));
    const before = await connections();
    const { hostname, port } = new URL(baseUrl);
    const serverSide = new Promise<net.Socket>((r) => server.once('connection', r));
    const sock = net.connect({ host: hostname, port: Number(port), allowHalfOpen: true });
    let head = '';
    sock.setEncoding('utf8');
    sock.on('data', (d: string) => (head += d));
    sock.on('error', () => undefined);
    await new Promise<void>((resolve) => {
      sock.once('end', () => resolve());
      sock.write(
        'GET /socket.io/?EIO=4&transport=websocket HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
          'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n',
      );
    });
    expect(head.startsWith('HTTP/1.1 401 Unauthorized')).toBe(true);
    const refusedSide = await serverSide;
    await new Promise<void>((resolve, reject) => {
      if (refusedSide.closed) return resolve();
      const timer = setTimeout(() => reject(new Error('the server kept the refused socket open')), 5000);
      refusedSide.once('close', () => (clearTimeout(timer), resolve()));
    });
    expect(await connections()).toBe(before);
    sock.destroy();
    const s = await loginAs(baseUrl, alice.username, alice.password);
    const firstFrame = await new Promise<string>((resolve, reject) => {
      const ws = new WebSocket(wsUrl, { headers: { cookie: s.cookie } });
      ws.on('message', (m) => {
        resolve(String(m));
        ws.close();
      });
      ws.on('error', reject);
    });
    expect(firstFrame.startsWith('0{')).toBe(true); // engine.io "open" packet
  });

  it('refuses a long-polling handshake without a session with HTTP 403 before any Engine.IO session exists', async () => {
    const engine = app.get(ProbeGateway).server.server.engine;
    const pollUrl = `${baseUrl}/socket.io/?EIO=4&transport=polling`;
    let opened = 0;
    const onConnection = () => opened++;
    engine.on('connection', onConnection);
    for (const headers of [{}, { cookie: 'cc_session=garbage' }] as Record<string, string>[]) {
      const res = await fetch(pollUrl, { headers });
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({ code: 4, message: 'unauthorized' });
    }
    expect(opened).toBe(0);
    // The client library reports it as a refused handshake, without waiting for a timeout.
    await expect(connectChatSocket(baseUrl, null, { transports: ['polling'] })).rejects.toThrow(
      'unauthorized (HTTP 403)',
    );
    const s = await loginAs(baseUrl, alice.username, alice.password);
    const open = await fetch(pollUrl, { headers: { cookie: s.cookie } });
    expect(open.status).toBe(200);
    expect((await open.text()).startsWith('0{')).toBe(true); // engine.io "open" packet
    expect(opened).toBe(1);
    engine.off('connection', onConnection);
    // A signed-in polling client upgrades to WebSocket and talks.
    const socket = await connectChatSocket(baseUrl, s, { transports: ['polling', 'websocket'] });
    try {
      await new Promise<void>((resolve) =>
        socket.io.engine.transport.name === 'websocket'
          ? resolve()
          : socket.io.engine.once('upgrade', () => resolve()),
      );
      expect(await socket.emitWithAck('whoami')).toMatchObject({ id: alice.id });
    } finally {
      socket.close();
    }
  });
});

describe('hostile HTTP input', () => {
  let adminSession: LoginSession;
  beforeAll(async () => {
    const root2 = await insertTestOperator(db.dataSource, { role: 'admin' });
    adminSession = await loginAs(baseUrl, root2.username, root2.password);
  });

  it('answers 400 for a NUL character and writes nothing', async () => {
    const before = await operatorCount();
    const r = await http()
      .post('/api/operators')
      .set(adminSession.headers)
      .send({ username: 'nul-user', displayName: 'a\u0000b', password: 'long-enough-pw', role: 'operator' });
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/NUL/);
    expect(await operatorCount()).toBe(before);
    const login = await http()
      .post('/api/auth/login')
      .set(CSRF_HEADERS)
      .send({ username: 'a\u0000', password: 'x' });
    expect(login.status).toBe(400);
  });

  it('answers 400 for malformed JSON and 413 for a body over 1 MB', async () => {
    const bad = await http()
      .post('/api/auth/login')
      .set(CSRF_HEADERS)
      .set('Content-Type', 'application/json')
      .send('{"username": ');
    expect(bad.status).toBe(400);
    const huge = await http()
      .post('/api/operators')
      .set(adminSession.headers)
      .send({
        username: 'huge',
        displayName: 'x'.repeat(1_100_000),
        password: 'long-enough-pw',
        role: 'operator',
      });
    expect(huge.status).toBe(413);
  });

  it('stores lone surrogates and RTL marks without crashing (validation decides, never a 500)', async () => {
    for (const displayName of ['\ud800', '\u202Eevil\u202C', 'x'.repeat(101)]) {
      const r = await http()
        .post('/api/operators')
        .set(adminSession.headers)
        .send({
          username: `u${Math.random().toString(36).slice(2, 8)}`,
          displayName,
          password: 'long-enough-pw',
          role: 'operator',
        });
      expect([201, 400]).toContain(r.status);
    }
  });

  it('sends security headers: CSP of the own origin only, no sniffing, no framing; no CORS', async () => {
    const r = await http().get('/api/probe/public').set('Origin', 'https://evil.example');
    const csp = String(r.headers['content-security-policy']);
    expect(csp).toMatch(/default-src 'self'/);
    expect(csp).toMatch(/script-src 'self'(;|$)/);
    expect(csp).toMatch(/frame-ancestors 'none'/);
    expect(r.headers['x-content-type-options']).toBe('nosniff');
    expect(r.headers['access-control-allow-origin']).toBeUndefined();
    expect(r.headers['x-powered-by']).toBeUndefined();
  });

  it('/api/docs needs an admin session', async () => {
    expect((await http().get('/api/docs')).status).toBe(401);
    const s = await loginAs(baseUrl, alice.username, alice.password);
    expect((await http().get('/api/docs').set(s.headers)).status).toBe(403);
  });
});

describe('several API instances', () => {
  it('disabling an operator on one instance disconnects their sockets on another', async () => {
    const other = await startAuthOnlyApp(db.url, {
      REDIS_PREFIX: env.REDIS_PREFIX,
      JWT_SECRET: env.JWT_SECRET!,
    });
    try {
      const erin = await insertTestOperator(db.dataSource);
      const root = await insertTestOperator(db.dataSource, { role: 'admin' });
      const s = await loginAs(other.baseUrl, erin.username, erin.password);
      const socket = await connectChatSocket(other.baseUrl, s);
      const disconnected = new Promise<string>((resolve) =>
        socket.once('disconnect', (reason) => resolve(reason)),
      );
      const adminSession = await loginAs(baseUrl, root.username, root.password);
      expect(
        (await http().patch(`/api/operators/${erin.id}`).set(adminSession.headers).send({ disabled: true }))
          .status,
      ).toBe(200);
      expect(await disconnected).toBe('io server disconnect');
    } finally {
      await other.app.close();
    }
  });
});

describe('operator changes and sessions', () => {
  it('a role change, a disable and a change by hand take effect on the next request on every instance', async () => {
    const other = await startAuthOnlyApp(db.url, {
      REDIS_PREFIX: env.REDIS_PREFIX,
      JWT_SECRET: env.JWT_SECRET!,
    });
    try {
      const adminSession = await loginAs(baseUrl, admin.username, admin.password);
      const frank = await insertTestOperator(db.dataSource, { role: 'admin' });
      const s = await loginAs(baseUrl, frank.username, frank.password);
      expect((await http().get('/api/operators').set(s.headers)).status).toBe(200);
      expect((await request(other.baseUrl).get('/api/operators').set(s.headers)).status).toBe(200);

      expect(
        (
          await http()
            .patch(`/api/operators/${frank.id}`)
            .set(adminSession.headers)
            .send({ role: 'operator' })
        ).status,
      ).toBe(200);
      expect((await http().get('/api/operators').set(s.headers)).status).toBe(403);
      expect((await request(other.baseUrl).get('/api/operators').set(s.headers)).status).toBe(403);
      expect((await request(other.baseUrl).get('/api/auth/me').set(s.headers)).body.role).toBe('operator');

      // A change no API instance made (a CLI, SQL by hand) too.
      await db.dataSource.query(`UPDATE operators SET disabled = true WHERE id = $1`, [frank.id]);
      expect((await http().get('/api/auth/me').set(s.headers)).status).toBe(401);
      expect((await request(other.baseUrl).get('/api/auth/me').set(s.headers)).status).toBe(401);
    } finally {
      await other.app.close();
    }
  });
});

describe('per-operator limits', () => {
  it('counts a route per operator across API instances sharing Redis: 429 past REQUESTS_PER_MINUTE, others unaffected', async () => {
    // A prefix of their own: the low limit must not block this file's other sign-ins (same IP).
    const shared = { REDIS_PREFIX: testRedisPrefix(), JWT_SECRET: env.JWT_SECRET!, REQUESTS_PER_MINUTE: '4' };
    const second = await startAuthOnlyApp(db.url, shared);
    const third = await startAuthOnlyApp(db.url, shared);
    try {
      const flooder = await insertTestOperator(db.dataSource);
      const other = await insertTestOperator(db.dataSource);
      const f = await loginAs(second.baseUrl, flooder.username, flooder.password);
      const o = await loginAs(second.baseUrl, other.username, other.password);
      const statuses: number[] = [];
      for (let i = 0; i < 8; i++) {
        const target = i % 2 ? second.baseUrl : third.baseUrl;
        statuses.push((await request(target).post('/api/probe/message').set(f.headers)).status);
      }
      expect(statuses.filter((s) => s === 202)).toHaveLength(4);
      expect(statuses.slice(4)).toEqual([429, 429, 429, 429]);
      const refused = await request(second.baseUrl).post('/api/probe/message').set(f.headers);
      expect(refused.body.message).toMatch(/Too many requests \(at most 4 a minute\)/);
      const fine = await request(third.baseUrl).post('/api/probe/message').set(o.headers);
      expect(fine.status).toBe(202);
      expect(fine.body.operatorId).toBe(other.id);
    } finally {
      await second.app.close();
      await third.app.close();
    }
  });
});

describe('Redis unreachable', () => {
  it('sign-in answers 503; an existing session still reads (rate limits fail open)', async () => {
    const down = await startAuthOnlyApp(db.url, {
      REDIS_URL: 'redis://127.0.0.1:1',
      JWT_SECRET: env.JWT_SECRET!,
    });
    try {
      const r = await request(down.baseUrl)
        .post('/api/auth/login')
        .set(CSRF_HEADERS)
        .send({ username: alice.username, password: alice.password });
      expect(r.status).toBe(503);
      expect(r.body.message).toMatch(/Redis is not reachable/);
      const s = await loginAs(baseUrl, alice.username, alice.password);
      expect((await request(down.baseUrl).get('/api/auth/me').set(s.headers)).status).toBe(200);
    } finally {
      await down.app.close();
    }
  }, 40_000);
});

describe('first admin bootstrap', () => {
  it('in development generates a password, writes it with mode 600, and does it only once', async () => {
    const fresh = await createTestDatabase();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cc-admin-'));
    try {
      const svc = new AdminBootstrapService(fresh.dataSource, {
        ...env,
        NODE_ENV: 'development',
        ADMIN_PASSWORD: undefined,
        ADMIN_USERNAME: 'boss',
        DATA_DIR: dataDir,
      } as AuthEnv);
      const write = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
      try {
        expect(await svc.ensureFirstAdmin()).toBe('created');
        expect(await svc.ensureFirstAdmin()).toBe('exists');
      } finally {
        write.mockRestore();
      }
      const file = path.join(dataDir, adminPasswordFileName(env.DATABASE_URL));
      expect(path.basename(file)).toMatch(/^admin-password\.[\w.-]+\.txt$/);
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      const password = fs.readFileSync(file, 'utf8').trim();
      const row = await fresh.dataSource.getRepository(OperatorEntity).findOneByOrFail({ username: 'boss' });
      expect(row.role).toBe('admin');
      expect(row.passwordHash).toMatch(/^\$argon2id\$/);
      expect(row.passwordHash).not.toContain(password);
      const argon2 = await import('argon2');
      expect(await argon2.verify(row.passwordHash, password)).toBe(true);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
      await fresh.drop();
    }
  });

  it('in production refuses to start without ADMIN_PASSWORD while no admin exists, and uses it when given', async () => {
    const fresh = await createTestDatabase();
    try {
      const prod = {
        ...env,
        NODE_ENV: 'production',
        ADMIN_PASSWORD: undefined,
        ADMIN_USERNAME: 'boss',
      } as AuthEnv;
      await expect(new AdminBootstrapService(fresh.dataSource, prod).ensureFirstAdmin()).rejects.toThrow(
        /ADMIN_PASSWORD/,
      );
      const given = { ...prod, ADMIN_PASSWORD: 'configured-password' } as AuthEnv;
      expect(await new AdminBootstrapService(fresh.dataSource, given).ensureFirstAdmin()).toBe('created');
      expect(await fresh.dataSource.getRepository(OperatorEntity).countBy({ role: 'admin' })).toBe(1);
    } finally {
      await fresh.drop();
    }
  });
});
