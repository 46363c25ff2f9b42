import { Readable } from 'node:stream';
import { Agent, type Dispatcher, fetch as undiciFetch, request } from 'undici';
import { fetchWithoutRedirects, REDIRECT_STATUS, redirectRefused } from '@corpus-chat/server-core';
import { isRecord, tryJson } from './tool-call-json';

/**
 * The HTTP dispatcher for model servers: undici's 300 s header and body timeouts are off (a local
 * model may take longer), replaced by the agent's own timers; connecting still times out in 10 s.
 */
export const modelDispatcher = new Agent({
  headersTimeout: 0,
  bodyTimeout: 0,
  connectTimeout: 10_000,
  keepAliveTimeout: 30_000,
});

/** Statuses whose response has no body (the Fetch standard's "null body status"). */
const NULL_BODY_STATUS = new Set([101, 103, 204, 205, 304]);
const viaFetch = async (input: string | URL | Request, init: RequestInit): Promise<Response> =>
  normaliseErrorResponse(
    await fetchWithoutRedirects(
      (i, o) => undiciFetch(i as never, { ...o, dispatcher: modelDispatcher } as never) as never,
    )(input, init),
  );

/** Characters of an error body kept as the message (a proxy's HTML page can be long). */
const ERROR_WORDS_MAX = 1000;

/**
 * Any model server's error body in the shape the `openai` SDK reads, `{"error":{"message":…}}`
 * (from Ollama's and LM Studio's `{"error":"text"}`, vLLM's `message`, FastAPI's `detail`, or HTML),
 * other error fields kept; already well-formed bodies are unchanged.
 */
export function normaliseErrorBody(text: string, status: number): string {
  const o = tryJson(text);
  const wrap = (message: string, rest: Record<string, unknown> = {}) =>
    JSON.stringify({ error: { ...rest, message: cap(message) || `HTTP ${status} without a message` } });
  if (isRecord(o)) {
    const err = o['error'];
    if (isRecord(err)) {
      const message = err['message'];
      if (typeof message === 'string' && message.trim()) return text;
      return wrap(JSON.stringify(typeof message === 'string' || message === undefined ? err : message), err);
    }
    if (typeof err === 'string') {
      const { error: _error, ...rest } = o;
      return wrap(err, rest);
    }
    if (typeof o['message'] === 'string') {
      const { object: _object, message, ...rest } = o;
      return wrap(message as string, rest);
    }
    const detail = o['detail'];
    if (typeof detail === 'string') return wrap(detail);
    if (Array.isArray(detail)) {
      const parts = detail.map((d) => {
        const item = d as { loc?: unknown; msg?: unknown };
        const where = Array.isArray(item.loc) ? item.loc.join('.') : '';
        const msg = typeof item.msg === 'string' ? item.msg : JSON.stringify(d);
        return where ? `${where}: ${msg}` : msg;
      });
      return wrap(parts.join('; '));
    }
    return wrap(text);
  }
  // Not JSON: plain text, or an HTML error page of a proxy (its title, else its text).
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(text)?.[1];
  const plain = /<\/?[a-z][^>]*>/i.test(text)
    ? (title ?? text.replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ').replace(/<[^>]+>/g, ' '))
    : text;
  return wrap(plain.replace(/\s+/g, ' ').trim());
}

function cap(s: string): string {
  return s.length > ERROR_WORDS_MAX ? `${s.slice(0, ERROR_WORDS_MAX)}…` : s;
}

/** A 4xx/5xx answer with its body normalised by `normaliseErrorBody`, same status and headers. */
async function normaliseErrorResponse(response: Response): Promise<Response> {
  if (response.status < 400) return response;
  const text = await response.text();
  const headers = new Headers(response.headers);
  headers.set('content-type', 'application/json');
  headers.delete('content-length');
  headers.delete('content-encoding');
  return new Response(normaliseErrorBody(text, response.status), {
    status: response.status,
    statusText: response.statusText,
    headers,
  });
}

/**
 * `fetch` for the `openai` client on `modelDispatcher`. A successful event stream is handed to the
 * SDK as undici's Node stream, skipping WHATWG streams (docs/benchmarks.md). Otherwise like
 * `fetch`, except: 4xx/5xx bodies are rewritten by `normaliseErrorBody`, redirects are refused, an
 * abort destroys the socket (so Ollama stops generating), and Fetch's blocked ports are allowed.
 */
export const modelFetch = (async (
  input: string | URL | Request,
  init: RequestInit = {},
): Promise<Response> => {
  const body = init.body;
  if (input instanceof Request || !(body == null || typeof body === 'string' || body instanceof Uint8Array)) {
    return viaFetch(input, init);
  }
  const headers = Object.fromEntries(new Headers(init.headers));
  let res: Dispatcher.ResponseData;
  try {
    res = await request(String(input), {
      method: (init.method ?? 'GET') as Dispatcher.HttpMethod,
      headers,
      body: body ?? null,
      signal: init.signal ?? undefined,
      dispatcher: modelDispatcher,
    });
  } catch (e) {
    // As fetch: an aborted request rejects with the signal's reason, a network error with a
    // TypeError whose cause is the socket error (where `connectionFailure` finds its code).
    if (init.signal?.aborted) throw init.signal.reason ?? e;
    throw new TypeError('fetch failed', { cause: e });
  }
  const status = res.statusCode;
  try {
    if (REDIRECT_STATUS.has(status)) {
      await res.body.dump().catch(() => undefined);
      const location = res.headers['location'];
      return redirectRefused(status, Array.isArray(location) ? location[0]! : (location ?? null));
    }
    const responseHeaders = new Headers();
    for (const [name, value] of Object.entries(res.headers)) {
      if (value === undefined) continue;
      for (const v of Array.isArray(value) ? value : [value]) responseHeaders.append(name, v);
    }
    const eventStream =
      status >= 200 &&
      status < 300 &&
      /^text\/event-stream\b/i.test(responseHeaders.get('content-type') ?? '');
    if (!eventStream) {
      const empty = NULL_BODY_STATUS.has(status);
      if (empty) await res.body.dump().catch(() => undefined);
      const web = empty ? null : (Readable.toWeb(res.body) as ReadableStream<Uint8Array>);
      return await normaliseErrorResponse(new Response(web, { status, headers: responseHeaders }));
    }
    const response = new Response(null, { status, headers: responseHeaders });
    Object.defineProperty(response, 'body', { value: res.body, enumerable: true });
    return response;
  } catch (e) {
    // A status the Response constructor refuses (e.g. above 599): release the connection.
    res.body.on('error', () => undefined).destroy();
    if (init.signal?.aborted) throw init.signal.reason ?? e;
    throw e instanceof TypeError ? e : new TypeError('fetch failed', { cause: e });
  }
}) as typeof fetch;

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
