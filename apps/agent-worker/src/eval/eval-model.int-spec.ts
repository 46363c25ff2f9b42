/**
 * The model evaluation end to end: every question of shared/questions/questions.json, through the
 * real `OpenAiModelRunner`, the real `openai` client and real HTTP, against the planner brain (a
 * scripted model that decides like a competent one) speaking as several servers, on a database
 * holding exactly the questions' corpus imported with the real importer. Also how the evaluation
 * scores a wrong answer and a failed turn.
 */
import 'reflect-metadata';
import { searchFindings } from '@corpus-chat/corpus-queries';
import { createQuestionsCorpusDatabase, loadQuestions } from '@corpus-chat/ingest/testing';
import { type TestDatabase } from '@corpus-chat/persistence/testing';
import {
  startBrainServer,
  type BrainServer,
  type ServerProfileName,
  type ServerQuirks,
} from '../agent/testing/planner-brain';
import { ScriptedOpenAiServer, script } from '../agent/testing/scripted-openai-server';
import { evaluateModel, type EvalReport } from './eval-model';

const { questions } = loadQuestions();
let db: TestDatabase;

beforeAll(async () => {
  // Throws when an import is refused.
  db = await createQuestionsCorpusDatabase();
}, 240_000);
afterAll(async () => db?.drop());

const PROFILES: [string, ServerProfileName, ServerQuirks][] = [
  ['Ollama', 'ollama', {}],
  [
    'vLLM with Hermes tool calls in the text and <think> in the content',
    'vllm',
    { toolCallsAsText: 'hermes', thinkInContent: 'tags' },
  ],
  ['llama.cpp with parallel tool calls all at index 0', 'llamacpp', { parallelIndexZero: true }],
];

describe.each(PROFILES)('questions.json through the model path: %s', (_label, profile, quirks) => {
  let server: BrainServer;
  let report: EvalReport;

  beforeAll(async () => {
    server = await startBrainServer(db.dataSource, profile, quirks);
    report = await evaluateModel({
      dataSource: db.dataSource,
      server: { baseUrl: server.baseUrl, model: 'brain' },
      questions,
      config: { retryDelayMs: 10 },
    });
  }, 600_000);
  afterAll(async () => server?.close());

  it('answers every question exactly, with no unverified number', () => {
    const wrong = report.results
      .filter((r) => !r.exact)
      .map(({ id, missingNumbers, missingNames, statedNumbers, error, answer }) => ({
        id,
        missingNumbers,
        missingNames,
        statedNumbers,
        error,
        answer,
      }));
    expect(wrong).toEqual([]);
    expect(report).toMatchObject({
      exactCount: questions.length,
      exactRate: 1,
      unverifiedCount: 0,
      unverifiedRate: 0,
    });
  });

  it('shows no reasoning or tool-call markup in any answer', () => {
    const marked = report.results
      .filter((r) => /<\/?think>|<\/?tool_call>/.test(r.answer))
      .map(({ id, answer }) => ({ id, answer }));
    expect(marked).toEqual([]);
  });

  it('sends a follow-up with the earlier question and its answer in the history, and counts through tools', () => {
    const q35 = questions.find((q) => q.id === 'q35')!;
    const followUp = server.scripted.completionRequests.find(
      (r) => r.body.messages.at(-1)?.content === q35.turns[1],
    );
    const roles = followUp!.body.messages.map((m: { role: string }) => m.role);
    expect(roles).toEqual(['system', 'user', 'assistant', 'user']);
    expect(followUp!.body.messages[1].content).toBe(q35.turns[0]);
    expect(followUp!.body.messages[2].content).toContain('184'); // the first answer's count, as stored
    // Its answer came from a tool result: the next request carries it.
    const next =
      server.scripted.completionRequests[server.scripted.completionRequests.indexOf(followUp!) + 1];
    expect(next.body.messages.filter((m: { role: string }) => m.role === 'tool')).not.toEqual([]);
  });
});

describe.each([PROFILES[0], PROFILES[2]])('several tool calls in one step: %s', (_label, profile, quirks) => {
  it('answers a count the planner combines from three calls, all asked at once', async () => {
    const server = await startBrainServer(db.dataSource, profile, quirks);
    try {
      // The query layer's totals, independent of the agent.
      const total = async (f: Parameters<typeof searchFindings>[1]) =>
        (await searchFindings(db.dataSource.manager, { ...f, limit: 1 })).total;
      const expected = (await total({})) - (await total({ reportName: 'scb__juice-shop-v12.10.2.json' }));
      const report = await evaluateModel({
        dataSource: db.dataSource,
        server: { baseUrl: server.baseUrl, model: 'brain' },
        questions: [
          {
            id: 'p1',
            turns: ['How many findings are not in the juice shop report?'],
            expect: { numbers: [expected] },
          },
        ],
        config: { retryDelayMs: 10 },
      });
      expect(server.intents[0].toolCalls?.map((c) => c.name)).toEqual([
        'list_all_reports',
        'count_findings_by',
        'count_findings_by',
      ]);
      expect(report.results[0]).toMatchObject({ exact: true, missingNumbers: [] });
    } finally {
      await server.close();
    }
  }, 60_000);
});

describe('scoring', () => {
  let server: ScriptedOpenAiServer;
  beforeEach(async () => {
    server = await ScriptedOpenAiServer.start();
  });
  afterEach(async () => server?.close());
  const ask = (ids: string[]) =>
    evaluateModel({
      dataSource: db.dataSource,
      server: { baseUrl: server.baseUrl, model: 'scripted-model' },
      questions: questions.filter((q) => ids.includes(q.id)),
      config: { retryDelayMs: 10 },
    });

  it('fails a wrong number, a missing name and a number where none may be, and reports what is missing', async () => {
    // No tool call backs these numbers: the worker asks once more, and the model repeats itself.
    const twice = (text: string) => [script.text(text), script.text(text)];
    server.enqueue(
      ...twice('There are 40 reports.'),
      ...twice('sdk__fortify-fpr-large.sarif has 1,768 findings.'),
      ...twice('It is 21 degrees in Paris.'),
    );
    const report = await ask(['q01', 'q27', 'q38']);
    expect(report.results.map((r) => r.unsupported)).toEqual([['40'], ['1,768'], ['21']]);
    expect(report).toMatchObject({ unverifiedCount: 3, unverifiedRate: 1 });
    expect(
      report.results.map(({ id, exact, missingNumbers, missingNames, statedNumbers }) => ({
        id,
        exact,
        missingNumbers,
        missingNames,
        statedNumbers,
      })),
    ).toEqual([
      { id: 'q01', exact: false, missingNumbers: [41], missingNames: [], statedNumbers: [] },
      {
        id: 'q27',
        exact: false,
        missingNumbers: [],
        missingNames: ['dd__semgrepowasp-benchmark-sample.sarif'],
        statedNumbers: [],
      },
      { id: 'q38', exact: false, missingNumbers: [], missingNames: [], statedNumbers: [21] },
    ]);
    expect(report).toMatchObject({ exactCount: 0, exactRate: 0 });
  });

  it('passes numbers written with thousands separators and names in another case', async () => {
    const answer = 'The largest is DD__SEMGREPOWASP-BENCHMARK-SAMPLE.SARIF with 1,768 findings.';
    server.enqueue(script.text(answer), script.text(answer));
    const report = await ask(['q27']);
    expect(report.results[0]).toMatchObject({ id: 'q27', exact: true });
    expect(report.exactRate).toBe(1);
    // Exact, yet no tool call backs it: counted as unverified.
    expect(report).toMatchObject({ unverifiedCount: 1 });
  });

  it("records a failed turn as not exact with the server's words and goes on with the next question", async () => {
    server.enqueue(
      script.status(400, 'model "nosuch" not found'),
      script.text('We have 41 reports.'),
      script.text('We have 41 reports.'),
    );
    const report = await ask(['q01', 'q02']);
    expect(report.results[0]).toMatchObject({ id: 'q01', exact: false, answer: '' });
    expect(report.results[0].error).toContain('model "nosuch" not found');
    expect(report.results[1]).toMatchObject({ id: 'q02', exact: false, missingNumbers: [3538] });
  });
});
