/**
 * Where the browser tests find the repository, the shared data and their artifacts folder, and
 * the questions file whose corpus they load and whose exact answers they check.
 */
import fs from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const sharedDir = process.env.SHARED_DIR
  ? path.resolve(process.env.SHARED_DIR)
  : path.resolve(root, '..', 'shared');
/** Named screenshots and the stack's logs; Playwright's own output goes to results/ inside. */
export const artifactsDir = path.join(root, 'test-artifacts', 'e2e');
export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

let questions;
function loadQuestions() {
  questions ??= JSON.parse(fs.readFileSync(path.join(sharedDir, 'questions', 'questions.json'), 'utf8'));
  return questions;
}

/** The corpus files (relative to shared/corpus) the questions' answers are computed on. */
export const corpusFiles = () => loadQuestions().corpus.files;

/** The expected numbers of the question whose first turn is `text` (from ../shared/questions). */
export function expectedNumbers(text) {
  const q = loadQuestions().questions.find(
    (x) => x.turns.length === 1 && x.turns[0].toLowerCase() === text.toLowerCase(),
  );
  if (!q) throw new Error(`questions.json has no single-turn question "${text}"`);
  return q.expect.numbers;
}
