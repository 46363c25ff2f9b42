/**
 * `npm run migration:run`: creates the database named in DATABASE_URL when it does not exist
 * (default postgres://postgres@127.0.0.1:5432/corpus_chat) and runs every pending migration, each
 * in its own transaction. Prints the migrations it ran.
 */
import { createDataSource } from '../data-source';
import { ensureDatabase } from '../database-admin';

const DEFAULT_URL = 'postgres://postgres@127.0.0.1:5432/corpus_chat';

async function main(): Promise<void> {
  const url = process.env['DATABASE_URL'] ?? DEFAULT_URL;
  if (await ensureDatabase(url)) console.log(`created database ${new URL(url).pathname.slice(1)}`);
  const ds = createDataSource(url);
  await ds.initialize();
  try {
    const ran = await ds.runMigrations({ transaction: 'each' });
    if (ran.length === 0) console.log('no pending migrations');
    for (const m of ran) console.log(`ran ${m.name}`);
  } finally {
    await ds.destroy();
  }
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
