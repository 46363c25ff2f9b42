import fs from 'node:fs';
import path from 'node:path';
import type { DataSource } from 'typeorm';
import type { ImportOutcome } from '@corpus-chat/contracts';
import { importReport } from '../importers';

/** The repository root (three levels above `libs/corpus-queries/src/testing`). */
export const REPO_ROOT = path.resolve(__dirname, '..', '..', '..', '..');

/** The read-only third-party data folder: `$SHARED_DIR`, else `<repo>/../shared`. */
export function sharedDir(): string {
  return process.env['SHARED_DIR'] ? path.resolve(process.env['SHARED_DIR']) : path.resolve(REPO_ROOT, '..', 'shared');
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
export function loadQuestions(file: 'questions.json' | 'questions-r2.json' = 'questions.json'): { corpus: { root: string; files: string[] }; questions: SharedQuestion[] } {
  return JSON.parse(fs.readFileSync(path.join(sharedDir(), 'questions', file), 'utf8'));
}

/** Imports corpus files (paths relative to `shared/corpus`) one by one; returns their outcomes in order. */
export async function importCorpusFiles(ds: DataSource, files: string[]): Promise<ImportOutcome[]> {
  const outcomes: ImportOutcome[] = [];
  for (const f of files) outcomes.push(await importReport(ds, { filename: f, bytes: fs.readFileSync(corpusPath(f)) }));
  return outcomes;
}
