import 'reflect-metadata';
import type { CorpusTools, ToolExecution } from '@corpus-chat/corpus-queries';
import type { AgentTurnContext } from '@corpus-chat/server-core';
import { PlannerRunner } from './planner-runner';

/** Tools whose every call fails, as when the query layer refuses it. */
const failingTools = {
  execute: async (name: string, args: unknown): Promise<ToolExecution> => ({
    ok: false,
    name,
    args,
    error: `${name} failed: boom`,
    invalidArgs: false,
    summary: 'failed',
    modelContent: '{"error":"boom"}',
  }),
} as unknown as CorpusTools;

const ctx = (userMessage: string, attachment?: AgentTurnContext['attachment']): AgentTurnContext => ({
  chatId: 'chat-test',
  turnId: 'turn-1',
  ownerId: 'owner-test',
  history: [],
  userMessage,
  ...(attachment ? { attachment } : {}),
  signal: new AbortController().signal,
  emit: async () => undefined,
});

describe('PlannerRunner when a tool fails', () => {
  const runner = new PlannerRunner(failingTools);

  it('says which call failed and gives no number', async () => {
    const { content } = await runner.run(ctx('How many critical findings are there?'));
    expect(content).toBe('I could not get that number: search_findings failed: boom');
  });

  it('keeps the heading of an answer about the attached file', async () => {
    const file = { file: 'a.sarif', status: 'ready', reportId: 7, error: null, duplicate: false } as const;
    const { content } = await runner.run(ctx("What's in this file?", file));
    expect(content).toBe(
      'About the attached file **a.sarif** (report 7):\n\n' +
        'I could not get that number: count_findings_by failed: boom',
    );
  });
});
