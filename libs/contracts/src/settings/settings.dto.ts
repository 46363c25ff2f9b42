import { z } from 'zod';
import { optional } from '../validation/dto-fields';
import { zodDto } from '../validation/zod-dto';

/** `builtin` is the deterministic planner (no model server); `openai` any OpenAI-compatible server. */
export const MODEL_BACKENDS = ['builtin', 'openai'] as const;
export type ModelBackend = (typeof MODEL_BACKENDS)[number];

const baseUrl = z.url({
  protocol: /^https?$/,
  error: 'must be an http(s) URL, e.g. http://localhost:11434/v1',
});
const model = z.string().min(1, { error: 'must name a model of the server, e.g. qwen3:8b' }).max(200);
const apiKey = optional(z.string().max(500));

/**
 * `PUT /api/settings`. An omitted `apiKey` keeps the stored one unless `baseUrl` changes server;
 * `''` clears it. `baseUrl` and `model` only for an OpenAI-compatible server.
 */
export class UpdateSettingsDto extends zodDto(
  z
    .strictObject({
      backend: z.enum(MODEL_BACKENDS),
      baseUrl: optional(baseUrl),
      model: optional(model),
      apiKey,
    })
    .superRefine((v, ctx) => {
      if (v.backend !== 'openai') return;
      for (const key of ['baseUrl', 'model'] as const)
        if (v[key] === undefined)
          ctx.addIssue({ code: 'custom', path: [key], input: undefined, message: 'is required' });
    }),
) {}

/** `POST /api/settings/test`: values to try; the stored key is used only for the stored server. */
export class TestSettingsDto extends zodDto(
  z.strictObject({
    backend: optional(z.enum(MODEL_BACKENDS)),
    baseUrl: optional(baseUrl),
    model: optional(model),
    apiKey,
  }),
) {}

/** `GET /api/settings`: never returns the key itself. */
export interface SettingsView {
  backend: ModelBackend;
  baseUrl: string | null;
  model: string | null;
  apiKeySet: boolean;
  updatedAt: string | null;
}

/**
 * What "Test connection" checks, in order: the model is listed, a one-token completion, the same
 * request with the agent's tools, and the context length (informational: never fails).
 */
export const SETTINGS_CHECK_NAMES = ['models', 'completion', 'tools', 'context'] as const;
export type SettingsCheckName = (typeof SETTINGS_CHECK_NAMES)[number];

/**
 * `POST /api/settings/test`. `ok` is every check's `ok`. `contextTokens` is the server's context
 * for the model when its API told it; `contextBudgetTokens` the tokens a turn may use,
 * `min(contextTokens, AGENT_CONTEXT_TOKENS)` (the budget alone when unknown). `parallelSlots` is
 * how many requests the server runs at once, when it tells (llama.cpp's `total_slots`; vLLM,
 * Ollama and LM Studio do not). All are absent for the built-in planner, which has no model server.
 */
export interface SettingsTestResult {
  ok: boolean;
  checks: { name: SettingsCheckName; ok: boolean; detail: string }[];
  contextTokens?: number;
  contextBudgetTokens?: number;
  parallelSlots?: number;
}
