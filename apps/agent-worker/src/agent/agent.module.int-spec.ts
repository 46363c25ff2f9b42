/**
 * `AgentModule` in a Nest container with the app's DataSource: `AGENT_RUNNER` runs the built-in
 * planner by default and switches to an OpenAI-compatible server (and back) as soon as the
 * settings row changes, with no restart.
 */
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { listReports } from '@corpus-chat/corpus-queries';
import { writeModelSettings } from '@corpus-chat/persistence';
import { createTestDatabase, type TestDatabase } from '@corpus-chat/persistence/testing';
import { importCorpusFiles } from '@corpus-chat/ingest/testing';
import { type AgentRunner, AgentTurnError, ModelUrlAllowlist } from '@corpus-chat/server-core';
import { agentConfig } from './agent.config';
import { startAgentRunner } from './testing/agent-runner';
import { ScriptedOpenAiServer, script } from './testing/scripted-openai-server';
import { TestThread, numbersIn } from './testing/turn-harness';

let db: TestDatabase;
let server: ScriptedOpenAiServer;
let runner: AgentRunner;

beforeAll(async () => {
  db = await createTestDatabase();
  await importCorpusFiles(db.dataSource, ['scans/sarif/dd__flawfinder.sarif', 'scans/zap/dd__juicy2.xml']);
  server = await ScriptedOpenAiServer.start();
  runner = await startAgentRunner(db.dataSource);
}, 60_000);
afterAll(async () => {
  await server?.close();
  await db?.drop();
});

it('answers with the planner by default, then with the configured model server, then the planner again: no restart', async () => {
  const thread = new TestThread(runner);
  const reports = (await listReports(db.dataSource.manager)).length;

  const a = await thread.ask('How many reports do we have?');
  expect(a.outcome.metadata.model).toBe('builtin');
  expect(numbersIn(a.outcome.content)).toContain(reports);
  expect(server.completionRequests).toHaveLength(0);

  await writeModelSettings(db.dataSource, {
    backend: 'openai',
    baseUrl: server.baseUrl,
    model: 'scripted-model',
    apiKey: 'sk-test',
  });
  server.enqueue(script.toolCall('list_all_reports', {}), script.text(`You have ${reports} reports.`));
  const b = await thread.ask('And now?');
  expect(b.outcome.metadata.model).toBe('scripted-model');
  expect(b.outcome.content).toBe(`You have ${reports} reports.`);
  expect(server.completionRequests).toHaveLength(2);
  expect(server.completionRequests[0].headers.authorization).toBe('Bearer sk-test');
  // The model saw the planner's previous answer as prose history.
  expect(server.completionRequests[0].body.messages.map((m: { role: string }) => m.role)).toEqual([
    'system',
    'user',
    'assistant',
    'user',
  ]);

  await writeModelSettings(db.dataSource, { backend: 'builtin' });
  const c = await thread.ask('How many reports do we have?');
  expect(c.outcome.metadata.model).toBe('builtin');
  expect(server.completionRequests).toHaveLength(2);
});

it('refuses a turn for a model server outside MODEL_URL_ALLOWLIST, naming the setting, and sends it nothing', async () => {
  const guarded = await startAgentRunner(
    db.dataSource,
    agentConfig({ settingsCacheMs: 0, modelUrlAllowlist: ModelUrlAllowlist.parse('https://models.example') }),
  );
  await writeModelSettings(db.dataSource, {
    backend: 'openai',
    baseUrl: server.baseUrl,
    model: 'scripted-model',
    apiKey: 'sk-test',
  });
  const before = server.completionRequests.length;
  try {
    const turn = guarded.run({
      chatId: randomUUID(),
      turnId: randomUUID(),
      ownerId: randomUUID(),
      history: [],
      userMessage: 'How many reports do we have?',
      signal: new AbortController().signal,
      emit: async () => undefined,
    });
    await expect(turn).rejects.toBeInstanceOf(AgentTurnError);
    await expect(turn).rejects.toMatchObject({
      code: 'MODEL_UNAVAILABLE',
      retryable: false,
      message: expect.stringContaining(
        `The model server ${server.baseUrl} is not allowed by MODEL_URL_ALLOWLIST`,
      ),
    });
    expect(server.completionRequests.length).toBe(before);
  } finally {
    await writeModelSettings(db.dataSource, { backend: 'builtin' });
  }
});
