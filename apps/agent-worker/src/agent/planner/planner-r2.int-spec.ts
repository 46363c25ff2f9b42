/**
 * Acceptance: the built-in planner answers every question of shared/questions/questions-r2.json
 * (all seven formats, report references, follow-ups that keep scope, shares, rankings by format,
 * title and CWE, scan comparisons) on a database holding exactly its listed corpus files, imported
 * with the real importer. Expected numbers and names come from the file.
 */
import 'reflect-metadata';
import { loadQuestions } from '@corpus-chat/ingest/testing';
import { type TestDatabase } from '@corpus-chat/persistence/testing';
import { scoreAnswer } from '../../eval/answer-score';
import { plannerOnQuestionsCorpus } from '../testing/questions-corpus-planner';
import { TestThread, type CapturedTurn } from '../testing/turn-harness';
import type { PlannerRunner } from './planner-runner';

const { questions } = loadQuestions('questions-r2.json');
let db: TestDatabase;
let planner: PlannerRunner;

beforeAll(async () => {
  ({ db, planner } = await plannerOnQuestionsCorpus('questions-r2.json'));
}, 300_000);
afterAll(async () => db?.drop());

async function ask(turns: string[]): Promise<CapturedTurn> {
  const thread = new TestThread(planner);
  let last: CapturedTurn | undefined;
  for (const t of turns) last = await thread.ask(t);
  return last!;
}

describe('built-in planner on shared/questions/questions-r2.json', () => {
  it.each(questions.map((q) => [q.id, q] as const))('%s', async (_id, q) => {
    const { outcome, events } = await ask(q.turns);
    const text = outcome.content;
    const { missingNumbers, missingNames, statedNumbers } = scoreAnswer(q.expect, text);
    expect({ missingNumbers, missingNames, statedNumbers, text }).toEqual({
      missingNumbers: [],
      missingNames: [],
      statedNumbers: [],
      text,
    });
    // Every stated count comes from a tool call of the turn.
    if (!q.expect.noNumbers) expect(events.filter((e) => e.type === 'tool.result').length).toBeGreaterThan(0);
  });
});
