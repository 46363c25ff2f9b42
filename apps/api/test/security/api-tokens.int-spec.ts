/**
 * API tokens on the real API: minted with the password, created with the secret shown once and
 * only its SHA-256 stored, 90 days by default, listed with when each was last used;
 * accepted as `Authorization: Bearer …` on corpus and own-thread reads; refused on admin routes and
 * on every state-changing route (403, nothing written), when revoked or expired, and at once when
 * the operator is disabled or its password changed or reset (401); counted against the
 * operator's rate limit like a session.
 */
import 'reflect-metadata';
import { createHash, randomUUID } from 'node:crypto';
import request from 'supertest';
import { API_TOKENS_PER_OPERATOR, type ApiTokenView } from '@corpus-chat/contracts';
import { ApiTokenEntity, ChatSessionEntity } from '@corpus-chat/persistence';
import {
  createTestDatabase,
  insertTestOperator,
  type TestDatabase,
  type TestOperator,
} from '@corpus-chat/persistence/testing';
import { bearer, createApiToken } from '../support/api-tokens';
import { loginAs, type LoginSession } from '../support/login';
import { type RunningApi, startApi } from './full-app';

let db: TestDatabase;
let api: RunningApi;
let admin: TestOperator;
let adminSession: LoginSession;

beforeAll(async () => {
  db = await createTestDatabase();
  api = await startApi(db.url);
  admin = await insertTestOperator(db.dataSource, { role: 'admin' });
  adminSession = await loginAs(api.baseUrl, admin.username, admin.password);
}, 60_000);
afterAll(async () => {
  await api?.close();
  await db?.drop();
}, 60_000);

const http = () => request(api.baseUrl);
async function operatorWithSession(): Promise<{ op: TestOperator; session: LoginSession }> {
  const op = await insertTestOperator(db.dataSource);
  return { op, session: await loginAs(api.baseUrl, op.username, op.password) };
}
const tokensOf = (operatorId: string) => db.dataSource.getRepository(ApiTokenEntity).findBy({ operatorId });

describe('creating, listing and revoking', () => {
  it('answers the secret once and stores only its SHA-256', async () => {
    const { op, session } = await operatorWithSession();
    const created = await createApiToken(api.baseUrl, session, { name: '  CI script ', expiresInDays: 30 });
    expect(created.secret).toMatch(/^cc_pat_[A-Za-z0-9_-]{43}$/);
    expect(created).toMatchObject({ name: 'CI script', scope: 'read', prefix: created.secret.slice(0, 11) });
    expect(Date.parse(created.expiresAt!) - Date.parse(created.createdAt)).toBe(30 * 86_400_000);

    const [row] = await tokensOf(op.id);
    expect(row!.tokenHash).toBe(createHash('sha256').update(created.secret).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(created.secret.slice(11));

    const list = await http().get('/api/auth/tokens').set(session.headers);
    expect(list.status).toBe(200);
    expect(list.body).toEqual([
      {
        id: created.id,
        name: 'CI script',
        scope: 'read',
        prefix: created.prefix,
        createdAt: created.createdAt,
        expiresAt: created.expiresAt,
        lastUsedAt: null,
      },
    ] satisfies ApiTokenView[]);
  });

  it('asks for the password (403 when wrong, nothing stored) and expires after 90 days by default', async () => {
    const { op, session } = await operatorWithSession();
    const mint = (body: object) => http().post('/api/auth/tokens').set(session.headers).send(body);
    const missing = await mint({ name: 'no password' });
    expect(missing.status).toBe(400);
    expect(JSON.stringify(missing.body.message)).toMatch(/password/);
    const wrong = await mint({ name: 'wrong password', password: 'not it' });
    expect(wrong.status).toBe(403);
    expect(wrong.body.message).toMatch(/password is not right/);
    expect(await tokensOf(op.id)).toEqual([]);
    const created = await createApiToken(api.baseUrl, session, { name: 'default lifetime' });
    expect(Date.parse(created.expiresAt!) - Date.parse(created.createdAt)).toBe(90 * 86_400_000);
  });

  it('lists when each token last authenticated a request', async () => {
    const { session } = await operatorWithSession();
    const used = await createApiToken(api.baseUrl, session, { name: 'used' });
    await createApiToken(api.baseUrl, session, { name: 'idle' });
    const before = Date.now();
    expect((await http().get('/api/reports').set(bearer(used.secret))).status).toBe(200);
    const list = (await http().get('/api/auth/tokens').set(session.headers)).body as ApiTokenView[];
    const byName = Object.fromEntries(list.map((t) => [t.name, t.lastUsedAt]));
    expect(byName['idle']).toBeNull();
    expect(Date.parse(byName['used']!)).toBeGreaterThanOrEqual(before - 5000);
  });

  it('refuses an empty name, a lifetime out of range and a token over the per-operator limit', async () => {
    const { op, session } = await operatorWithSession();
    const mint = (body: object) =>
      http()
        .post('/api/auth/tokens')
        .set(session.headers)
        .send({ ...body, password: op.password });
    const empty = await mint({ name: '   ' });
    expect(empty.status).toBe(400);
    expect(JSON.stringify(empty.body.message)).toMatch(/name must not be empty/);
    expect((await mint({ name: 'x', expiresInDays: 0 })).status).toBe(400);
    expect((await mint({ name: 'x', expiresInDays: 366 })).status).toBe(400);
    for (let i = 0; i < API_TOKENS_PER_OPERATOR; i++)
      await createApiToken(api.baseUrl, session, { name: `t${i}` });
    const over = await mint({ name: 'one too many' });
    expect(over.status).toBe(409);
    expect(over.body.message).toMatch(/revoke one/);
    expect(await tokensOf(op.id)).toHaveLength(API_TOKENS_PER_OPERATOR);
  });

  it("lets no operator see or revoke another operator's token (404, token still works)", async () => {
    const a = await operatorWithSession();
    const b = await operatorWithSession();
    const token = await createApiToken(api.baseUrl, a.session, { name: 'mine' });
    expect((await http().get('/api/auth/tokens').set(b.session.headers)).body).toEqual([]);
    const foreign = await http().delete(`/api/auth/tokens/${token.id}`).set(b.session.headers);
    const unknown = await http().delete(`/api/auth/tokens/${randomUUID()}`).set(b.session.headers);
    expect([foreign.status, unknown.status]).toEqual([404, 404]);
    expect(foreign.body).toEqual(unknown.body);
    expect((await http().get('/api/auth/me').set(bearer(token.secret))).body.id).toBe(a.op.id);
  });
});

describe('what a token may reach', () => {
  it('reads the corpus, its own threads and /me as its operator, without a cookie or CSRF header', async () => {
    const { op, session } = await operatorWithSession();
    const thread = await http().post('/api/chats').set(session.headers).send({ title: 'mine' });
    const other = await operatorWithSession();
    const foreign = await http().post('/api/chats').set(other.session.headers).send({ title: 'theirs' });
    const { secret } = await createApiToken(api.baseUrl, session, { name: 'reader' });
    for (const path of [
      '/api/findings?limit=1',
      '/api/findings/counts?groupBy=severity',
      '/api/corpus/overview',
      '/api/reports',
    ]) {
      expect([path, (await http().get(path).set(bearer(secret))).status]).toEqual([path, 200]);
    }
    expect((await http().get('/api/auth/me').set(bearer(secret))).body).toMatchObject({ id: op.id });
    const threads = await http().get('/api/chats').set(bearer(secret));
    expect((threads.body as { id: string }[]).map((t) => t.id)).toEqual([thread.body.id]);
    expect((await http().get(`/api/chats/${thread.body.id}`).set(bearer(secret))).status).toBe(200);
    expect((await http().get(`/api/chats/${foreign.body.id}`).set(bearer(secret))).status).toBe(404);
  });

  it('cannot reach admin routes even when its operator is an admin (403)', async () => {
    const { secret } = await createApiToken(api.baseUrl, adminSession, { name: 'admin script' });
    for (const path of ['/api/operators', '/api/settings']) {
      expect((await http().get(path).set(adminSession.headers)).status).toBe(200);
      const res = await http().get(path).set(bearer(secret));
      expect([path, res.status]).toEqual([path, 403]);
      expect(res.body.message).toMatch(/cannot reach admin routes/);
    }
    const patch = await http()
      .patch(`/api/operators/${admin.id}`)
      .set(bearer(secret))
      .send({ displayName: 'changed by a token' });
    expect(patch.status).toBe(403);
    expect((await http().get('/api/auth/me').set(adminSession.headers)).body.displayName).toBe(
      admin.displayName,
    );
  });

  it('changes nothing: every state-changing route answers 403 and writes no row', async () => {
    const { op, session } = await operatorWithSession();
    const thread = await http().post('/api/chats').set(session.headers).send({ title: 'keep me' });
    const token = await createApiToken(api.baseUrl, session, { name: 'reader' });
    const asToken = bearer(token.secret);
    const id = thread.body.id as string;
    const attempts: [string, () => request.Test][] = [
      ['POST /api/chats', () => http().post('/api/chats').set(asToken).send({ title: 'new' })],
      [
        'PATCH /api/chats/:id',
        () => http().patch(`/api/chats/${id}`).set(asToken).send({ title: 'renamed' }),
      ],
      ['DELETE /api/chats/:id', () => http().delete(`/api/chats/${id}`).set(asToken)],
      [
        'POST messages',
        () =>
          http()
            .post(`/api/chats/${id}/messages`)
            .set(asToken)
            .send({ text: 'hello', clientMessageId: randomUUID() }),
      ],
      [
        'POST /api/auth/tokens',
        () =>
          http()
            .post('/api/auth/tokens')
            .set(asToken)
            .send({ name: 'minted by a token', password: op.password }),
      ],
      ['DELETE /api/auth/tokens/:id', () => http().delete(`/api/auth/tokens/${token.id}`).set(asToken)],
      ['GET /api/auth/tokens', () => http().get('/api/auth/tokens').set(asToken)],
      [
        'POST /api/auth/password',
        () =>
          http()
            .post('/api/auth/password')
            .set(asToken)
            .send({ currentPassword: op.password, newPassword: 'another-long-password' }),
      ],
      ['PATCH /api/reports/:id', () => http().patch('/api/reports/1').set(asToken).send({ archived: true })],
      [
        'POST /api/reports/import',
        () => http().post('/api/reports/import').set(asToken).attach('files', Buffer.from('{}'), 'x.json'),
      ],
    ];
    for (const [route, send] of attempts) expect([route, (await send()).status]).toEqual([route, 403]);
    const threads = await db.dataSource.getRepository(ChatSessionEntity).findBy({ ownerId: op.id });
    expect(threads.map((t) => t.title)).toEqual(['keep me']);
    expect((await tokensOf(op.id)).map((t) => t.name)).toEqual(['reader']);
    await loginAs(api.baseUrl, op.username, op.password); // the password is unchanged
  });
});

describe('audit', () => {
  it('records who created and revoked a token, never its secret', async () => {
    const { op, session } = await operatorWithSession();
    const token = await createApiToken(api.baseUrl, session, { name: 'audited' });
    expect((await http().delete(`/api/auth/tokens/${token.id}`).set(session.headers)).status).toBe(204);
    const res = await http()
      .get('/api/audit')
      .query({ actorId: op.id })
      .set(adminSession.headers)
      .expect(200);
    const events = res.body.events as {
      action: string;
      actorName: string;
      before: unknown;
      after: unknown;
    }[];
    expect(events.map((e) => [e.action, e.actorName])).toEqual([
      ['api_token.revoke', op.username],
      ['api_token.create', op.username],
    ]);
    expect(events[1]!.after).toMatchObject({ tokenId: token.id, name: 'audited' });
    expect(JSON.stringify(events)).not.toContain(token.secret);
  });
});

describe('when a token stops working', () => {
  it('is refused from the next request on once revoked or expired (401)', async () => {
    const { session } = await operatorWithSession();
    const revoked = await createApiToken(api.baseUrl, session, { name: 'old' });
    expect((await http().get('/api/reports').set(bearer(revoked.secret))).status).toBe(200);
    expect((await http().delete(`/api/auth/tokens/${revoked.id}`).set(session.headers)).status).toBe(204);
    const after = await http().get('/api/reports').set(bearer(revoked.secret));
    expect(after.status).toBe(401);
    expect(after.body.message).toMatch(/unknown or was revoked/);

    const expiring = await createApiToken(api.baseUrl, session, { name: 'short', expiresInDays: 1 });
    expect((await http().get('/api/reports').set(bearer(expiring.secret))).status).toBe(200);
    await db.dataSource.query(
      `UPDATE api_tokens SET expires_at = now() - interval '1 second' WHERE id = $1`,
      [expiring.id],
    );
    const expired = await http().get('/api/reports').set(bearer(expiring.secret));
    expect(expired.status).toBe(401);
    expect(expired.body.message).toMatch(/expired/);
  });

  it('is refused at once when an admin disables its operator, and stays refused after re-enabling', async () => {
    const { op, session } = await operatorWithSession();
    const { secret } = await createApiToken(api.baseUrl, session, { name: 'laptop' });
    // The operator is now in this instance's cache: the refusal below must not wait for it to expire.
    expect((await http().get('/api/auth/me').set(bearer(secret))).status).toBe(200);
    expect(
      (await http().patch(`/api/operators/${op.id}`).set(adminSession.headers).send({ disabled: true }))
        .status,
    ).toBe(200);
    const refused = await http().get('/api/auth/me').set(bearer(secret));
    expect(refused.status).toBe(401);
    expect(await tokensOf(op.id)).toEqual([]);
    expect(
      (await http().patch(`/api/operators/${op.id}`).set(adminSession.headers).send({ disabled: false }))
        .status,
    ).toBe(200);
    expect((await http().get('/api/auth/me').set(bearer(secret))).status).toBe(401);
  });

  it('is revoked when its operator changes the password, or an admin resets it', async () => {
    const { op, session } = await operatorWithSession();
    const first = await createApiToken(api.baseUrl, session, { name: 'before the change' });
    const changed = await http()
      .post('/api/auth/password')
      .set(session.headers)
      .send({ currentPassword: op.password, newPassword: 'another-long-password' });
    expect(changed.status).toBe(200);
    expect((await http().get('/api/auth/me').set(bearer(first.secret))).status).toBe(401);
    expect(await tokensOf(op.id)).toEqual([]);

    const again = await loginAs(api.baseUrl, op.username, 'another-long-password');
    const second = await createApiToken(api.baseUrl, again, { name: 'before the reset' });
    const reset = await http()
      .patch(`/api/operators/${op.id}`)
      .set(adminSession.headers)
      .send({ password: 'a-reset-long-password' });
    expect(reset.status).toBe(200);
    expect((await http().get('/api/auth/me').set(bearer(second.secret))).status).toBe(401);
    expect(await tokensOf(op.id)).toEqual([]);
  });

  it("is refused while its operator's row says disabled, whoever changed it (401)", async () => {
    const { op, session } = await operatorWithSession();
    const { secret } = await createApiToken(api.baseUrl, session, { name: 'script' });
    expect((await http().get('/api/auth/me').set(bearer(secret))).status).toBe(200);
    // Changed behind the API's back: Postgres's change notice drops the cached operator.
    await db.dataSource.query(`UPDATE operators SET disabled = true WHERE id = $1`, [op.id]);
    const end = Date.now() + 5000;
    let status = 200;
    while (status === 200 && Date.now() < end)
      status = (await http().get('/api/auth/me').set(bearer(secret))).status;
    expect(status).toBe(401);
  });
});

describe('rate limits', () => {
  it("counts a token's requests against its operator, together with the operator's session", async () => {
    const limited = await startApi(db.url, { REQUESTS_PER_MINUTE: '3' });
    try {
      const op = await insertTestOperator(db.dataSource);
      const session = await loginAs(limited.baseUrl, op.username, op.password);
      const { secret } = await createApiToken(limited.baseUrl, session, { name: 'busy script' });
      const get = (headers: Record<string, string>) =>
        request(limited.baseUrl).get('/api/reports').set(headers);
      expect((await get(session.headers)).status).toBe(200);
      expect((await get(bearer(secret))).status).toBe(200);
      expect((await get(session.headers)).status).toBe(200);
      const over = await get(bearer(secret));
      expect(over.status).toBe(429);
      expect(over.body.message).toMatch(/at most 3 a minute/);
    } finally {
      await limited.close();
    }
  });
});
