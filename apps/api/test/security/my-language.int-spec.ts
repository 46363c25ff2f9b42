/**
 * `PATCH /api/auth/me`: an operator chooses the language of the interface (real Postgres + Redis,
 * the auth and operators modules alone). The choice is stored, answered by `GET /api/auth/me` and
 * at sign-in, audited once per change; a language not offered is 400 and changes nothing.
 */
import type { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { OperatorEntity } from '@corpus-chat/persistence';
import { createTestDatabase, insertTestOperator, type TestDatabase } from '@corpus-chat/persistence/testing';
import { CSRF_HEADERS, loginAs } from '../support/login';
import { startAuthOnlyApp } from './standalone-app';

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
      { action: 'operator.update', actor_id: olga.id, before: { language: 'en' }, after: { language: 'ru' } },
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
    expect((await http().patch('/api/auth/me').set(CSRF_HEADERS).send({ language: 'ru' })).status).toBe(401);
    expect((await http().patch('/api/auth/me').set('Cookie', s.cookie).send({ language: 'ru' })).status).toBe(
      403,
    );
    expect(await languageOf(rita.id)).toBe('en');
  });
});
