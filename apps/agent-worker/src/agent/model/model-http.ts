import { Agent, fetch as undiciFetch } from 'undici';

/**
 * The HTTP dispatcher for model servers. undici's defaults would end a request whose headers take
 * more than 300 s (`headersTimeout`) or whose stream pauses 300 s (`bodyTimeout`); a local model
 * loading or thinking can take longer. Both are disabled here and replaced by the agent's own,
 * configured timers (`MODEL_FIRST_TOKEN_TIMEOUT_MS`, `MODEL_STREAM_IDLE_TIMEOUT_MS`), which abort the
 * request through its AbortSignal. Connecting still times out after 10 s (a dead host fails fast).
 */
export const modelDispatcher = new Agent({
  headersTimeout: 0,
  bodyTimeout: 0,
  connectTimeout: 10_000,
  keepAliveTimeout: 30_000,
});

/**
 * `fetch` for the `openai` client: undici's fetch with `modelDispatcher`. Aborting the request's
 * signal destroys the socket, so the model server sees the connection close (Ollama then stops
 * generating).
 */
export const modelFetch = ((input: string | URL, init?: Record<string, unknown>) =>
  undiciFetch(input, { ...(init ?? {}), dispatcher: modelDispatcher } as Parameters<typeof undiciFetch>[1])) as unknown as typeof fetch;

/** `base_url` without credentials or query, for messages and logs (`http://localhost:11434/v1`). */
export function safeServerUrl(baseUrl: string): string {
  try {
    const u = new URL(baseUrl);
    u.username = '';
    u.password = '';
    u.search = '';
    return u.toString().replace(/\/$/, '');
  } catch {
    return '(invalid base URL)';
  }
}
