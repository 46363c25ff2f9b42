import OpenAI from 'openai';
import { LRUCache } from 'lru-cache';
import type { ModelSettings } from '@corpus-chat/corpus-queries';
import type { AgentConfig } from '../agent.config';
import { modelFetch } from './model-http';

/** Creates the `openai` client for a server; replaceable in tests. */
export type OpenAiClientFactory = (settings: ModelSettings, config: AgentConfig) => OpenAI;

/** Clients by server, key and timeout: a turn reuses its server's client (and its connections). */
const clients = new LRUCache<string, OpenAI>({ max: 16 });

/**
 * The client for an OpenAI-compatible server: no SDK retries (the runner retries once itself), the
 * SDK's `timeout` (time to response headers) just above the first-token timeout, and `modelFetch`,
 * which lifts undici's 300 s header/body limits so the agent's own timers decide. One client per
 * (base URL, API key, timeout), kept for the process (at most 16), instead of one per turn: a
 * settings change makes a new key, so the next turn uses the new server.
 */
export const defaultClientFactory: OpenAiClientFactory = (settings, config) => {
  const apiKey = settings.apiKey || 'not-needed'; // Ollama, vLLM and llama.cpp accept any key; the SDK insists on one.
  const timeout = config.firstTokenTimeoutMs + 1000;
  const key = JSON.stringify([settings.baseUrl ?? null, apiKey, timeout]);
  let client = clients.get(key);
  if (!client) {
    client = new OpenAI({
      baseURL: settings.baseUrl ?? undefined,
      apiKey,
      maxRetries: 0,
      timeout,
      fetch: modelFetch,
    });
    clients.set(key, client);
  }
  return client;
};
