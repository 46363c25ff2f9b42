import type { DataSource } from 'typeorm';
import { CorpusTools, defaultCorpusQueries, defaultReadOnly } from '@corpus-chat/corpus-queries';
import type { AgentRunner } from '@corpus-chat/server-core';
import { agentConfig, type AgentConfig } from '../agent.config';
import { OpenAiModelRunner } from '../model/openai-model-runner';
import type { ModelIntent } from './server-profiles';
import { encodeIntent } from './server-profiles';
import { ScriptedOpenAiServer } from './scripted-openai-server';

/** The two-tool question of the context test: every report listed, then the corpus totals. */
export const TWO_TOOL_QUESTION =
  'List every report, then give me the corpus totals: how many reports and findings?';

interface SentMessage {
  role: string;
  content?: unknown;
}

/**
 * A scripted model for the two-tool turn that reads only what it was sent (after the server's own
 * truncation): with no question about reports left, it says so; else it calls `list_all_reports`,
 * then `get_corpus_overview`, then answers with the `total` of the list and the overview's
 * `findings.total`. A request that lost the question or a result answers wrongly.
 */
export function decideTotals(messages: SentMessage[]): ModelIntent {
  const lastUser = messages.map((m) => m.role).lastIndexOf('user');
  if (lastUser < 0 || !/\breports?\b/i.test(String(messages[lastUser].content)))
    return { text: 'I was not sent a question about the reports.' };
  const results = messages
    .slice(lastUser + 1)
    .filter((m) => m.role === 'tool')
    .map((m) => JSON.parse(String(m.content)) as Record<string, unknown>);
  const list = results.find((r) => Array.isArray(r['reports']));
  const overview = results.find((r) => typeof (r['findings'] as { total?: unknown })?.total === 'number');
  if (!list) return { toolCalls: [{ name: 'list_all_reports', arguments: {} }] };
  if (!overview) return { toolCalls: [{ name: 'get_corpus_overview', arguments: {} }] };
  const findings = (overview['findings'] as { total: number }).total;
  return { text: `There are ${String(list['total'])} reports with ${findings} findings in total.` };
}

/** An Ollama-like server at its default window, with `decideTotals` behind it, and a runner that uses it. */
export interface OllamaAtDefault {
  server: ScriptedOpenAiServer;
  /** The model runner as the worker runs it (for `TestThread`). */
  runner: AgentRunner;
  close(): Promise<void>;
}

/**
 * Starts an Ollama-like server whose model runs with Ollama's default window (`numCtx`, 4,096): its
 * `/api/show` names no `num_ctx` and a trained window of 131,072, no model is loaded, and requests
 * over the window are truncated as Ollama does. `cfg` overrides the agent's configuration.
 */
export async function ollamaAtDefault(
  dataSource: DataSource,
  cfg: Partial<AgentConfig> = {},
  numCtx = 4096,
): Promise<OllamaAtDefault> {
  const server = await ScriptedOpenAiServer.start();
  server.profile = 'ollama';
  server.models = ['qwen3:8b'];
  server.ollamaDefaultContext = true;
  server.trainedContextLength = 131_072;
  server.truncateAt = numCtx;
  server.responder = (req) => encodeIntent('ollama', decideTotals(req.body.messages));
  const tools = new CorpusTools(dataSource, defaultCorpusQueries, defaultReadOnly);
  const model = new OpenAiModelRunner(tools, agentConfig({ retryDelayMs: 10, ...cfg }));
  const settings = {
    backend: 'openai' as const,
    baseUrl: server.baseUrl,
    model: 'qwen3:8b',
    apiKey: null,
    updatedAt: null,
  };
  return { server, runner: { run: (ctx) => model.run(ctx, settings) }, close: () => server.close() };
}
