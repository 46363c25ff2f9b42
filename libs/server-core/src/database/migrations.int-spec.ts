import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { createDataSource, ensureDatabase } from '@corpus-chat/persistence';
import { runMigrationsExclusively } from './migrations';

const SERVER_URL = process.env['TEST_PG_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';

describe('runMigrationsExclusively (real Postgres)', () => {
  const name = `corpus_chat_test_migrate_${randomBytes(4).toString('hex')}`;
  const url = Object.assign(new URL(SERVER_URL), { pathname: `/${name}` }).toString();

  afterAll(async () => {
    const admin = new Client({ connectionString: SERVER_URL });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.end();
  });

  it('lets processes starting together migrate an empty database one after the other', async () => {
    await ensureDatabase(url);
    const sources = [createDataSource(url), createDataSource(url), createDataSource(url)];
    await Promise.all(sources.map((s) => s.initialize()));
    try {
      const ran = await Promise.all(sources.map((s) => runMigrationsExclusively(s)));
      const all = ran.flat();
      expect(all.length).toBeGreaterThan(0);
      expect(new Set(all).size).toBe(all.length); // every migration ran exactly once
      expect(ran.filter((r) => r.length === 0)).toHaveLength(2);
      const [{ n }] = await sources[0].query(`SELECT count(*)::int AS n FROM typeorm_migrations`);
      expect(n).toBe(all.length);
    } finally {
      await Promise.all(sources.map((s) => s.destroy()));
    }
  });
});
