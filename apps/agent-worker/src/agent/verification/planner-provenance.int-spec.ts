/**
 * The built-in planner keeps the product's promise: every number of every answer it gives is
 * supported by its turn's tool results, the operator's message or exact arithmetic over them, as
 * the provenance check it stores reads it. Runs every question (every turn) of
 * shared/questions/questions.json, then wordings that make the planner compute a count from several
 * calls, list, rank, open a finding or refuse, on the questions.json corpus imported with the real
 * importer.
 */
import { defaultCorpusQueries, defaultReadOnly, CorpusTools } from '@corpus-chat/corpus-queries';
import 'reflect-metadata';
import { loadQuestions } from '@corpus-chat/ingest/testing';
import { usePlannerOnQuestionsCorpus } from '../testing/questions-corpus-planner';
import { TestThread, type CapturedTurn } from '../testing/turn-harness';
import { maskNonClaims } from './answer-claims';
import { verifyNumbers, type ProvenanceEvidence } from './number-provenance';

const { questions } = loadQuestions();
const setup = usePlannerOnQuestionsCorpus();

/** Asks `turns` in one thread and expects each answer's stored check to find every number supported. */
async function expectEveryNumberSupported(turns: readonly string[]): Promise<CapturedTurn> {
  const thread = new TestThread(setup.planner);
  let last: CapturedTurn | undefined;
  for (const message of turns) {
    last = await thread.ask(message);
    const { outcome } = last;
    const verification = outcome.metadata.verification;
    // A check that read no number of an answer with digit claims would pass anything ("since 2023" is none).
    if (/\d/.test(maskNonClaims(outcome.content))) expect(verification?.checked).toBeGreaterThan(0);
    // On failure the answer is printed with the numbers it could not back.
    expect({ message, answer: outcome.content, unsupported: verification?.unsupported }).toEqual({
      message,
      answer: outcome.content,
      unsupported: [],
    });
  }
  return last!;
}

/** The evidence of a turn again: its stored tool calls run once more on the same database. */
async function evidenceOf({ outcome }: CapturedTurn): Promise<ProvenanceEvidence[]> {
  const tools = new CorpusTools(setup.db.dataSource, defaultCorpusQueries, defaultReadOnly);
  const out: ProvenanceEvidence[] = [];
  for (const call of outcome.metadata.toolCalls) {
    const exec = await tools.execute(call.name, call.args, new AbortController().signal);
    out.push({ name: call.name, args: call.args, content: exec.modelContent });
  }
  return out;
}

describe('planner answers to shared/questions: every number is supported', () => {
  it.each(questions.map((q) => [q.id, q.turns] as const))('%s', async (_id, turns) => {
    await expectEveryNumberSupported(turns);
  });
});

describe('the same check on the same evidence catches a count off by one', () => {
  // Single counts of findings (one search_findings call): the headline total, made one more, must
  // be flagged. Grouped results are left out: among many small group counts, total + 1 can be an
  // honest sum of two of them.
  const single = questions.filter(
    (q) =>
      q.turns.length === 1 &&
      (q.expect.numbers?.length ?? 0) === 1 &&
      !q.expect.names &&
      /findings/i.test(q.turns[0]),
  );
  it.each(single.map((q) => [q.id, q.turns[0]] as const))('%s', async (_id, message) => {
    const turn = await expectEveryNumberSupported([message]);
    const bold = /\*\*(\d+)\*\*/.exec(turn.outcome.content);
    expect(bold).not.toBeNull();
    expect(turn.outcome.metadata.toolCalls.map((c) => c.name)).toEqual(['search_findings']);
    const evidence = await evidenceOf(turn);
    const wrong = String(Number(bold![1]) + 1);
    const answer = turn.outcome.content.replace(bold![0], `**${wrong}**`);
    expect(
      verifyNumbers({ answer: turn.outcome.content, userMessage: message, evidence }).unsupported,
    ).toEqual([]);
    expect(verifyNumbers({ answer, userMessage: message, evidence }).unsupported).toEqual([wrong]);
  });
});

/** Answers the planner computes or formats differently from a single count. */
const MORE: string[][] = [
  ['How many high or critical findings are there?'],
  ["How many findings aren't low or info?"],
  ['how many findings are not info?'],
  ['How many findings are not in the juice shop report?'],
  ['how many SQL injection findings are not critical?'],
  ['How many findings have no CWE?', 'and how many of those are high?'],
  ['how many findings have a CWE?'],
  ['How many reports have high or critical findings?'],
  ['How many reports have medium findings?'],
  ['How many reports have findings that are not info?'],
  ['breakdown of findings by report'],
  ['What are the top 3 reports by critical or high findings?'],
  ['top 5 CWEs'],
  ['breakdown of findings by CWE'],
  ['breakdown of findings by verdict'],
  ['breakdown by severity of the findings that are not in the juice shop report'],
  ['list the reports'],
  ['give me an overview'],
  ['How many critical findings relate to SQL injection?', 'show the first one', 'and the second one?'],
  ['How many critical findings are in the juice shop report?', 'and in the fortify report?'],
  ['How many findings have CWE-79?', 'what about CWE-89?'],
  ['How many findings have a CVSS score above 9?'],
  ['How many critical findings since 2023?'],
  ['show finding 999999999'],
  [`how many findings ${'mention cookies '.repeat(200)}`],
];

describe('planner answers to computed, listed and refused questions: every number is supported', () => {
  it.each(MORE.map((turns) => [turns.join(' → ').slice(0, 100), turns] as const))(
    '%s',
    async (_label, turns) => {
      await expectEveryNumberSupported(turns);
    },
  );
});
