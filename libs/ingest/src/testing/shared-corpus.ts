import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { DataSource } from 'typeorm';
import type { ImportOutcome } from '@corpus-chat/contracts';
import { importReport } from '../importers';
import { createTestDatabase, type TestDatabase } from '@corpus-chat/persistence/testing';

/** The repository root (three levels above `libs/ingest/src/testing`). */
export const REPO_ROOT = path.resolve(__dirname, '..', '..', '..', '..');

/** The read-only third-party data folder: `$SHARED_DIR`, else `<repo>/../shared`. */
export function sharedDir(): string {
  return process.env['SHARED_DIR']
    ? path.resolve(process.env['SHARED_DIR'])
    : path.resolve(REPO_ROOT, '..', 'shared');
}

/** A path inside `shared/corpus`. */
export function corpusPath(relative: string): string {
  return path.join(sharedDir(), 'corpus', relative);
}

/** One question of `shared/questions/questions.json`. */
export interface SharedQuestion {
  id: string;
  turns: string[];
  expect: { numbers?: number[]; names?: string[]; noNumbers?: boolean };
  why: string;
}

/** `shared/questions/questions.json`: the corpus files to import and the questions with their exact answers. */
export function loadQuestions(file: 'questions.json' | 'questions-r2.json' = 'questions.json'): {
  corpus: { root: string; files: string[] };
  questions: SharedQuestion[];
} {
  return JSON.parse(fs.readFileSync(path.join(sharedDir(), 'questions', file), 'utf8'));
}

/** Imports corpus files (paths relative to `shared/corpus`) one by one; returns their outcomes in order. */
export async function importCorpusFiles(ds: DataSource, files: string[]): Promise<ImportOutcome[]> {
  const outcomes: ImportOutcome[] = [];
  for (const f of files)
    outcomes.push(await importReport(ds, { filename: f, bytes: fs.readFileSync(corpusPath(f)) }));
  return outcomes;
}

/** The libraries' source (the importer and what it uses) and the lockfile (its parsers' versions). */
function importerSources(): string[] {
  const out: string[] = [path.join(REPO_ROOT, 'package-lock.json')];
  const walk = (dir: string): void => {
    for (const e of fs
      .readdirSync(dir, { withFileTypes: true })
      .sort((a, b) => a.name.localeCompare(b.name))) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.ts') && !e.name.endsWith('.spec.ts')) out.push(p);
    }
  };
  for (const lib of ['contracts', 'persistence', 'corpus-queries', 'ingest'])
    walk(path.join(REPO_ROOT, 'libs', lib, 'src'));
  return out;
}

/**
 * A database of its own (see `createTestDatabase`) holding exactly the corpus files of
 * shared/questions/`file`, imported with the real importer into an empty database. Importing
 * them takes seconds and many test files start from them, so the import runs once per version of
 * the importer's code and of the files, into a template each caller copies. Throws when a file
 * is refused. Drop the database in `afterAll` (`db.drop()`).
 */
export async function createQuestionsCorpusDatabase(
  file: Parameters<typeof loadQuestions>[0] = 'questions.json',
): Promise<TestDatabase> {
  const files = loadQuestions(file).corpus.files;
  const hash = crypto.createHash('sha1').update(JSON.stringify(files));
  for (const p of [...importerSources(), ...files.map(corpusPath)])
    hash.update(path.relative(REPO_ROOT, p)).update(fs.readFileSync(p));
  return createTestDatabase({
    key: `questions-corpus ${file} ${hash.digest('hex')}`,
    async fill(ds) {
      const refused = (await importCorpusFiles(ds, files)).filter((o) => !o.ok);
      if (refused.length) throw new Error(`${file} corpus files refused: ${JSON.stringify(refused)}`);
    },
  });
}
