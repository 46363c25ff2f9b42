import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One piece of a scripted streamed answer. */
export type ScriptChunk =
  | { text: string }
  | { toolCall: { index: number; id?: string; name?: string; args?: string } }
  | { finish: 'stop' | 'tool_calls' | 'length' }
  /** A raw SSE `data:` payload sent as is (e.g. malformed JSON). */
  | { raw: string };

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
    }
  | { kind: 'status'; status: number; body?: unknown }
  /** A non-streamed completion (`POST /chat/completions` without `stream`), e.g. the settings test. */
  | { kind: 'completion'; text: string };

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
 */
export class ScriptedOpenAiServer {
  readonly requests: RecordedRequest[] = [];
  /** Model ids `GET /v1/models` lists; set `modelsStatus` to make it fail instead. */
  models: string[] = ['scripted-model'];
  modelsStatus: { status: number; body: unknown } | undefined;
  /** Used when the queue is empty. */
  responder: ((req: RecordedRequest) => ScriptedResponse) | undefined;
  private readonly queue: ScriptedResponse[] = [];
  private readonly sockets = new Set<import('node:net').Socket>();

  private constructor(private readonly server: http.Server) {}

  /** Starts a server on 127.0.0.1 and an ephemeral port. */
  static async start(): Promise<ScriptedOpenAiServer> {
    const server = http.createServer();
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
    const rec: RecordedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, receivedAt: Date.now() };
    this.requests.push(rec);
    res.on('close', () => {
      rec.closedAt = Date.now();
      rec.clientClosed = !res.writableFinished;
    });

    if (req.method === 'GET' && rec.path.endsWith('/models')) {
      if (this.modelsStatus) return json(res, this.modelsStatus.status, this.modelsStatus.body);
      return json(res, 200, { object: 'list', data: this.models.map((id) => ({ id, object: 'model', created: 0, owned_by: 'scripted' })) });
    }
    if (req.method !== 'POST' || !rec.path.endsWith('/chat/completions')) return json(res, 404, { error: { message: `no route ${rec.path}` } });

    const next = this.queue.shift() ?? this.responder?.(rec);
    if (!next) return json(res, 500, { error: { message: 'scripted server: no response scripted for this request' } });
    if (next.kind === 'status') return json(res, next.status, next.body ?? { error: { message: `scripted status ${next.status}` } });
    if (next.kind === 'completion') {
      return json(res, 200, {
        id: 'cmpl-scripted',
        object: 'chat.completion',
        created: 0,
        model: body?.model ?? 'scripted-model',
        choices: [{ index: 0, message: { role: 'assistant', content: next.text }, finish_reason: 'stop' }],
      });
    }

    const alive = () => !res.destroyed && !res.writableEnded;
    await delay(next.headersDelayMs);
    if (!alive()) return;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    res.flushHeaders();
    await delay(next.firstChunkDelayMs);
    const model = body?.model ?? 'scripted-model';
    for (const [i, chunk] of next.chunks.entries()) {
      if (!alive()) return;
      if (i > 0) await delay(next.chunkDelayMs);
      if (!alive()) return;
      res.write(`data: ${'raw' in chunk ? chunk.raw : JSON.stringify(toSse(chunk, model))}\n\n`);
    }
    if (next.hang) return; // left open until the client goes away
    if (alive()) res.end('data: [DONE]\n\n');
  }
}

function toSse(chunk: Exclude<ScriptChunk, { raw: string }>, model: string) {
  const base = { id: 'chatcmpl-scripted', object: 'chat.completion.chunk', created: 0, model };
  if ('text' in chunk) return { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: chunk.text }, finish_reason: null }] };
  if ('finish' in chunk) return { ...base, choices: [{ index: 0, delta: {}, finish_reason: chunk.finish }] };
  const t = chunk.toolCall;
  const fn: Record<string, string> = {};
  if (t.name !== undefined) fn['name'] = t.name;
  if (t.args !== undefined) fn['arguments'] = t.args;
  return {
    ...base,
    choices: [{ index: 0, delta: { tool_calls: [{ index: t.index, ...(t.id ? { id: t.id, type: 'function' } : {}), function: fn }] }, finish_reason: null }],
  };
}

function json(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
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
  toolCall(name: string, args: unknown, opts: { id?: string; argParts?: number; index?: number; leadText?: string } = {}): ScriptedResponse {
    const text = typeof args === 'string' ? args : JSON.stringify(args);
    const parts = Math.max(1, opts.argParts ?? 3);
    const size = Math.max(1, Math.ceil(text.length / parts));
    const index = opts.index ?? 0;
    const chunks: ScriptChunk[] = opts.leadText ? [{ text: opts.leadText }] : [];
    chunks.push({ toolCall: { index, id: opts.id ?? `call_${name}_${index}`, name, args: '' } });
    for (let i = 0; i < text.length; i += size) chunks.push({ toolCall: { index, args: text.slice(i, i + size) } });
    chunks.push({ finish: 'tool_calls' });
    return { kind: 'stream', chunks };
  },
  status(status: number, message = `scripted ${status}`): ScriptedResponse {
    return { kind: 'status', status, body: { error: { message, type: 'server_error' } } };
  },
};
