/**
 * The built-in planner in Russian, on the questions.json corpus imported with the real importer:
 * each Russian wording of a questions.json question (see `testing/russian-questions.ts`) gets the
 * numbers and names its English question expects (read from questions.json, not typed here), runs
 * the same tool calls as the English question, and is answered in Russian. An English question
 * from an operator whose language is Russian gets a Russian answer too.
 */
import 'reflect-metadata';
import { loadQuestions, type SharedQuestion } from '@corpus-chat/ingest/testing';
import type { OperatorLanguage } from '@corpus-chat/contracts';
import { scoreAnswer } from '../../eval/answer-score';
import { usePlannerOnQuestionsCorpus } from '../testing/questions-corpus-planner';
import { RUSSIAN_QUESTIONS } from '../testing/russian-questions';
import { TestThread, askInThread, type CapturedTurn } from '../testing/turn-harness';

const { questions } = loadQuestions();
const setup = usePlannerOnQuestionsCorpus();

const ask = (turns: string[], language?: OperatorLanguage): Promise<CapturedTurn> =>
  askInThread(setup.planner, turns, { language });

/** Russian groups thousands with a no-break space ("1 768"): read as one number. */
const ungrouped = (text: string) => text.replace(/(\d)[\u00a0\u202f ](?=\d{3}(?!\d))/g, '$1');
const toolCalls = (t: CapturedTurn) =>
  t.events
    .filter((e) => e.type === 'tool.call')
    .map((e) => ({ name: (e as { name: string }).name, args: (e as { args: unknown }).args }));

function expectRussianAnswer(q: SharedQuestion, turn: CapturedTurn): void {
  const text = turn.outcome.content;
  const { missingNumbers, missingNames, statedNumbers } = scoreAnswer(q.expect, ungrouped(text));
  expect({ missingNumbers, missingNames, statedNumbers, text }).toEqual({
    missingNumbers: [],
    missingNames: [],
    statedNumbers: [],
    text,
  });
  if (q.expect.noNumbers) expect(text).not.toMatch(/\d/);
  // Russian prose, not the English templates.
  expect(text).toMatch(/\p{Script=Cyrillic}{4,}/u);
  expect(text).not.toMatch(/\b(findings?|There are|matches|report has|I can't|Exact)\b/);
}

describe('built-in planner: Russian questions get the numbers of their English counterparts, in Russian', () => {
  const cases = Object.entries(RUSSIAN_QUESTIONS).map(
    ([id, turns]) => [id, turns.join(' → '), turns] as const,
  );
  it('mirrors at least 25 questions of questions.json', () => {
    expect(cases.length).toBeGreaterThanOrEqual(25);
    for (const [id] of cases) expect(questions.map((q) => q.id)).toContain(id);
  });

  it.each(cases)('%s: %s', async (id, _label, turns) => {
    const q = questions.find((x) => x.id === id)!;
    const [russian, english] = await Promise.all([ask(turns, 'ru'), ask(q.turns)]);
    expectRussianAnswer(q, russian);
    expect(toolCalls(russian)).toEqual(toolCalls(english));
    expect(russian.outcome.metadata.lastFilter).toEqual(english.outcome.metadata.lastFilter);
  });
});

describe('built-in planner: the answer language is the turn’s, not the question’s', () => {
  it('answers an English question in Russian for a Russian operator, and a Russian one in English for an English operator', async () => {
    const q03 = questions.find((x) => x.id === 'q03')!;
    const inRussian = await ask(q03.turns, 'ru');
    expectRussianAnswer(q03, inRussian);
    expect(inRussian.outcome.content).toMatch(/критическ/);

    const inEnglish = await ask(RUSSIAN_QUESTIONS['q03'], 'en');
    expect(scoreAnswer(q03.expect, inEnglish.outcome.content).exact).toBe(true);
    expect(inEnglish.outcome.content).toMatch(/findings match severity critical/);
    expect(inEnglish.outcome.content).not.toMatch(/\p{Script=Cyrillic}/u);
  });

  it('writes a turn without a language (a job from an older API) in English', async () => {
    const turn = await ask(['Сколько критических находок?']);
    expect(turn.outcome.content).toMatch(/^\*\*\d+\*\* findings match severity critical/);
  });

  it('agrees nouns with their numbers and groups thousands the Russian way', async () => {
    const q02 = questions.find((x) => x.id === 'q02')!;
    const total = q02.expect.numbers![0];
    const turn = await ask(['Сколько всего находок?'], 'ru');
    const grouped = new Intl.NumberFormat('ru').format(total);
    const form = { one: 'находка', few: 'находки', many: 'находок', other: 'находки' }[
      new Intl.PluralRules('ru').select(total) as 'one' | 'few' | 'many' | 'other'
    ];
    expect(turn.outcome.content).toContain(`Всего **${grouped}** ${form}.`);
  });

  it('opens a finding listed in a Russian answer with "покажи первую"', async () => {
    const thread = new TestThread(setup.planner, { language: 'ru' });
    const first = await thread.ask('Сколько критических находок связано с SQL-инъекциями?');
    const ids = first.outcome.metadata.lastFindingIds!;
    expect(ids.length).toBeGreaterThan(0);
    const shown = await thread.ask('покажи первую');
    expect(shown.events.find((e) => e.type === 'tool.call')).toMatchObject({
      name: 'finding_detail',
      args: { id: ids[0] },
    });
    expect(shown.outcome.content).toContain(`**Находка #${ids[0]}:`);
    expect(shown.outcome.content).toContain('- Серьёзность: критическая');
  });
});
