import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import type { TurnErrorCode } from '@corpus-chat/contracts';
import { connectionFailure, type ModelContextSource } from '@corpus-chat/server-core';
import { isRecord } from './tool-call-json';

/**
 * Why one model request failed, in the server's words. `retryable`: one more attempt may help;
 * `contextExceeded` with the window, prompt size and server setting when the error names them;
 * `status` absent for connection failures and in-stream errors.
 */
export interface ModelFailure {
  code: TurnErrorCode;
  message: string;
  retryable: boolean;
  retryAfterMs?: number;
  contextExceeded?: boolean;
  contextTokens?: number;
  promptTokens?: number;
  contextSetting?: string;
  status?: number;
}

/** The setting that sizes each server's context window, for messages. */
export const CONTEXT_SETTINGS: Record<ModelContextSource, string> = {
  ollama: "Ollama's num_ctx (OLLAMA_CONTEXT_LENGTH)",
  vllm: "vLLM's --max-model-len",
  llamacpp: "llama.cpp's --ctx-size (-c)",
  lmstudio: "the model's context length in LM Studio",
};

/** How each server words "the prompt does not fit", and which setting sets its window. */
const CONTEXT_ERRORS: { pattern: RegExp; type?: RegExp; setting?: string }[] = [
  // tools/server/server.cpp (llama.cpp): type exceed_context_size_error
  {
    pattern: /exceed_context_size_error|exceeds the available context size/i,
    setting: CONTEXT_SETTINGS.llamacpp,
  },
  // server/routes.go and llm/llama_server.go (Ollama)
  {
    pattern: /input length exceeds the context length|prompt is longer than the context length/i,
    setting: CONTEXT_SETTINGS.ollama,
  },
  // LM Studio's context overflow refusal
  { pattern: /model is loaded with context length of only/i, setting: CONTEXT_SETTINGS.lmstudio },
  // vllm/entrypoints/openai/serving_engine.py; DeepSeek uses the same words with another error type
  {
    pattern: /maximum context length is \d+ tokens/i,
    type: /BadRequestError/,
    setting: CONTEXT_SETTINGS.vllm,
  },
  {
    pattern:
      /context_length_exceeded|ContextWindowExceededError|maximum context length|context window|context length exceeded/i,
  },
];

/** The first number after `label` in `text`. */
const numberAfter = (text: string, label: RegExp): number | undefined => {
  const m = label.exec(text);
  return m ? Number(m[1]) : undefined;
};

/**
 * Classifies a failed model request: connection failures are retryable `MODEL_UNAVAILABLE`, the
 * header timeout `TIMEOUT`, an abort `MODEL_ERROR`, malformed streams and resets retryable
 * `MODEL_ERROR`s. HTTP errors read `HTTP <status>: <server's words>`: 5xx/429 `MODEL_UNAVAILABLE`,
 * a context refusal `CONTEXT_OVERFLOW`, others `MODEL_ERROR`. An existing failure passes through.
 */
export function describeModelError(e: unknown): ModelFailure {
  if (isFailure(e)) return e;
  if (e instanceof APIConnectionTimeoutError)
    return { code: 'TIMEOUT', message: 'no response headers in time', retryable: false };
  if (e instanceof APIConnectionError)
    return { code: 'MODEL_UNAVAILABLE', message: connectionFailure(e, undefined), retryable: true };
  if (e instanceof APIUserAbortError)
    return { code: 'MODEL_ERROR', message: 'request aborted', retryable: false };
  if (e instanceof APIError) return fromApiError(e);
  if (e instanceof SyntaxError)
    return { code: 'MODEL_ERROR', message: `malformed stream (${e.message})`, retryable: true };
  const message = (e as Error)?.message ?? String(e);
  return {
    code: 'MODEL_ERROR',
    message,
    retryable: /terminated|socket|ECONNRESET|other side closed/i.test(message),
  };
}

function fromApiError(e: APIError): ModelFailure {
  const status = e.status;
  const error = e.error as
    | { message?: unknown; type?: unknown; code?: unknown; n_ctx?: unknown; n_prompt_tokens?: unknown }
    | string
    | undefined;
  let words: string;
  if (typeof error === 'string') words = error;
  else if (typeof error?.message === 'string') words = error.message;
  else if (error?.message !== undefined) words = JSON.stringify(error.message);
  else words = status !== undefined ? e.message.replace(new RegExp(`^${status} `), '') : e.message;
  words = words.trim() || `HTTP ${status} without a message`;
  const message = status !== undefined ? `HTTP ${status}: ${words}` : words;
  const retryAfterMs = parseRetryAfter(e.headers);
  const failure: ModelFailure = {
    code: status !== undefined && (status >= 500 || status === 429) ? 'MODEL_UNAVAILABLE' : 'MODEL_ERROR',
    message,
    retryable: status === undefined || status >= 500 || status === 429 || status === 408,
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    ...(status !== undefined ? { status } : {}),
  };
  const obj = typeof error === 'object' && error ? error : {};
  const type = String(obj.type ?? '');
  const hit = CONTEXT_ERRORS.find(
    (c) => c.pattern.test(`${words} ${type} ${String(obj.code ?? '')}`) && (!c.type || c.type.test(type)),
  );
  if (!hit || status === 429) return failure; // a rate limit on tokens per minute is not a context overflow
  const contextTokens =
    (typeof obj.n_ctx === 'number' ? obj.n_ctx : undefined) ??
    numberAfter(words, /maximum context length is (\d+)/i) ??
    numberAfter(words, /available context size \((\d+)/i) ??
    numberAfter(words, /context length of only (\d+)/i);
  const promptTokens =
    (typeof obj.n_prompt_tokens === 'number' ? obj.n_prompt_tokens : undefined) ??
    numberAfter(words, /request \((\d+) tokens\)/i) ??
    numberAfter(words, /you requested (\d+) tokens/i) ??
    numberAfter(words, /resulted in (\d+) tokens/i) ??
    numberAfter(words, /keep the first (\d+) tokens/i);
  return {
    ...failure,
    code: 'CONTEXT_OVERFLOW',
    retryable: false,
    contextExceeded: true,
    ...(contextTokens !== undefined ? { contextTokens } : {}),
    ...(promptTokens !== undefined ? { promptTokens } : {}),
    ...(hit.setting ? { contextSetting: hit.setting } : {}),
  };
}

function isFailure(e: unknown): e is ModelFailure {
  return (
    isRecord(e) &&
    typeof e['code'] === 'string' &&
    typeof e['message'] === 'string' &&
    typeof e['retryable'] === 'boolean'
  );
}

/** Ms a server asked to wait (`retry-after-ms`, else `Retry-After` seconds or date); else undefined. */
export function parseRetryAfter(headers: Headers | undefined, now: number = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get('retry-after-ms')?.trim();
  if (ms && /^\d+(\.\d+)?$/.test(ms)) return Math.round(Number(ms));
  const value = headers.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number(value) * 1000);
  if (!/[a-z]/i.test(value)) return undefined; // '-3' would parse as a year
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
