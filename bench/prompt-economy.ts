/**
 * `node tools/cli/run-ts.mjs bench/prompt-economy.ts`: docs/benchmarks.md "Prompt economy".
 * Needs Postgres at TEST_PG_URL (a database of its own, dropped at the end).
 */
import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { CorpusTools, defaultCorpusQueries, defaultReadOnly } from '@corpus-chat/corpus-queries';
import { createQuestionsCorpusDatabase, loadQuestions } from '@corpus-chat/ingest/testing';
import { buildSystemPrompt } from '../apps/agent-worker/src/agent/context/system-prompt';
import {
  countMessagesTokens,
  countToolsTokens,
  countTokens,
} from '../apps/agent-worker/src/agent/context/token-counter';
import { ollamaAtDefault, TWO_TOOL_QUESTION } from '../apps/agent-worker/src/agent/testing/totals-model';
import type { HistoryMessage } from '@corpus-chat/server-core';

async function main(): Promise<void> {
  Logger.overrideLogger(['error']);
  const tools = new CorpusTools(null as never, null as never, null as never).definitions();
  const system = countMessagesTokens([{ role: 'system', content: buildSystemPrompt() }]);
  const declared = countToolsTokens(tools);
  console.log(
    `system prompt ${system} + tool declarations ${declared} = ${system + declared} tokens (goal ≤ 1,200)`,
  );
  for (const t of tools) console.log(`  ${t.function.name}: ${countTokens(JSON.stringify(t))}`);

  const db = await createQuestionsCorpusDatabase();
  const ollama = await ollamaAtDefault(db.dataSource);
  try {
    const history: HistoryMessage[] = [];
    const ask = async (question: string) => {
      const outcome = await ollama.runner.run({
        chatId: 'probe',
        turnId: `probe-${history.length}`,
        ownerId: 'probe',
        history: [...history],
        userMessage: question,
        signal: new AbortController().signal,
        emit: async () => undefined,
      });
      history.push(
        { role: 'user', content: question, status: 'complete', metadata: {} },
        { role: 'assistant', content: outcome.content, status: 'complete', metadata: outcome.metadata },
      );
      return outcome;
    };
    const expected = loadQuestions()
      .questions.filter((q) => q.id === 'q01' || q.id === 'q02')
      .map((q) => q.expect.numbers![0]);
    for (const [n, question] of [TWO_TOOL_QUESTION, `Again, please. ${TWO_TOOL_QUESTION}`].entries()) {
      const from = ollama.server.completionRequests.length;
      const { content } = await ask(question);
      const sent = ollama.server.truncations.slice(from);
      const exact = expected.every((x) => content.includes(String(x)));
      console.log(
        `turn ${n + 1}: requests ${sent.map((t) => t.promptTokens).join(', ')} tokens (window 4,096), ` +
          `messages dropped by the server ${sent.reduce((k, t) => k + t.dropped, 0)}, answer ${exact ? 'exact' : 'WRONG'}: ${content}`,
      );
    }
    const corpus = new CorpusTools(db.dataSource, defaultCorpusQueries, defaultReadOnly);
    for (const name of ['list_all_reports', 'get_corpus_overview']) {
      const full = (await corpus.execute(name, {})).modelContent;
      console.log(`  ${name} result in full: ${countTokens(full)} tokens`);
    }
    const requests = ollama.server.completionRequests;
    const prefix = (i: number) => JSON.stringify([requests[i].body.tools, requests[i].body.messages[0]]);
    const identical = requests.every((_, i) => prefix(i) === prefix(0));
    console.log(
      `prefix (tools + system prompt) byte-identical across the thread's ${requests.length} requests: ${identical}`,
    );
  } finally {
    await ollama.close();
    await db.drop();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
