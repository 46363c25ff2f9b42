/**
 * The context test: a two-tool turn over the 41 reports of the questions' corpus (every report
 * listed, then the corpus totals) against an Ollama-like server at Ollama's default window of 4,096
 * tokens, which truncates an oversized prompt as Ollama does (silently, oldest messages first).
 * Every request must fit that window as the worker's own tokenizer counts it, and the answer must
 * still be exact. Also: a question that cannot fit is answered so; a thread's prefix is
 * byte-identical from request to request.
 */
import 'reflect-metadata';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { createQuestionsCorpusDatabase, loadQuestions } from '@corpus-chat/ingest/testing';
import { type TestDatabase } from '@corpus-chat/persistence/testing';
import { ollamaAtDefault, TWO_TOOL_QUESTION, type OllamaAtDefault } from '../testing/totals-model';
import { expectNumbers, TestThread } from '../testing/turn-harness';
import { countMessagesTokens, countToolsTokens } from './token-counter';

const { questions } = loadQuestions();
const expected = (id: string) => questions.find((q) => q.id === id)!.expect.numbers![0];
const REPORTS = expected('q01'); // 41
const FINDINGS = expected('q02');
const WINDOW = 4096;

let db: TestDatabase;
let ollama: OllamaAtDefault | undefined;

beforeAll(async () => {
  db = await createQuestionsCorpusDatabase();
}, 240_000);
afterAll(async () => db?.drop());
afterEach(async () => {
  await ollama?.close();
  ollama = undefined;
});

const requestTokens = (body: { messages: unknown[]; tools?: unknown[] }) =>
  countMessagesTokens(body.messages as never) + countToolsTokens(body.tools ?? []);
const messagesOf = (i: number) =>
  ollama!.server.completionRequests[i].body.messages as ChatCompletionMessageParam[];

describe('a two-tool turn over 41 reports on a 4,096-token Ollama', () => {
  it('sends every request within the window, nothing is truncated, and the answer is exact', async () => {
    ollama = await ollamaAtDefault(db.dataSource);
    const turn = await new TestThread(ollama.runner).ask(TWO_TOOL_QUESTION);

    expect(REPORTS).toBe(41);
    expectNumbers(turn, [REPORTS, FINDINGS]);
    expect(turn.outcome.metadata.verification).toMatchObject({ unsupported: [] });
    const requests = ollama.server.completionRequests;
    expect(requests).toHaveLength(3);
    for (const r of requests) expect(requestTokens(r.body)).toBeLessThanOrEqual(WINDOW);
    expect(ollama.server.truncations.map((t) => t.dropped)).toEqual([0, 0, 0]);

    // The operator's card carries the full list; the model got its totals and the first rows.
    const cards = turn.events.filter((e) => e.type === 'tool.result');
    expect(cards.map((c) => c.type === 'tool.result' && c.summary)).toEqual([
      `list_all_reports: ${REPORTS} reports, ${FINDINGS} findings`,
      expect.stringContaining(`${REPORTS} reports, ${FINDINGS} findings`),
    ]);
    const sent = messagesOf(2).filter((m) => m.role === 'tool');
    const list = JSON.parse(String(sent[0].content)) as {
      total: number;
      reports: unknown[];
      reportsOmitted: number;
    };
    expect(list.total).toBe(REPORTS);
    expect(list.reports.length + list.reportsOmitted).toBe(REPORTS);
    expect(list.reportsOmitted).toBeGreaterThan(0);
  }, 60_000);

  it('with the window unknown, the default 6,000-token budget overflows it and Ollama drops the question', async () => {
    // The check has teeth: a request over the window is truncated as Ollama does, and the answer is lost.
    ollama = await ollamaAtDefault(db.dataSource);
    ollama.server.profile = undefined; // no context discovery: the budget is AGENT_CONTEXT_TOKENS
    const turn = await new TestThread(ollama.runner).ask(TWO_TOOL_QUESTION);
    const truncations = ollama.server.truncations;
    expect(Math.max(...truncations.map((t) => t.promptTokens))).toBeGreaterThan(WINDOW);
    expect(truncations.some((t) => t.dropped > 0)).toBe(true);
    expect(turn.outcome.content).not.toContain(String(FINDINGS));
  }, 60_000);

  it('when even shortened results cannot fit, the answer says so (in the operator’s language)', async () => {
    // Room for the prompt and the question, not for the two results even at their shortest.
    ollama = await ollamaAtDefault(db.dataSource, {}, 1700);
    ollama.server.trainedContextLength = 1700; // Ollama's default window, capped by the model's
    const en = await new TestThread(ollama.runner).ask(TWO_TOOL_QUESTION);
    expect(en.outcome.content).toMatch(/^I can't answer this: the data this question needs does not fit/);
    expect(en.outcome.content).toContain("Ollama's num_ctx (OLLAMA_CONTEXT_LENGTH)");
    for (const r of ollama.server.completionRequests) expect(requestTokens(r.body)).toBeLessThanOrEqual(1700);
    const ru = await new TestThread(ollama.runner, { language: 'ru' }).ask(TWO_TOOL_QUESTION);
    expect(ru.outcome.content).toMatch(/^Не могу ответить: данные, нужные для этого вопроса, не помещаются/);
  }, 60_000);
});

describe('prompt economy across the turns of a thread', () => {
  it('sends a byte-identical prefix: tools and system prompt in every request, the history replayed as sent', async () => {
    ollama = await ollamaAtDefault(db.dataSource);
    const thread = new TestThread(ollama.runner);
    await thread.ask(TWO_TOOL_QUESTION);
    const firstTurn = ollama.server.completionRequests.length;
    const second = await thread.ask(`Again, please. ${TWO_TOOL_QUESTION}`);
    expectNumbers(second, [REPORTS, FINDINGS]);

    const requests = ollama.server.completionRequests;
    const prefixOf = (i: number) => JSON.stringify([requests[i].body.tools, requests[i].body.messages[0]]);
    for (let i = 1; i < requests.length; i++) expect(prefixOf(i)).toBe(prefixOf(0));
    // The second turn starts with the first turn's question as it was sent, then its answer.
    const [system, question] = messagesOf(0);
    expect(JSON.stringify(messagesOf(firstTurn).slice(0, 3))).toBe(
      JSON.stringify([system, question, { role: 'assistant', content: thread.history[1].content }]),
    );
    // Making room for the 41-report list, the old turn went before any result was shortened.
    expect(messagesOf(firstTurn + 1).slice(0, 2)).toEqual([
      system,
      { role: 'user', content: `Again, please. ${TWO_TOOL_QUESTION}` },
    ]);
    // Within a turn each request repeats the one before it byte for byte, then adds to it.
    for (const i of [1, 2]) {
      const before = JSON.stringify(messagesOf(i - 1));
      expect(JSON.stringify(messagesOf(i)).startsWith(before.slice(0, -1))).toBe(true);
    }
  }, 60_000);
});
