import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { createDataSource } from '../data-source';

/** Server the tests use: this machine's Postgres (trust auth). Override with TEST_PG_URL. */
const SERVER_URL = process.env['TEST_PG_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';

function urlFor(db: string): string {
  const u = new URL(SERVER_URL);
  u.pathname = `/${db}`;
  return u.toString();
}

/** Template name keyed by the migrations' content, so a changed migration gets a fresh template. */
function templateName(): string {
  const dir = path.join(__dirname, '..', 'migrations');
  const hash = crypto.createHash('sha1');
  for (const f of fs.readdirSync(dir).sort()) hash.update(f).update(fs.readFileSync(path.join(dir, f)));
  return `corpus_chat_test_tmpl_${hash.digest('hex').slice(0, 12)}`;
}

async function withAdmin<T>(fn: (c: Client) => Promise<T>): Promise<T> {
  const c = new Client({ connectionString: SERVER_URL });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** Creates the migrated template database once per migrations version (guarded by an advisory lock). */
async function ensureTemplate(): Promise<string> {
  const tmpl = templateName();
  await withAdmin(async (c) => {
    await c.query('SELECT pg_advisory_lock(727274)');
    try {
      const { rowCount } = await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [tmpl]);
      if (rowCount) return;
      await c.query(`CREATE DATABASE "${tmpl}"`);
      try {
        const ds = createDataSource(urlFor(tmpl));
        await ds.initialize();
        try {
          await ds.runMigrations({ transaction: 'each' });
        } finally {
          await ds.destroy();
        }
      } catch (e) {
        // A migration that fails must not leave a half-migrated template for the next run to reuse.
        await c.query(`DROP DATABASE IF EXISTS "${tmpl}" WITH (FORCE)`).catch(() => undefined);
        throw e;
      }
    } finally {
      await c.query('SELECT pg_advisory_unlock(727274)');
    }
  });
  return tmpl;
}

export interface TestDatabase {
  /** Connection URL of this test's own database. */
  url: string;
  /** An initialised DataSource on it. */
  dataSource: DataSource;
  /** Closes the DataSource and drops the database. */
  drop(): Promise<void>;
}

/**
 * A fresh, migrated database of its own for one test file: a copy of a template migrated once,
 * so test files running in parallel never see each other's rows. Call `drop()` in `afterAll`.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const tmpl = await ensureTemplate();
  const name = `corpus_chat_test_${process.pid}_${crypto.randomBytes(4).toString('hex')}`;
  await withAdmin(async (c) => {
    // CREATE DATABASE … TEMPLATE needs no other session on the template: retry briefly if one is closing.
    for (let i = 0; ; i++) {
      try {
        await c.query(`CREATE DATABASE "${name}" TEMPLATE "${tmpl}"`);
        return;
      } catch (e) {
        if (i >= 20 || !/being accessed by other users/.test(String(e))) throw e;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  });
  const url = urlFor(name);
  const dataSource = createDataSource(url);
  await dataSource.initialize();
  return {
    url,
    dataSource,
    async drop() {
      if (dataSource.isInitialized) await dataSource.destroy();
      await withAdmin((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
    },
  };
}

/** Drops every database a test run left behind (`corpus_chat_test_*`). Used by the test runner. */
export async function dropLeftoverTestDatabases(): Promise<number> {
  return withAdmin(async (c) => {
    const { rows } = await c.query<{ datname: string }>(
      "SELECT datname FROM pg_database WHERE datname LIKE 'corpus\\_chat\\_test\\_%'",
    );
    for (const r of rows) await c.query(`DROP DATABASE IF EXISTS "${r.datname}" WITH (FORCE)`);
    return rows.length;
  });
}
