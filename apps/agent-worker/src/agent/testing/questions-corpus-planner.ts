import { CorpusTools, defaultCorpusQueries, defaultReadOnly } from '@corpus-chat/corpus-queries';
import { createQuestionsCorpusDatabase, type loadQuestions } from '@corpus-chat/ingest/testing';
import { type TestDatabase } from '@corpus-chat/persistence/testing';
import { PlannerRunner } from '../planner/planner-runner';

/**
 * A database of its own holding exactly the corpus files of shared/questions/`file`,
 * imported with the real importer (see `createQuestionsCorpusDatabase`), and a built-in planner on
 * it. Throws when any file is refused. Drop the database in `afterAll` (`db.drop()`).
 */
export async function plannerOnQuestionsCorpus(
  file: Parameters<typeof loadQuestions>[0] = 'questions.json',
): Promise<{ db: TestDatabase; planner: PlannerRunner }> {
  const db = await createQuestionsCorpusDatabase(file);
  const planner = new PlannerRunner(new CorpusTools(db.dataSource, defaultCorpusQueries, defaultReadOnly));
  return { db, planner };
}

/**
 * For a spec file: `plannerOnQuestionsCorpus()` before its tests, the database dropped after them.
 * Read `db` and `planner` inside tests and hooks.
 */
export function usePlannerOnQuestionsCorpus(): {
  readonly db: TestDatabase;
  readonly planner: PlannerRunner;
} {
  let made: { db: TestDatabase; planner: PlannerRunner } | undefined;
  beforeAll(async () => {
    made = await plannerOnQuestionsCorpus();
  }, 180_000);
  afterAll(async () => made?.db.drop(), 60_000);
  const ready = () => {
    if (!made) throw new Error('usePlannerOnQuestionsCorpus: read db and planner inside tests and hooks');
    return made;
  };
  return {
    get db() {
      return ready().db;
    },
    get planner() {
      return ready().planner;
    },
  };
}
