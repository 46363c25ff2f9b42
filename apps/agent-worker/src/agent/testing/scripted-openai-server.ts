import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  checkRequest,
  profileInfoRoute,
  type RequestChecks,
  type ServerProfileName,
} from './server-profile-http';
import type { CountableMessage } from '../context/token-counter';
import { ollamaTruncate, type Truncation } from './ollama-truncation';

/** One piece of a scripted streamed answer. */
export type ScriptChunk =
  | { text: string }
  | { toolCall: { index: number; id?: string; name?: string; args?: string } }
  | { finish: 'stop' | 'tool_calls' | 'length' }
  /** A raw SSE `data:` payload sent as is (e.g. malformed JSON). */
  | { raw: string }
  /**
   * A whole chunk object sent as JSON (what `encodeIntent` produces: the server's own envelope);
   * `model` is the request's unless set. `ifIncludeUsage`: sent only when the request asked for
   * `stream_options.include_usage` (the usage chunk of OpenAI, Ollama, vLLM, LiteLLM).
   */
  | { json: Record<string, unknown>; ifIncludeUsage?: boolean }
  /** A chunk with this `delta` (and optionally a finish reason and usage) in the default envelope. */
  | { delta: Record<string, unknown>; finishReason?: string | null; usage?: Record<string, unknown> }
  /** The usage-only chunk OpenAI sends last with `stream_options.include_usage`: `choices: []`. */
  | { usage: Record<string, unknown> }
  /** A whole SSE event written as is (e.g. llama.cpp's `error: {...}` line), without the `data: ` prefix. */
  | { sse: string };

/** What the server does for one chat-completions request. */
export type ScriptedResponse =
  | {
      kind: 'stream';
      chunks: ScriptChunk[];
      /** Delay before the response headers. */
      headersDelayMs?: number;
      /** Delay after the headers, before the first chunk (a slow first token). */
      firstChunkDelayMs?: number;
      /** Delay between chunks. */
      chunkDelayMs?: number;
      /** Send the chunks, then keep the connection open without `[DONE]` until the client closes it. */
      hang?: boolean;
      /**
       * After the chunks, end without `[DONE]`: `true` ends the response cleanly (a server that
       * stops writing, e.g. a proxy that drops the terminator), `'reset'` destroys the socket
       * mid-body (a crashed server).
       */
      cut?: boolean | 'reset';
    }
  | {
      kind: 'status';
      status: number;
      /** JSON body (default: an OpenAI-shaped error naming the status). */
      body?: unknown;
      /** A non-JSON body sent verbatim instead of `body` (a proxy's HTML page, a plain-text error). */
      text?: string;
      /** `content-type` of `text` (default `text/plain; charset=utf-8`). */
      contentType?: string;
      /** Extra response headers, e.g. `{ 'retry-after': '2' }`. */
      headers?: Record<string, string>;
    }
  /** A non-streamed completion (`POST /chat/completions` without `stream`), e.g. the settings test. */
  | { kind: 'completion'; text: string; toolCalls?: { name: string; arguments: Record<string, unknown> }[] };

/** A request the server received, with what happened to its connection. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The parsed JSON body (the raw text when it was not JSON). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary request fields
  body: any;
  receivedAt: number;
  /** When the connection closed (either side). */
  closedAt?: number;
  /** True when the client closed the connection before the server finished the response. */
  clientClosed?: boolean;
}

/**
 * A scripted OpenAI-compatible HTTP server for tests (plain `node:http`, port 0): answers
 * `GET /v1/models` with `models`, and each `POST /v1/chat/completions` with the next scripted
 * response (or `responder(request)`): Server-Sent Events chunks in the chat-completions chunk format
 * (text deltas, tool-call deltas split anywhere, raw malformed payloads), an HTTP error status, or
 * delays. It records every request body and when and how each connection closed, so a test can
 * check that a cancelled turn closed its request.
 *
 * With `profile` set it also answers that server's side routes (context length discovery) and,
 * with `checks`, refuses requests the real server would refuse, in its words. `encodeIntent` in
 * `./server-profiles` builds the chunks a given server streams for one model decision.
 */
export class ScriptedOpenAiServer {
  readonly requests: RecordedRequest[] = [];
  /** Model ids `GET /v1/models` lists; set `modelsStatus` to make it fail instead. */
  models: string[] = ['scripted-model'];
  modelsStatus: { status: number; body: unknown } | undefined;
  /** Used when the queue is empty. */
  responder: ((req: RecordedRequest) => ScriptedResponse | Promise<ScriptedResponse>) | undefined;
  /**
   * Which real server this one answers like on its side routes and errors (`GET /v1/models` with
   * vLLM's `max_model_len`, Ollama's `POST /api/show`, llama.cpp's `GET /props`, LM Studio's
   * `GET /api/v0/models`, and the error bodies of `checks`). Unset: a plain OpenAI-compatible server.
   */
  profile: ServerProfileName | undefined;
  /** The context window the model runs with, as the side routes report it (tokens). */
  contextLength = 8192;
  /** The window the model was trained with (Ollama `model_info`, llama.cpp `n_ctx_train`, LM Studio `max_context_length`). */
  trainedContextLength = 32768;
  /** Where llama.cpp's `GET /props` puts `n_ctx` (versions differ). */
  propsLayout: 'nested' | 'top-level' | 'both' = 'nested';
  /** llama.cpp's parallel slots (`--parallel`), as `GET /props` reports them in `total_slots`. */
  parallelSlots = 1;
  /**
   * Ollama with its default window: `POST /api/show` names no `num_ctx` (only the trained
   * `context_length`) and `GET /api/ps` lists no loaded model, so `contextLength` is not told.
   */
  ollamaDefaultContext = false;
  /**
   * The window the model runs with, enforced as Ollama does: a request over it is truncated
   * (`ollamaTruncate`) and the responder sees only what is left. Each request's outcome is in
   * `truncations`, in order.
   */
  truncateAt: number | undefined;
  readonly truncations: Truncation<CountableMessage>[] = [];
  /** Request checks applied, in the profile's words, before the next scripted response is used. */
  checks: RequestChecks = {};
  /** Chat-completions requests answered by a `checks` error (they do not use up the queue). */
  readonly rejected: { total: number; rateLimited: number } = { total: 0, rateLimited: 0 };
  private readonly queue: ScriptedResponse[] = [];
  private readonly sockets = new Set<import('node:net').Socket>();

  private constructor(private readonly server: http.Server) {}

  /** Starts a server on 127.0.0.1 and an ephemeral port. */
  static async start(): Promise<ScriptedOpenAiServer> {
    const server = http.createServer();
    // Idle connections stay open until the client closes them, as Ollama's (Go, no IdleTimeout).
    // Node's idle timeout runs on the wall clock, undici's on event-loop ticks: after a test has
    // blocked the shared event loop for seconds, the server would drop the socket undici reuses.
    server.keepAliveTimeout = 0;
    const s = new ScriptedOpenAiServer(server);
    server.on('request', (req, res) => void s.handle(req, res));
    server.on('connection', (sock) => {
      s.sockets.add(sock);
      sock.on('close', () => s.sockets.delete(sock));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return s;
  }

  /** Base URL as the settings take it: `http://127.0.0.1:<port>/v1`. */
  get baseUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  /** Queues responses for the next chat-completions requests, in order. */
  enqueue(...responses: ScriptedResponse[]): this {
    this.queue.push(...responses);
    return this;
  }

  /** Chat-completions requests received so far. */
  get completionRequests(): RecordedRequest[] {
    return this.requests.filter((r) => r.path.endsWith('/chat/completions'));
  }

  /** Resolves when `pred` holds (polling every 10 ms), rejects after `timeoutMs`. */
  async waitFor(pred: () => boolean, timeoutMs = 5000): Promise<void> {
    const until = Date.now() + timeoutMs;
    while (!pred()) {
      if (Date.now() > until) throw new Error('ScriptedOpenAiServer.waitFor timed out');
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    let raw = '';
    for await (const c of req) raw += c;
    let body: RecordedRequest['body'] = raw;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      // keep the raw text: the test may want to see it
    }
    const rec: RecordedRequest = {
      method: req.method ?? '',
      path: req.url ?? '',
      headers: req.headers,
      body,
      receivedAt: Date.now(),
    };
    this.requests.push(rec);
    res.on('close', () => {
      rec.closedAt = Date.now();
      rec.clientClosed = !res.writableFinished;
    });

    const info = profileInfoRoute(this.profile, req.method ?? '', rec.path, body, {
      models: this.models,
      contextLength: this.contextLength,
      trainedContextLength: this.trainedContextLength,
      propsLayout: this.propsLayout,
      parallelSlots: this.parallelSlots,
      defaultContext: this.ollamaDefaultContext,
    });
    if (info && !(this.modelsStatus && rec.path.endsWith('/models')))
      return json(res, info.status, info.body);
    if (req.method === 'GET' && rec.path.endsWith('/models')) {
      if (this.modelsStatus) return json(res, this.modelsStatus.status, this.modelsStatus.body);
      return json(res, 200, {
        object: 'list',
        data: this.models.map((id) => ({ id, object: 'model', created: 0, owned_by: 'scripted' })),
      });
    }
    if (req.method !== 'POST' || !rec.path.endsWith('/chat/completions'))
      return json(res, 404, { error: { message: `no route ${rec.path}` } });

    const refused = checkRequest(this.profile, this.checks, body, this.rejected);
    if (refused) this.rejected.total += 1;
    let seen = rec;
    if (!refused && this.truncateAt !== undefined && Array.isArray(body?.messages)) {
      const cut = ollamaTruncate(body.messages, body.tools ?? [], this.truncateAt);
      this.truncations.push(cut);
      seen = { ...rec, body: { ...body, messages: cut.messages } };
    }
    const next = refused ?? this.queue.shift() ?? (await this.responder?.(seen));
    if (!next)
      return json(res, 500, { error: { message: 'scripted server: no response scripted for this request' } });
    if (next.kind === 'status') {
      if (next.text !== undefined) {
        res.writeHead(next.status, {
          'content-type': next.contentType ?? 'text/plain; charset=utf-8',
          ...next.headers,
        });
        return void res.end(next.text);
      }
      return json(
        res,
        next.status,
        next.body ?? { error: { message: `scripted status ${next.status}` } },
        next.headers,
      );
    }
    if (next.kind === 'completion') {
      return json(res, 200, {
        id: 'cmpl-scripted',
        object: 'chat.completion',
        created: 0,
        model: body?.model ?? 'scripted-model',
        choices: [
          next.toolCalls?.length
            ? {
                index: 0,
                message: {
                  role: 'assistant',
                  content: next.text || null,
                  tool_calls: next.toolCalls.map((c, i) => ({
                    id: `call_${i}`,
                    type: 'function',
                    function: { name: c.name, arguments: JSON.stringify(c.arguments) },
                  })),
                },
                finish_reason: 'tool_calls',
              }
            : { index: 0, message: { role: 'assistant', content: next.text }, finish_reason: 'stop' },
        ],
      });
    }

    const alive = () => !res.destroyed && !res.writableEnded;
    await delay(next.headersDelayMs);
    if (!alive()) return;
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    res.flushHeaders();
    await delay(next.firstChunkDelayMs);
    const model = body?.model ?? 'scripted-model';
    const chunks = next.chunks.filter(
      (c) => !('json' in c && c.ifIncludeUsage) || body?.stream_options?.include_usage === true,
    );
    for (const [i, chunk] of chunks.entries()) {
      if (!alive()) return;
      if (i > 0) await delay(next.chunkDelayMs);
      if (!alive()) return;
      if ('sse' in chunk) res.write(`${chunk.sse}\n\n`);
      else res.write(`data: ${'raw' in chunk ? chunk.raw : JSON.stringify(toSse(chunk, model))}\n\n`);
    }
    if (next.hang) return; // left open until the client goes away
    if (next.cut === 'reset') return void res.socket?.destroy();
    if (next.cut) return void res.end();
    if (alive()) res.end('data: [DONE]\n\n');
  }
}

function toSse(chunk: Exclude<ScriptChunk, { raw: string } | { sse: string }>, model: string) {
  if ('json' in chunk) return 'model' in chunk.json ? chunk.json : { ...chunk.json, model };
  const base = { id: 'chatcmpl-scripted', object: 'chat.completion.chunk', created: 0, model };
  if ('delta' in chunk) {
    return {
      ...base,
      choices: [{ index: 0, delta: chunk.delta, finish_reason: chunk.finishReason ?? null }],
      ...(chunk.usage ? { usage: chunk.usage } : {}),
    };
  }
  if ('usage' in chunk) return { ...base, choices: [], usage: chunk.usage };
  if ('text' in chunk)
    return {
      ...base,
      choices: [{ index: 0, delta: { role: 'assistant', content: chunk.text }, finish_reason: null }],
    };
  if ('finish' in chunk) return { ...base, choices: [{ index: 0, delta: {}, finish_reason: chunk.finish }] };
  const t = chunk.toolCall;
  const fn: Record<string, string> = {};
  if (t.name !== undefined) fn['name'] = t.name;
  if (t.args !== undefined) fn['arguments'] = t.args;
  return {
    ...base,
    choices: [
      {
        index: 0,
        delta: {
          tool_calls: [{ index: t.index, ...(t.id ? { id: t.id, type: 'function' } : {}), function: fn }],
        },
        finish_reason: null,
      },
    ],
  };
}

function json(
  res: http.ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

const delay = (ms?: number) => (ms ? new Promise((r) => setTimeout(r, ms)) : Promise.resolve());

/** Builders for scripted answers. */
export const script = {
  /** A streamed text answer, split into `parts` deltas. */
  text(answer: string, parts = 3): ScriptedResponse {
    const size = Math.max(1, Math.ceil(answer.length / parts));
    const chunks: ScriptChunk[] = [];
    for (let i = 0; i < answer.length; i += size) chunks.push({ text: answer.slice(i, i + size) });
    chunks.push({ finish: 'stop' });
    return { kind: 'stream', chunks };
  },
  /**
   * A streamed tool call whose JSON arguments are split into `argParts` fragments (the first
   * fragment carries the id and name, as OpenAI sends them). `args` may be a string to send
   * malformed JSON verbatim.
   */
  toolCall(
    name: string,
    args: unknown,
    opts: { id?: string; argParts?: number; index?: number; leadText?: string } = {},
  ): ScriptedResponse {
    const text = typeof args === 'string' ? args : JSON.stringify(args);
    const parts = Math.max(1, opts.argParts ?? 3);
    const size = Math.max(1, Math.ceil(text.length / parts));
    const index = opts.index ?? 0;
    const chunks: ScriptChunk[] = opts.leadText ? [{ text: opts.leadText }] : [];
    chunks.push({ toolCall: { index, id: opts.id ?? `call_${name}_${index}`, name, args: '' } });
    for (let i = 0; i < text.length; i += size)
      chunks.push({ toolCall: { index, args: text.slice(i, i + size) } });
    chunks.push({ finish: 'tool_calls' });
    return { kind: 'stream', chunks };
  },
  status(status: number, message = `scripted ${status}`): ScriptedResponse {
    return { kind: 'status', status, body: { error: { message, type: 'server_error' } } };
  },
};
