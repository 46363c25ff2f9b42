import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import type { SettingsTestResult } from '@corpus-chat/contracts';
import { connectionFailure } from '@corpus-chat/server-core';

/** What to test: an OpenAI-compatible server and a model on it. */
export interface ModelServerTarget {
  baseUrl: string;
  model: string;
  apiKey: string | null;
}

export interface ModelServerCheckOptions {
  /** Milliseconds for `GET /models` (default 15 s). */
  listTimeoutMs?: number;
  /** Milliseconds for the one-token completion; a local model may need to load first (default 120 s). */
  completionTimeoutMs?: number;
}

/**
 * The server's own words for a failed request (status and message), or what stopped the connection
 * to `baseUrl` in words, e.g. `could not connect to http://127.0.0.1:9/v1: connection refused:
 * nothing listens on that port (ECONNREFUSED)`.
 */
export function serverMessage(e: unknown, baseUrl?: string): string {
  if (e instanceof APIConnectionTimeoutError) return `no answer${baseUrl ? ` from ${baseUrl}` : ''} in time (timed out)`;
  if (e instanceof APIConnectionError) return connectionFailure(e, baseUrl);
  if (e instanceof APIError) return e.message || `HTTP ${e.status}`;
  return (e as Error)?.message ?? String(e);
}

/**
 * Checks an OpenAI-compatible server the way the agent will use it: lists its models
 * (`GET /models`: ok when the request works; the detail says whether the configured model is
 * listed) and asks the configured model for a one-token completion. Each check reports the
 * server's own message on failure; when the model list timed out, the completion is not tried (a
 * server that does not answer would otherwise hold the check for the completion's timeout, 120 s by
 * default). Never throws.
 */
export async function checkModelServer(target: ModelServerTarget, options: ModelServerCheckOptions = {}): Promise<SettingsTestResult> {
  const client = new OpenAI({ baseURL: target.baseUrl, apiKey: target.apiKey || 'not-needed', maxRetries: 0 });
  const checks: SettingsTestResult['checks'] = [];
  const listTimeoutMs = options.listTimeoutMs ?? 15_000;
  const listStarted = Date.now();
  try {
    const ids: string[] = [];
    for await (const m of client.models.list({ timeout: listTimeoutMs })) {
      ids.push(m.id);
      if (ids.length >= 500) break;
    }
    const listed = ids.includes(target.model);
    checks.push({
      name: 'models',
      ok: true,
      detail: listed
        ? `The server lists ${ids.length} model(s), including '${target.model}'.`
        : `The server lists ${ids.length} model(s), but not '${target.model}'${ids.length ? ` (available: ${ids.slice(0, 10).join(', ')}${ids.length > 10 ? ', …' : ''})` : ''}.`,
    });
  } catch (e) {
    checks.push({ name: 'models', ok: false, detail: `Listing the models failed: ${serverMessage(e, target.baseUrl)}` });
    // A server that accepted the connection but did not answer a model list in time would only
    // hold the operator for the completion's much longer timeout too.
    // (By its error class, or by the time it took: under some runtimes the SDK reports its own
    // timeout as a generic connection error.)
    if (e instanceof APIConnectionTimeoutError || Date.now() - listStarted >= listTimeoutMs) {
      checks.push({ name: 'completion', ok: false, detail: `Not tried: ${target.baseUrl} did not answer the model list in time, so a completion would not be answered either.` });
      return { ok: false, checks };
    }
  }
  try {
    const r = await client.chat.completions.create(
      { model: target.model, messages: [{ role: 'user', content: 'Reply with the single word OK.' }], max_tokens: 1, stream: false },
      { timeout: options.completionTimeoutMs ?? 120_000 },
    );
    const text = r.choices?.[0]?.message?.content ?? '';
    checks.push({ name: 'completion', ok: true, detail: `The model '${target.model}' answered${text ? `: '${text.slice(0, 50)}'` : ' (an empty reply)'}.` });
  } catch (e) {
    checks.push({ name: 'completion', ok: false, detail: `A one-token completion with '${target.model}' failed: ${serverMessage(e, target.baseUrl)}` });
  }
  return { ok: checks.every((c) => c.ok), checks };
}
