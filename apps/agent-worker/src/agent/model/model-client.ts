import OpenAI from 'openai';
import { LRUCache } from 'lru-cache';
import type { ModelSettings } from '@corpus-chat/persistence';
import type { AgentConfig } from '../agent.config';
import { modelFetch } from './model-http';

/** Creates the `openai` client for a server; replaceable in tests. */
export type OpenAiClientFactory = (
  settings: ModelSettings,
  config: Pick<AgentConfig, 'firstTokenTimeoutMs'>,
) => OpenAI;

/** Clients by server, key and timeout: a turn reuses its server's client (and its connections). */
const clients = new LRUCache<string, OpenAI>({ max: 16 });

/**
 * The OpenAI client: no SDK retries (the runner retries), header timeout just above the
 * first-token timeout, `modelFetch`. Cached per (base URL, key, timeout), at most 16.
 */
export const defaultClientFactory: OpenAiClientFactory = (settings, config) => {
  const apiKey = settings.apiKey || 'not-needed'; // Ollama, vLLM and llama.cpp accept any key; the SDK insists on one.
  const timeout = config.firstTokenTimeoutMs + 1000;
  const key = JSON.stringify([settings.baseUrl ?? null, apiKey, timeout]);
  const client =
    clients.get(key) ??
    new OpenAI({ baseURL: settings.baseUrl ?? undefined, apiKey, maxRetries: 0, timeout, fetch: modelFetch });
  clients.set(key, client);
  return client;
};
