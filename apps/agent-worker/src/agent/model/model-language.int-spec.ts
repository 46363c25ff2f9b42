/**
 * The model is told the operator's language: the system prompt a scripted OpenAI-compatible server
 * receives says to answer in Russian for a Russian turn and in English for an English one (and for
 * a turn without a language, as a job from an older API has none).
 */
import 'reflect-metadata';
import { CorpusTools, defaultCorpusQueries, defaultReadOnly } from '@corpus-chat/corpus-queries';
import { type ModelSettings } from '@corpus-chat/persistence';
import { createTestDatabase, type TestDatabase } from '@corpus-chat/persistence/testing';
import type { OperatorLanguage } from '@corpus-chat/contracts';
import { agentConfig } from '../agent.config';
import { ScriptedOpenAiServer, script } from '../testing/scripted-openai-server';
import { turnContext } from '../testing/turn-harness';
import { OpenAiModelRunner } from './openai-model-runner';

let db: TestDatabase;
let server: ScriptedOpenAiServer;

beforeAll(async () => {
  db = await createTestDatabase();
  server = await ScriptedOpenAiServer.start();
}, 60_000);
afterAll(async () => {
  await server?.close();
  await db?.drop();
});

/** Runs one turn in `language` and returns the system message the model server received. */
async function systemPromptFor(language: OperatorLanguage | undefined, question: string): Promise<string> {
  const runner = new OpenAiModelRunner(
    new CorpusTools(db.dataSource, defaultCorpusQueries, defaultReadOnly),
    agentConfig({ retryDelayMs: 10 }),
  );
  const settings: ModelSettings = {
    backend: 'openai',
    baseUrl: server.baseUrl,
    model: 'scripted-model',
    apiKey: null,
    updatedAt: null,
  };
  const before = server.completionRequests.length;
  server.enqueue(script.text(language === 'ru' ? 'Готово.' : 'Done.'));
  const { ctx } = turnContext(question);
  const outcome = await runner.run(language ? { ...ctx, language } : ctx, settings);
  expect(outcome.content).toBe(language === 'ru' ? 'Готово.' : 'Done.');
  expect(server.completionRequests).toHaveLength(before + 1);
  const messages = server.completionRequests[before].body.messages as { role: string; content: string }[];
  expect(messages[0].role).toBe('system');
  return messages[0].content;
}

it('tells the model to answer in Russian for a Russian operator, even for an English question', async () => {
  const prompt = await systemPromptFor('ru', 'How many critical findings are there?');
  expect(prompt).toContain('Answer in Russian');
  expect(prompt).not.toContain('Answer in English');
});

it('tells the model to answer in English for an English operator, even for a Russian question', async () => {
  const prompt = await systemPromptFor('en', 'Сколько критических находок?');
  expect(prompt).toContain('Answer in English');
  expect(prompt).not.toContain('Russian');
});

it('answers in English when the turn names no language', async () => {
  expect(await systemPromptFor(undefined, 'How many reports?')).toBe(
    await systemPromptFor('en', 'How many reports?'),
  );
});
