/**
 * `npm start`'s preparation: creates and migrates the database and imports the CORPUS_DIR files
 * (default ../shared/corpus/scans) it lacks, each in its own transaction; with no folder and an
 * empty corpus, a labelled demo corpus. Exits non-zero when a step other than a file fails.
 */
import fs from 'node:fs';
import path from 'node:path';
import { batchSummary, generateDemoCorpus, importPaths } from '@corpus-chat/ingest';
import { cliActor, createDataSource, ensureDatabase } from '@corpus-chat/persistence';

async function main(): Promise<void> {
  const url = process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/corpus_chat';
  if (await ensureDatabase(url)) console.log('[bootstrap] created the database');
  const ds = createDataSource(url);
  await ds.initialize();
  try {
    const ran = await ds.runMigrations({ transaction: 'each' });
    if (ran.length) console.log(`[bootstrap] ran ${ran.length} migration(s)`);
    const shared = path.resolve(__dirname, '..', '..', '..', 'shared', 'corpus', 'scans');
    const dir = process.env['CORPUS_DIR'] || (fs.existsSync(shared) ? shared : '');
    if (dir) {
      console.log(`[bootstrap] importing the files of ${dir} not in the corpus yet`);
      // Audited like corpus:import: the person who ran npm start imported these reports.
      // An archived report stays archived: its file is skipped like one already there.
      const outcomes = await importPaths(ds, [dir], { actor: cliActor(), archivedToo: true });
      for (const line of batchSummary(outcomes)) console.log(`[bootstrap] ${line}`);
      return;
    }
    const [{ n }] = await ds.query('SELECT count(*)::int AS n FROM reports');
    if (n > 0) {
      console.log(`[bootstrap] corpus holds ${n} report(s); CORPUS_DIR unset and no ${shared} to import`);
      return;
    }
    console.log(
      `[bootstrap] empty corpus, CORPUS_DIR unset and no ${shared}: generating a DEMO corpus (synthetic data). ` +
        'To start with real scanner files instead, stop, drop the database and set CORPUS_DIR, or import them on the Reports page.',
    );
    await generateDemoCorpus(ds, { findings: 2000 });
  } finally {
    await ds.destroy();
  }
}

main().catch((e) => {
  console.error(`[bootstrap] ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
