import type { Readable } from 'node:stream';
import type { ChatCompletionChunk, ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions';
import { request } from 'undici';
import { modelDispatcher } from './model-http';

/** One streamed chat-completions request: where to, with what key, the body, and its abort signal. */
export interface ChatStreamRequest {
  /** The server's OpenAI-compatible base URL (`http://localhost:11434/v1`). */
  baseUrl: string;
  /** Bearer key; servers that need none get a placeholder (Ollama, vLLM and llama.cpp accept any). */
  apiKey: string | null;
  body: ChatCompletionCreateParamsStreaming;
  /** Aborting it ends the request and closes the connection (the server sees the close). */
  signal: AbortSignal;
}

/** Streams the chunks of one request; replaceable in tests. */
export type ChatStreamer = (req: ChatStreamRequest) => AsyncIterable<ChatCompletionChunk>;

/** The server answered with an HTTP error status; `message` is `<status> <the server's own message>`. */
export class ModelHttpStatusError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ModelHttpStatusError';
  }
}

/** The request never got a response (connection refused, DNS, TLS, reset before the headers). */
export class ModelConnectionError extends Error {
  constructor(
    /** The system or undici error code (`ECONNREFUSED`), or the error's message when it has none. */
    readonly detail: string,
    options?: { cause?: unknown },
  ) {
    super(`could not connect (${detail})`, options);
    this.name = 'ModelConnectionError';
  }
}

/** The stream carried an error object instead of a chunk (`data: {"error": …}`). */
export class ModelStreamError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ModelStreamError';
  }
}

/**
 * `POST <baseUrl>/chat/completions` with `stream: true` over undici's `request` (the shared
 * `modelDispatcher`: kept-alive connections, no undici header/body timeouts), yielding each SSE
 * `data:` event parsed as a `ChatCompletionChunk` until `[DONE]` or the end of the body.
 *
 * This is the part of the `openai` SDK the agent used, without its per-request cost (WHATWG
 * fetch, web streams, headers objects): the same wire format, the same errors in substance.
 * Throws `ModelHttpStatusError` for a status ≥ 400 (with the server's message), `ModelConnectionError`
 * when no response came, `ModelStreamError` for an error event, `SyntaxError` for a malformed
 * event, and the signal's reason (or undici's abort error) when aborted.
 */
export const streamChatCompletion: ChatStreamer = async function* (req) {
  const url = `${req.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  let res: Awaited<ReturnType<typeof request>>;
  try {
    res = await request(url, {
      method: 'POST',
      dispatcher: modelDispatcher,
      signal: req.signal,
      headers: {
        'content-type': 'application/json',
        accept: 'text/event-stream',
        authorization: `Bearer ${req.apiKey || 'not-needed'}`,
      },
      body: JSON.stringify(req.body),
    });
  } catch (e) {
    if (req.signal.aborted) throw req.signal.reason ?? e;
    const err = e as { code?: string; message?: string; cause?: { code?: string } };
    throw new ModelConnectionError(err.code ?? err.cause?.code ?? err.message ?? String(e), { cause: e });
  }
  const body = res.body as unknown as Readable;
  let complete = false;
  try {
    if (res.statusCode >= 400) {
      const text = await res.body.text().catch(() => '');
      complete = true;
      throw new ModelHttpStatusError(res.statusCode, statusMessage(res.statusCode, text));
    }
    const parser = new SseParser();
    // Read to the end even after `[DONE]` (the server ends the response right after it): leaving a
    // `for await` early destroys the body, and with it the kept-alive connection.
    for await (const piece of body) {
      for (const chunk of parser.push(piece as Buffer)) yield chunk;
    }
    if (!parser.done) for (const chunk of parser.end()) yield chunk;
    complete = true;
  } finally {
    // A complete answer: read what follows `[DONE]` (usually nothing) so the connection is reused.
    // Ending early (an error, a consumer that stopped): drop the response and its connection.
    if (!body.readableEnded) {
      if (complete) await res.body.dump().catch(() => undefined);
      else body.destroy();
    }
  }
};

/**
 * Incremental parser of a chat-completions SSE body: `push` the bytes as they come and get the
 * complete `data:` events (multi-line data joined by `\n`) parsed as chunks; `done` once `[DONE]`
 * came (later bytes are ignored). Other fields (`event:`, `id:`) and comments carry nothing we use.
 * Throws `SyntaxError` for a malformed event and `ModelStreamError` for an error event.
 */
export class SseParser {
  private readonly decoder = new TextDecoder();
  private buffer = '';
  private data: string[] = [];
  /** Whether `[DONE]` was received. */
  done = false;

  /** The events completed by `piece` (bytes or text). */
  push(piece: Buffer | string): ChatCompletionChunk[] {
    if (this.done) return [];
    this.buffer += typeof piece === 'string' ? piece : this.decoder.decode(piece, { stream: true });
    const out: ChatCompletionChunk[] = [];
    let start = 0;
    for (let nl = this.buffer.indexOf('\n'); nl >= 0; nl = this.buffer.indexOf('\n', start)) {
      let line = this.buffer.slice(start, nl);
      start = nl + 1;
      if (line.endsWith('\r')) line = line.slice(0, -1);
      if (line === '') {
        this.dispatch(out);
        if (this.done) break;
      } else if (line.startsWith('data:')) {
        this.data.push(line.charCodeAt(5) === 32 ? line.slice(6) : line.slice(5));
      }
    }
    this.buffer = this.done ? '' : this.buffer.slice(start);
    return out;
  }

  /** The end of the body: a last event without its blank line, if any. */
  end(): ChatCompletionChunk[] {
    if (this.done) return [];
    const rest = this.buffer + this.decoder.decode();
    this.buffer = '';
    if (rest.startsWith('data:')) this.data.push(rest.charCodeAt(5) === 32 ? rest.slice(6) : rest.slice(5));
    const out: ChatCompletionChunk[] = [];
    this.dispatch(out);
    return out;
  }

  private dispatch(out: ChatCompletionChunk[]): void {
    if (!this.data.length) return;
    const payload = this.data.length === 1 ? this.data[0] : this.data.join('\n');
    this.data = [];
    if (payload === '[DONE]') {
      this.done = true;
      return;
    }
    const parsed = JSON.parse(payload) as ChatCompletionChunk & { error?: unknown };
    if (parsed && typeof parsed === 'object' && parsed.error) throw new ModelStreamError(errorText(parsed.error) ?? payload);
    out.push(parsed);
  }
}

/** Chunks of an SSE body (see `SseParser`), until `[DONE]` or the end. */
export async function* parseSse(body: AsyncIterable<Buffer | string>): AsyncGenerator<ChatCompletionChunk> {
  const parser = new SseParser();
  for await (const piece of body) {
    yield* parser.push(piece);
    if (parser.done) return;
  }
  yield* parser.end();
}

/** `<status> <message>` from an error body: `{"error": {"message"}}`, `{"error": "…"}`, `{"message"}` or its text. */
function statusMessage(status: number, text: string): string {
  let message: string | undefined;
  try {
    const json = JSON.parse(text) as { error?: unknown; message?: unknown };
    message = errorText(json?.error) ?? (typeof json?.message === 'string' ? json.message : undefined);
  } catch {
    // not JSON: the text itself
  }
  message ??= text.trim().slice(0, 500);
  return message ? `${status} ${message}` : `${status} status code (no body)`;
}

function errorText(error: unknown): string | undefined {
  if (typeof error === 'string') return error;
  if (error && typeof error === 'object') {
    const m = (error as { message?: unknown }).message;
    return typeof m === 'string' ? m : JSON.stringify(error);
  }
  return undefined;
}
