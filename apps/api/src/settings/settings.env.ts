import { z } from 'zod';
import { envClass, envInt, modelUrlAllowlistEnv, validateEnv } from '@corpus-chat/server-core';

/**
 * What the settings feature reads from the environment (validated when the module starts; a bad
 * value stops the API naming the variable).
 */
export const settingsEnvSchema = z.looseObject({
  AGENT_CONTEXT_TOKENS: envInt(6000, 1000, 2_000_000).describe(
    "The agent-worker's token budget per turn; \"Test connection\" shows the effective budget, `min(the server's context, this)`. Give the API the worker's value (same bounds, default 6000).",
  ),
  MODEL_URL_ALLOWLIST: modelUrlAllowlistEnv(
    'Model servers Settings may save and test (`ModelUrlAllowlist`: origins, hosts, `*.domain`; empty: any). Give the agent-worker the same value; it refuses turns for other servers.',
  ),
});

export class SettingsEnv extends envClass(settingsEnvSchema) {}

/** Injection token of the validated `SettingsEnv`. */
export const SETTINGS_ENV = Symbol('SETTINGS_ENV');

/** Reads and validates `SettingsEnv` from `raw` (default `process.env`); throws `ConfigError` naming each bad variable. */
export const loadSettingsEnv = (raw: Record<string, unknown> = process.env): SettingsEnv =>
  validateEnv(SettingsEnv, raw);
