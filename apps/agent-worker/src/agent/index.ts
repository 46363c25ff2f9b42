/**
 * The agent: what runs inside a chat turn. `AgentModule.forRoot()` provides `AGENT_RUNNER` (the
 * built-in planner or an OpenAI-compatible model, chosen per turn from `settings`).
 */
export { AgentModule } from './agent.module';
export { loadAgentConfig } from './agent.config';
export { PlannerRunner } from './planner/planner-runner';
