import { z } from 'zod';
import {
  envClass,
  envInt,
  modelUrlAllowlistEnv,
  ModelUrlAllowlist,
  validateEnv,
} from '@corpus-chat/server-core';

/** The agent's environment, validated at start-up; the model server itself is the `settings` row's. */
export const agentEnvSchema = z.looseObject({
  AGENT_MAX_STEPS: envInt(8, 1, 50).describe(
    'Model steps (requests) per turn before the turn stops with STEP_LIMIT.',
  ),
  AGENT_CONTEXT_TOKENS: envInt(6000, 1000, 2_000_000).describe(
    'Token budget of what the model sees: system prompt + tool schemas + history + new message + tool results.',
  ),
  AGENT_TOOL_RESERVE_TOKENS: envInt(1500, 0).describe(
    "Tokens of the budget kept free for the turn's own tool calls and results when choosing how much history fits (history gets `AGENT_CONTEXT_TOKENS - system - tools - message - this`).",
  ),
  MODEL_FIRST_TOKEN_TIMEOUT_MS: envInt(180_000, 100).describe(
    'Milliseconds a model request may take to its first streamed chunk (a local model loading can take minutes). A first-token timeout is not retried; kept under `TURN_TIMEOUT_MS` (5 min by default), an unresponsive server is reported as such ("no response within …") rather than as a turn that took too long.',
  ),
  MODEL_STREAM_IDLE_TIMEOUT_MS: envInt(120_000, 100).describe(
    'Milliseconds a model stream may stay silent between two chunks.',
  ),
  MODEL_RETRY_DELAY_MS: envInt(500, 0).describe(
    'Milliseconds between the first failed model request and its one retry.',
  ),
  AGENT_SETTINGS_CACHE_MS: envInt(0, 0).describe(
    'Milliseconds a worker may reuse the settings row. 0 (default): every turn reads it (one primary-key read), so a change in Settings applies to the very next turn; raise it only for very high turn rates, accepting that a change then takes up to this long to apply.',
  ),
  MODEL_MAX_CONCURRENT: envInt(0, 0, 1000).describe(
    'Requests all workers together may have open at one model server (0: no cap). A local server with a few parallel slots (Ollama `OLLAMA_NUM_PARALLEL`, llama.cpp `--parallel`) queues the rest where no one sees them; capped here, a turn waits in Redis for a slot instead. Give every worker the same value.',
  ),
  MODEL_URL_ALLOWLIST: modelUrlAllowlistEnv(
    'Model servers turns may be sent to (`ModelUrlAllowlist`; empty: any). Give the API the same value.',
  ),
});

export class AgentEnv extends envClass(agentEnvSchema) {}

/** The agent's configuration in the units the code uses. */
export type AgentConfig = ReturnType<typeof agentConfigFrom>;

function agentConfigFrom(env: AgentEnv) {
  return {
    maxSteps: env.AGENT_MAX_STEPS,
    contextTokens: env.AGENT_CONTEXT_TOKENS,
    toolReserveTokens: env.AGENT_TOOL_RESERVE_TOKENS,
    firstTokenTimeoutMs: env.MODEL_FIRST_TOKEN_TIMEOUT_MS,
    streamIdleTimeoutMs: env.MODEL_STREAM_IDLE_TIMEOUT_MS,
    retryDelayMs: env.MODEL_RETRY_DELAY_MS,
    settingsCacheMs: env.AGENT_SETTINGS_CACHE_MS,
    maxConcurrentPerServer: env.MODEL_MAX_CONCURRENT,
    modelUrlAllowlist: ModelUrlAllowlist.parse(env.MODEL_URL_ALLOWLIST),
  };
}

/** Reads and validates the agent's variables from `env` (default `process.env`); throws `ConfigError` naming bad ones. */
export function loadAgentConfig(env: Record<string, unknown> = process.env): AgentConfig {
  return agentConfigFrom(validateEnv(AgentEnv, env));
}

/** The defaults, for tests: `agentConfig({ maxSteps: 3 })`. */
export function agentConfig(overrides: Partial<AgentConfig> = {}): AgentConfig {
  return { ...agentConfigFrom(new AgentEnv()), ...overrides };
}

export const AGENT_CONFIG = Symbol('AGENT_CONFIG');
