import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import type { SettingsTestResult } from '@corpus-chat/contracts';

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

/** Node/undici error codes of a failed connection, in words (the code stays in brackets for searching). */
const CONNECTION_ERRORS: Record<string, string> = {
  ECONNREFUSED: 'connection refused: nothing listens on that port',
  ENOTFOUND: 'the host name was not found',
  EAI_AGAIN: 'the host name could not be looked up (DNS failure)',
  ECONNRESET: 'the server reset the connection',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  ETIMEDOUT: 'the connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'the connection timed out',
  UND_ERR_SOCKET: 'the connection closed unexpectedly',
  EPROTO: 'the TLS handshake failed (is it an http:// server?)',
  ERR_SSL_WRONG_VERSION_NUMBER: 'the TLS handshake failed (is it an http:// server?)',
  DEPTH_ZERO_SELF_SIGNED_CERT: "the server's TLS certificate is self-signed",
  SELF_SIGNED_CERT_IN_CHAIN: "the server's TLS certificate is not trusted (self-signed chain)",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "the server's TLS certificate is not trusted",
  CERT_HAS_EXPIRED: "the server's TLS certificate has expired",
  ERR_TLS_CERT_ALTNAME_INVALID: "the server's TLS certificate is for another host name",
};

type ErrorCause = { cause?: ErrorCause; code?: string; message?: string };

/**
 * Why a connection to `baseUrl` failed, in words, from the cause chain of the OpenAI client's
 * `APIConnectionError` (undici puts the socket error's `code` one or two levels down).
 */
function connectionFailure(e: APIConnectionError, baseUrl: string | undefined): string {
  const causes: ErrorCause[] = [];
  for (let c = (e as ErrorCause).cause; c && causes.length < 4; c = c.cause) causes.push(c);
  const code = causes.find((c) => typeof c.code === 'string')?.code;
  const messages = causes.map((c) => c.message).filter((m): m is string => !!m);
  // The deepest message is the socket's own ("fetch failed" wraps it).
  const message = messages.at(-1);
  let why: string;
  if (code && CONNECTION_ERRORS[code]) why = `${CONNECTION_ERRORS[code]} (${code})`;
  else if (messages.includes('bad port')) {
    // The WHATWG fetch standard blocks ports of other protocols (e.g. 9, 25, 6000) on every request.
    let port = '';
    try {
      port = baseUrl ? new URL(baseUrl).port : '';
    } catch {
      // not a URL: say "the port in the URL"
    }
    why = `port ${port || 'in the URL'} is blocked for HTTP requests (the fetch standard reserves it for another protocol): use another port`;
  } else why = code ?? message ?? 'the connection failed';
  return `could not connect${baseUrl ? ` to ${baseUrl}` : ''}: ${why}`;
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
