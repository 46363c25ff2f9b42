/**
 * `npm run corpus:import -- <file or folder>...`: imports each file (folders are walked, in name
 * order) into the database at DATABASE_URL (default postgres://postgres@127.0.0.1:5432/corpus_chat),
 * running pending migrations first. Prints one line per file — report id, format and finding
 * count, or the refusal — and exits 1 when any file failed. CORPUS_IMPORT_MAX_BYTES overrides the
 * 50 MB size limit.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createDataSource } from '../data-source';
import { ensureDatabase } from '../database-admin';
import type { ImportOutcome } from '@corpus-chat/contracts';
import { DEFAULT_MAX_IMPORT_BYTES, importReport, sizeRefusal } from '../importers';

const DEFAULT_URL = 'postgres://postgres@127.0.0.1:5432/corpus_chat';

function* walk(target: string): Generator<string> {
  const stat = fs.statSync(target);
  if (!stat.isDirectory()) {
    yield target;
    return;
  }
  for (const entry of fs.readdirSync(target).sort()) {
    if (entry.startsWith('.')) continue;
    yield* walk(path.join(target, entry));
  }
}

async function main(args: string[]): Promise<number> {
  if (args.length === 0) {
    console.error('usage: npm run corpus:import -- <file or folder>...');
    return 2;
  }
  const url = process.env['DATABASE_URL'] ?? DEFAULT_URL;
  const maxBytes = Number(process.env['CORPUS_IMPORT_MAX_BYTES'] ?? DEFAULT_MAX_IMPORT_BYTES);
  if (!Number.isInteger(maxBytes) || maxBytes <= 0) {
    console.error(`CORPUS_IMPORT_MAX_BYTES must be a positive integer, got ${process.env['CORPUS_IMPORT_MAX_BYTES']}`);
    return 2;
  }
  await ensureDatabase(url);
  const ds = createDataSource(url);
  await ds.initialize();
  let failed = 0;
  let imported = 0;
  try {
    await ds.runMigrations({ transaction: 'each' });
    for (const arg of args) {
      let files: string[];
      try {
        files = [...walk(arg)];
      } catch (e) {
        console.log(`FAIL  ${arg}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or folder' : (e as Error).message}`);
        failed++;
        continue;
      }
      for (const file of files) {
        // Refuse an over-size file before reading it into memory.
        const tooLarge = sizeRefusal(fs.statSync(file).size, maxBytes);
        let outcome: ImportOutcome;
        try {
          outcome = tooLarge
            ? { ok: false, file: path.basename(file), code: tooLarge.code, error: tooLarge.message }
            : await importReport(ds, { filename: file, bytes: fs.readFileSync(file) }, { maxBytes });
        } catch (e) {
          console.log(`FAIL  ${file}: ${(e as Error).message}`);
          failed++;
          continue;
        }
        if (outcome.ok) {
          imported++;
          console.log(`ok    ${file}: report ${outcome.reportId}, ${outcome.format}, ${outcome.findingCount} findings`);
        } else {
          failed++;
          console.log(`FAIL  ${file}: ${outcome.error} [${outcome.code}]`);
        }
      }
    }
  } finally {
    await ds.destroy();
  }
  console.log(`${imported} imported, ${failed} failed`);
  return failed ? 1 : 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  },
);
