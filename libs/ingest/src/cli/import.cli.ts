/**
 * `npm run corpus:import -- <file or folder>...`: migrates, then imports each file into
 * DATABASE_URL (audited as `cli:<OS user>`); one line per file, exit 1 when any failed.
 * IMPORT_MAX_BYTES overrides the 50 MB limit.
 */
import { cliActor, createDataSource, ensureDatabase } from '@corpus-chat/persistence';
import { DEFAULT_MAX_IMPORT_BYTES, importPaths, sincePreviousSummary } from '../importers';

const DEFAULT_URL = 'postgres://postgres@127.0.0.1:5432/corpus_chat';

async function main(args: string[]): Promise<number> {
  if (args.length === 0) {
    console.error('usage: npm run corpus:import -- <file or folder>...');
    return 2;
  }
  const url = process.env['DATABASE_URL'] ?? DEFAULT_URL;
  const maxBytes = Number(process.env['IMPORT_MAX_BYTES'] ?? DEFAULT_MAX_IMPORT_BYTES);
  if (!Number.isInteger(maxBytes) || maxBytes <= 0) {
    console.error(`IMPORT_MAX_BYTES must be a positive integer, got ${process.env['IMPORT_MAX_BYTES']}`);
    return 2;
  }
  await ensureDatabase(url);
  const ds = createDataSource(url);
  await ds.initialize();
  try {
    await ds.runMigrations({ transaction: 'each' });
    const outcomes = await importPaths(ds, args, {
      maxBytes,
      actor: cliActor(),
      onOutcome: (outcome, file) =>
        console.log(
          outcome.ok
            ? `ok    ${file}: report ${outcome.reportId}, ${outcome.format}, ${outcome.findingCount} findings` +
                (outcome.sincePrevious ? `; ${sincePreviousSummary(outcome.sincePrevious)}` : '')
            : `FAIL  ${file}: ${outcome.error} [${outcome.code}]`,
        ),
    });
    const failed = outcomes.filter((o) => !o.ok).length;
    console.log(`${outcomes.length - failed} imported, ${failed} failed`);
    return failed ? 1 : 0;
  } finally {
    await ds.destroy();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  },
);
