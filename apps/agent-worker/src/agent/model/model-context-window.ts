import { LRUCache } from 'lru-cache';
import type { ModelSettings } from '@corpus-chat/persistence';
import {
  AgentTurnError,
  discoverContextLength,
  effectiveContextBudget,
  SERVER_CONTEXT_SHARE,
  type HistoryMessage,
  type ModelContextSource,
} from '@corpus-chat/server-core';
import { CONTEXT_SETTINGS } from './model-errors';
import type { ModelRequestError } from './model-step';

/**
 * The context window a turn budgets for: what the model server says of its window for the model
 * (cached), the budget it leaves, and the messages that name the setting to change when it is too small.
 */

/** What a server said of its context window for a model. */
export interface ServerContext {
  tokens: number | null;
  source?: ModelContextSource;
}

/** Context windows found per server and model, asked again after 10 minutes (a model can be reloaded with another size). */
const serverContexts = new LRUCache<string, ServerContext>({ max: 64, ttl: 10 * 60_000 });

/** How long a context window that was only the server's default (a model not loaded yet) is kept. */
const PROVISIONAL_CONTEXT_TTL_MS = 30_000;

const contextKey = (settings: ModelSettings) => JSON.stringify([settings.baseUrl, settings.model]);

/** The context budget of a turn: the server's window if known, the budget, and the setting that sizes the window. */
export interface ContextWindow {
  serverTokens: number | null;
  budget: number;
  setting: string;
}

/** `SERVER_CONTEXT_SHARE` as messages write it ("80 %"). */
export const SHARE = `${Math.round(SERVER_CONTEXT_SHARE * 100)} %`;
const ANY_CONTEXT_SETTING =
  "the server's context window (Ollama: num_ctx or OLLAMA_CONTEXT_LENGTH; llama.cpp: --ctx-size; vLLM: --max-model-len; LM Studio: the model's context length)";

/**
 * The server's context window for the model (`tokens` null when it does not say), asked once per
 * 10 minutes, or again after 30 s when it was the server's default for a model not loaded yet.
 */
export async function serverContext(settings: ModelSettings, signal: AbortSignal): Promise<ServerContext> {
  const key = contextKey(settings);
  const known = serverContexts.get(key);
  if (known) return known;
  const info = await discoverContextLength(
    settings.baseUrl ?? '',
    settings.model ?? '',
    settings.apiKey ?? null,
    { timeoutMs: 3000 },
  );
  signal.throwIfAborted();
  const found: ServerContext = { tokens: info.contextTokens ?? null, source: info.source };
  serverContexts.set(key, found, info.provisional ? { ttl: PROVISIONAL_CONTEXT_TTL_MS } : undefined);
  return found;
}

/** The window a turn starts with: the server's, as `serverContext` found it, within `configured` tokens. */
export function firstWindow(found: ServerContext, configured: number): ContextWindow {
  return {
    serverTokens: found.tokens,
    budget: effectiveContextBudget(found.tokens, configured),
    setting: found.source ? CONTEXT_SETTINGS[found.source] : ANY_CONTEXT_SETTING,
  };
}

/**
 * The window after the server refused a prompt as too long: the one the refusal named (remembered
 * for the next turns), or the same when it named none (the caller then sends less history).
 */
export function windowAfterRefusal(
  settings: ModelSettings,
  found: ServerContext,
  window: ContextWindow,
  e: ModelRequestError,
  configured: number,
): ContextWindow {
  if (!e.contextTokens) return window;
  serverContexts.set(contextKey(settings), { ...found, tokens: e.contextTokens });
  return {
    ...window,
    serverTokens: e.contextTokens,
    budget: Math.min(window.budget, effectiveContextBudget(e.contextTokens, configured)),
  };
}

/** Where the budget came from, for messages. */
export function budgetSource(configured: number, serverContext: number | null): string {
  return serverContext && Math.floor(serverContext * SERVER_CONTEXT_SHARE) < configured
    ? `${SHARE} of the server's ${serverContext}-token context window, below AGENT_CONTEXT_TOKENS ${configured}`
    : `AGENT_CONTEXT_TOKENS`;
}

/** The history from its latest user message on, or none when that is all of it. */
export function shorterHistory(history: HistoryMessage[]): HistoryMessage[] {
  const latest = history.map((m) => m.role).lastIndexOf('user');
  return latest > 0 ? history.slice(latest) : [];
}

/** The turn's error when the server refused the prompt as too long (`retried`: also with a smaller history). */
export function contextTooSmall(
  where: string,
  e: ModelRequestError,
  setting: string,
  retried: boolean,
): AgentTurnError {
  return new AgentTurnError(
    'CONTEXT_OVERFLOW',
    `${where} refused the prompt as longer than its context window (${e.message})${retried ? ', also with a smaller history' : '; there was no history to leave out'}. Raise ${setting}, or lower AGENT_CONTEXT_TOKENS so the worker sends less.`,
  );
}
