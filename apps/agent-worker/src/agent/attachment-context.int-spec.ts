/**
 * A turn about the thread's attached file: the model back end is told which report the file became
 * (so "it" becomes a `reportId` filter) or why there is none; the built-in planner counts within
 * that report. Real tools over a real database; the model is the scripted OpenAI-compatible server.
 */
import 'reflect-metadata';
import type { TurnAttachment } from '@corpus-chat/contracts';
import { writeModelSettings } from '@corpus-chat/persistence';
import { createTestDatabase, type TestDatabase } from '@corpus-chat/persistence/testing';
import { importCorpusFiles } from '@corpus-chat/ingest/testing';
import type { AgentRunner } from '@corpus-chat/server-core';
import { startAgentRunner } from './testing/agent-runner';
import { ScriptedOpenAiServer, script } from './testing/scripted-openai-server';
import { turnContext } from './testing/turn-harness';

let db: TestDatabase;
let server: ScriptedOpenAiServer;
let runner: AgentRunner;
let attached: TurnAttachment;
/** Critical findings of the attached report, counted in SQL (not through the tools under test). */
let criticals: number;

beforeAll(async () => {
  db = await createTestDatabase();
  const outcomes = await importCorpusFiles(db.dataSource, [
    'scans/trivy/scb__juice-shop-v12.10.2.json',
    'scans/nuclei/dd__issue_14071.jsonl',
  ]);
  const trivy = outcomes[0];
  if (!trivy.ok) throw new Error(trivy.error);
  attached = { file: trivy.file, status: 'ready', reportId: trivy.reportId, error: null, duplicate: false };
  [{ n: criticals }] = await db.dataSource.query(
    `SELECT count(*)::int AS n FROM findings f JOIN finding_versions v ON v.id = f.current_version_id WHERE f.report_id = $1 AND v.severity = 'critical'`,
    [trivy.reportId],
  );
  server = await ScriptedOpenAiServer.start();
  runner = await startAgentRunner(db.dataSource);
}, 60_000);
afterAll(async () => {
  await server?.close();
  await db?.drop();
});

describe('with a model server', () => {
  beforeAll(() =>
    writeModelSettings(db.dataSource, {
      backend: 'openai',
      baseUrl: server.baseUrl,
      model: 'scripted-model',
      apiKey: 'sk-test',
    }),
  );
  afterAll(() => writeModelSettings(db.dataSource, { backend: 'builtin' }));

  it('names the attached report in the system prompt, and the filter the model passes counts within it', async () => {
    const before = server.completionRequests.length;
    server.enqueue(
      script.toolCall('search_findings', { severity: 'critical', reportId: attached.reportId, limit: 0 }),
      script.text(`It has ${criticals} critical findings.`),
    );
    const { ctx, events } = turnContext('how many criticals in it?');
    const outcome = await runner.run({ ...ctx, attachment: attached });
    const system = server.completionRequests[before].body.messages[0];
    expect(system.role).toBe('system');
    expect(system.content).toContain(
      `The operator attached report #${attached.reportId} ("${attached.file}")`,
    );
    expect(system.content).toContain(`pass reportId ${attached.reportId}`);
    const result = events.find((e) => e.type === 'tool.result');
    expect(result).toMatchObject({ ok: true, summary: expect.stringContaining(String(criticals)) });
    expect(outcome.content).toBe(`It has ${criticals} critical findings.`);
  });

  it('tells the model why a failed attachment has no report', async () => {
    const before = server.completionRequests.length;
    server.enqueue(script.text('It was not imported.'));
    const failed: TurnAttachment = {
      file: 'junit.xml',
      status: 'failed',
      reportId: null,
      error: 'unrecognised format: XML with root element <testsuites>',
      duplicate: false,
    };
    const { ctx } = turnContext('what is in this file?');
    await runner.run({ ...ctx, attachment: failed });
    const system = server.completionRequests[before].body.messages[0].content as string;
    expect(system).toContain('"junit.xml"');
    expect(system).toContain(
      'not imported (failed: "unrecognised format: XML with root element <testsuites>")',
    );
    expect(system).not.toContain('pass reportId');
  });
});

describe('with the built-in planner', () => {
  it('counts "in it" within the attached report, not the corpus', async () => {
    const { ctx, events } = turnContext('How many critical findings are in it?');
    const outcome = await runner.run({ ...ctx, attachment: attached });
    expect(outcome.content).toContain(`**${criticals}**`);
    expect(events.filter((e) => e.type === 'tool.call').map((e) => (e as { args: unknown }).args)).toEqual([
      expect.objectContaining({ severity: 'critical', reportId: attached.reportId }),
    ]);
    expect(outcome.metadata.lastFilter).toMatchObject({ severity: 'critical', reportId: attached.reportId });
  });

  it('answers a question that does not point at the file from the whole corpus', async () => {
    const { ctx, events } = turnContext('How many critical findings are there?');
    await runner.run({ ...ctx, attachment: attached });
    const args = events
      .filter((e) => e.type === 'tool.call')
      .map((e) => (e as { args: Record<string, unknown> }).args);
    expect(args).toEqual([expect.objectContaining({ severity: 'critical' })]);
    expect(args[0]).not.toHaveProperty('reportId');
  });
});
