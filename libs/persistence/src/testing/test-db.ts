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

/**
 * Rows many test files start from (e.g. a whole corpus imported with the real importer), written
 * once into a template of their own and copied by each file instead of written again.
 */
export interface TemplateSeed {
  /** Everything the rows depend on besides the migrations (code and data versions): a new key, a new template. */
  key: string;
  /** Writes the rows into a freshly migrated, empty database; throws when they cannot be written. */
  fill(dataSource: DataSource): Promise<void>;
}

/**
 * The migrated template with `seed`'s rows, created once per migrations version and seed key. It is
 * filled under a temporary name and renamed when complete, so a run killed mid-fill leaves no
 * half-filled template behind for the next run to copy.
 */
async function ensureSeededTemplate(seed: TemplateSeed): Promise<string> {
  const base = await ensureTemplate();
  const tmpl = `${base}_${crypto.createHash('sha1').update(seed.key).digest('hex').slice(0, 12)}`;
  await withAdmin(async (c) => {
    // A lock of its own: filling takes seconds, and plain test databases need not wait for it.
    await c.query('SELECT pg_advisory_lock(hashtext($1))', [tmpl]);
    try {
      const { rowCount } = await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [tmpl]);
      if (rowCount) return;
      const filling = `${tmpl}_filling`;
      await c.query(`DROP DATABASE IF EXISTS "${filling}" WITH (FORCE)`);
      await copyDatabase(c, base, filling);
      try {
        const ds = createDataSource(urlFor(filling));
        await ds.initialize();
        try {
          await seed.fill(ds);
        } finally {
          await ds.destroy();
        }
        await c.query(`ALTER DATABASE "${filling}" RENAME TO "${tmpl}"`);
      } catch (e) {
        await c.query(`DROP DATABASE IF EXISTS "${filling}" WITH (FORCE)`).catch(() => undefined);
        throw e;
      }
    } finally {
      await c.query('SELECT pg_advisory_unlock(hashtext($1))', [tmpl]);
    }
  });
  return tmpl;
}

/** `CREATE DATABASE name TEMPLATE tmpl`, which needs no other session on the template: retries briefly while one is closing. */
async function copyDatabase(c: Client, tmpl: string, name: string): Promise<void> {
  for (let i = 0; ; i++) {
    try {
      await c.query(`CREATE DATABASE "${name}" TEMPLATE "${tmpl}"`);
      return;
    } catch (e) {
      if (i >= 20 || !/being accessed by other users/.test(String(e))) throw e;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
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
 * so test files running in parallel never see each other's rows. With `seed`, the copy also holds
 * the seed's rows (see `TemplateSeed`). Call `drop()` in `afterAll`.
 */
export async function createTestDatabase(seed?: TemplateSeed): Promise<TestDatabase> {
  const tmpl = seed ? await ensureSeededTemplate(seed) : await ensureTemplate();
  const name = `corpus_chat_test_${process.pid}_${crypto.randomBytes(4).toString('hex')}`;
  await withAdmin((c) => copyDatabase(c, tmpl, name));
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

/** Bytes of import `importJobId`'s upload still stored in Postgres (0 once its import ended). */
export async function storedUploadBytes(dataSource: DataSource, importJobId: string): Promise<number> {
  const [row]: { n: number }[] = await dataSource.query(
    `SELECT coalesce(sum(octet_length(data)), 0)::int AS n FROM import_upload_chunks WHERE import_job_id = $1`,
    [importJobId],
  );
  return row!.n;
}
