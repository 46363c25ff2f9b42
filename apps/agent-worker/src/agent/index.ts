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
export { parseQuestion } from './planner/question-parser';
export type { PlannedQuestion, PreviousAnswer } from './planner/question-plan';
export { OpenAiModelRunner } from './model/openai-model-runner';
export { defaultClientFactory, type OpenAiClientFactory } from './model/model-client';
export { ModelRequestError } from './model/model-step';
export { modelFetch, modelDispatcher } from './model/model-http';
export { defaultTopicNormaliser } from './planner/topic-normaliser';
export { buildModelContext, type ModelContext } from './context/context-builder';
export { buildSystemPrompt } from './context/system-prompt';
