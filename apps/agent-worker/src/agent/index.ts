/**
 * The agent: what runs inside a chat turn. `AgentModule.forRoot()` provides `AGENT_RUNNER`
 * (`CorpusAgentRunner`: the built-in planner or an OpenAI-compatible model, chosen per turn from
 * the `settings` row) and needs a TypeORM `DataSource` from the app.
 *
 * Test helper: `ScriptedOpenAiServer` in `./testing/scripted-openai-server` (import it from tests
 * only).
 */
export { AgentModule } from './agent.module';
export { loadAgentConfig } from './agent.config';
export { PlannerRunner } from './planner/planner-runner';
export { defaultTopicNormaliser } from './planner/topic-normaliser';
