/**
 * The agent: what runs inside a chat turn. `AgentModule.forRoot()` provides `AGENT_RUNNER`
 * (`CorpusAgentRunner`: the built-in planner or an OpenAI-compatible model, chosen per turn from
 * the `settings` row) and needs a TypeORM `DataSource` from the app.
 *
 * Test helper: `ScriptedOpenAiServer` in `./testing/scripted-openai-server` (import it from tests
 * only).
 */
export * from './agent.module';
export * from './agent.config';
export * from './corpus-agent-runner';
export * from './model-settings.provider';
export * from './turn-recorder';
export * from './history';
export { PlannerRunner, BUILTIN_MODEL, splitForStreaming } from './planner/planner-runner';
export { parseQuestion, type PlannedQuestion, type PreviousAnswer } from './planner/question-parser';
export { OpenAiModelRunner, ModelRequestError, defaultClientFactory, type OpenAiClientFactory } from './model/openai-model-runner';
export { modelFetch, modelDispatcher } from './model/model-http';
export { CorpusTools, type ToolExecution, type ToolSuccess, type ToolFailure, type ToolResultMap } from './tools/corpus-tools';
export { CORPUS_QUERY_FNS, type CorpusQueryFns, type ReadOnlyRunner } from './tools/corpus-queries.port';
export { defaultCorpusQueries, defaultReadOnly, defaultTopicNormaliser } from './tools/corpus-queries.binding';
export { buildModelContext, type ModelContext } from './context/context-builder';
export { buildSystemPrompt } from './context/system-prompt';
