import OpenAI, { APIConnectionTimeoutError } from 'openai';
import { ScriptedOpenAiServer, type ScriptedResponse } from '../testing/scripted-openai-server';
import { contextError, profileError, type ServerProfileName } from '../testing/server-profiles';
import { describeModelError, parseRetryAfter, type ModelFailure } from './model-errors';
import { modelFetch } from './model-http';

describe('describeModelError (errors as the real openai client raises them through modelFetch)', () => {
  let server: ScriptedOpenAiServer;
  beforeEach(async () => {
    server = await ScriptedOpenAiServer.start();
  });
  afterEach(() => server.close());

  /** The failure of one streamed request answered with `response`. */
  async function failure(response: ScriptedResponse): Promise<ModelFailure> {
    server.enqueue(response);
    const client = new OpenAI({ baseURL: server.baseUrl, apiKey: 'k', maxRetries: 0, fetch: modelFetch });
    const err = await client.chat.completions
      .create({ model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: true })
      .then(async (s) => {
        for await (const _ of s) void _;
        return undefined;
      })
      .catch((e: unknown) => e);
    expect(err).toBeDefined();
    return describeModelError(err);
  }

  it.each<[string, ScriptedResponse, string]>([
    [
      'OpenAI / Ollama OpenAI layer / LiteLLM / llama.cpp {"error":{"message"}}',
      {
        kind: 'status',
        status: 404,
        body: {
          error: { message: 'model "qwen3" not found, try pulling it first', type: 'not_found_error' },
        },
      },
      'HTTP 404: model "qwen3" not found, try pulling it first',
    ],
    [
      'Ollama native / LM Studio {"error":"text"}',
      { kind: 'status', status: 400, body: { error: 'invalid model name' } },
      'HTTP 400: invalid model name',
    ],
    [
      'vLLM {"object":"error","message"}',
      {
        kind: 'status',
        status: 400,
        body: {
          object: 'error',
          message: 'temperature must be non-negative',
          type: 'BadRequestError',
          param: null,
          code: 400,
        },
      },
      'HTTP 400: temperature must be non-negative',
    ],
    [
      'FastAPI {"detail":"text"}',
      { kind: 'status', status: 401, body: { detail: 'Invalid API key' } },
      'HTTP 401: Invalid API key',
    ],
    [
      'FastAPI {"detail":[{loc,msg}]}',
      {
        kind: 'status',
        status: 422,
        body: { detail: [{ loc: ['body', 'messages'], msg: 'field required', type: 'missing' }] },
      },
      'HTTP 422: body.messages: field required',
    ],
    [
      'a proxy’s plain text',
      { kind: 'status', status: 502, text: 'upstream connect error or disconnect/reset before headers' },
      'HTTP 502: upstream connect error or disconnect/reset before headers',
    ],
    [
      'a proxy’s HTML page',
      {
        kind: 'status',
        status: 504,
        contentType: 'text/html',
        text: '<html><head><title>504 Gateway Time-out</title></head><body><center><h1>504 Gateway Time-out</h1></center><hr><center>nginx</center></body></html>',
      },
      'HTTP 504: 504 Gateway Time-out',
    ],
    ['an empty body', { kind: 'status', status: 503, text: '' }, 'HTTP 503: HTTP 503 without a message'],
  ])('keeps the server’s words: %s', async (_shape, response, message) => {
    const f = await failure(response);
    expect(f.message).toBe(message);
    expect(f.status).toBe((response as { status: number }).status);
    expect(f.contextExceeded).toBeUndefined();
  });

  it('classifies statuses: 5xx and 429 are the server’s trouble and retryable, other 4xx are not', async () => {
    expect(await failure(profileError('vllm', 500, 'EngineCore encountered an issue.'))).toMatchObject({
      code: 'MODEL_UNAVAILABLE',
      retryable: true,
    });
    expect(
      await failure(
        profileError('ollama', 503, 'server busy, please try again.  maximum pending requests exceeded'),
      ),
    ).toMatchObject({ code: 'MODEL_UNAVAILABLE', retryable: true });
    expect(await failure(profileError('openai', 401, 'Incorrect API key provided'))).toMatchObject({
      code: 'MODEL_ERROR',
      retryable: false,
    });
    expect(await failure(profileError('openai', 408, 'Request timed out'))).toMatchObject({
      code: 'MODEL_ERROR',
      retryable: true,
    });
  });

  it('reads Retry-After of a 429 (LiteLLM shape, code as a string)', async () => {
    const f = await failure({
      ...profileError('litellm', 429, 'litellm.RateLimitError: Rate limit reached'),
      headers: { 'retry-after': '3' },
    });
    expect(f).toMatchObject({
      code: 'MODEL_UNAVAILABLE',
      retryable: true,
      retryAfterMs: 3000,
      status: 429,
      message: 'HTTP 429: litellm.RateLimitError: Rate limit reached',
    });
    expect(f.contextExceeded).toBeUndefined();
  });

  it('does not take a tokens-per-minute rate limit for a context overflow', async () => {
    const f = await failure({
      kind: 'status',
      status: 429,
      body: {
        error: {
          message:
            'Rate limit reached on tokens per min (TPM): Limit 30000. Your request resulted in too many tokens; maximum context length is not the issue.',
          code: 'rate_limit_exceeded',
        },
      },
    });
    expect(f.contextExceeded).toBeUndefined();
    expect(f.code).toBe('MODEL_UNAVAILABLE');
  });

  it.each<[ServerProfileName, string | undefined, number | undefined]>([
    ['vllm', "vLLM's --max-model-len", 1200],
    ['llamacpp', "llama.cpp's --ctx-size (-c)", 1200],
    ['ollama', "Ollama's num_ctx (OLLAMA_CONTEXT_LENGTH)", undefined],
    ['lmstudio', "the model's context length in LM Studio", 1200],
    ['openai', undefined, 1200],
    ['litellm', undefined, 1200],
    ['deepseek', undefined, 1200],
  ])('recognises the context-length refusal of %s', async (profile, setting, prompt) => {
    const f = await failure(contextError(profile, 1200, 1024));
    expect(f).toMatchObject({
      code: 'CONTEXT_OVERFLOW',
      contextExceeded: true,
      retryable: false,
      status: 400,
    });
    expect(f.contextSetting).toBe(setting);
    expect(f.promptTokens).toBe(prompt);
    if (profile !== 'ollama') expect(f.contextTokens).toBe(1024);
    expect(f.message).toMatch(/^HTTP 400: /);
  });

  it('keeps an error sent inside the stream (no status): retryable, with its words', async () => {
    const f = await failure({
      kind: 'stream',
      chunks: [
        { text: 'Hel' },
        {
          raw: JSON.stringify({
            error: { message: 'CUDA error: out of memory', type: 'server_error', code: 500 },
          }),
        },
      ],
    });
    expect(f).toMatchObject({ code: 'MODEL_ERROR', retryable: true, message: 'CUDA error: out of memory' });
    expect(f.status).toBeUndefined();
  });

  it('names a refused connection and keeps the mappings of timeouts, aborts and malformed streams', async () => {
    const url = server.baseUrl;
    await server.close();
    const client = new OpenAI({ baseURL: url, apiKey: 'k', maxRetries: 0, fetch: modelFetch });
    const refused = await client.chat.completions
      .create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(describeModelError(refused)).toEqual({
      code: 'MODEL_UNAVAILABLE',
      retryable: true,
      message: 'could not connect: connection refused: nothing listens on that port (ECONNREFUSED)',
    });
    server = await ScriptedOpenAiServer.start();

    // The SDK's own header timeout (its DOMException crosses jest's realm, so the class is built here).
    expect(describeModelError(new APIConnectionTimeoutError())).toEqual({
      code: 'TIMEOUT',
      message: 'no response headers in time',
      retryable: false,
    });

    expect(describeModelError(new SyntaxError('Unexpected end of JSON input'))).toEqual({
      code: 'MODEL_ERROR',
      message: 'malformed stream (Unexpected end of JSON input)',
      retryable: true,
    });
    expect(describeModelError(new TypeError('terminated'))).toMatchObject({ retryable: true });
    const known: ModelFailure = { code: 'TIMEOUT', message: 'the stream stalled', retryable: false };
    expect(describeModelError(known)).toBe(known);
  });

  it('maps a user abort to a non-retryable MODEL_ERROR', async () => {
    server.enqueue({ kind: 'stream', chunks: [{ text: 'x' }], headersDelayMs: 500 });
    const ac = new AbortController();
    const client = new OpenAI({ baseURL: server.baseUrl, apiKey: 'k', maxRetries: 0, fetch: modelFetch });
    const pending = client.chat.completions
      .create(
        { model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: true },
        { signal: ac.signal },
      )
      .catch((e: unknown) => e);
    await server.waitFor(() => server.completionRequests.length === 1);
    ac.abort();
    expect(describeModelError(await pending)).toEqual({
      code: 'MODEL_ERROR',
      message: 'request aborted',
      retryable: false,
    });
  });
});

describe('parseRetryAfter', () => {
  const h = (init: Record<string, string>) => new Headers(init);
  const now = Date.parse('2026-12-01T12:00:00Z');

  it('reads seconds, decimal seconds, retry-after-ms first, and an HTTP date relative to now', () => {
    expect(parseRetryAfter(h({ 'retry-after': '2' }), now)).toBe(2000);
    expect(parseRetryAfter(h({ 'retry-after': '0.5' }), now)).toBe(500);
    expect(parseRetryAfter(h({ 'retry-after-ms': '1500', 'retry-after': '9' }), now)).toBe(1500);
    expect(parseRetryAfter(h({ 'retry-after': 'Tue, 01 Dec 2026 12:00:07 GMT' }), now)).toBe(7000);
    expect(parseRetryAfter(h({ 'retry-after': 'Tue, 01 Dec 2026 11:59:00 GMT' }), now)).toBe(0);
  });

  it('is undefined without a usable header', () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter(h({}), now)).toBeUndefined();
    expect(parseRetryAfter(h({ 'retry-after': 'soon' }), now)).toBeUndefined();
    expect(parseRetryAfter(h({ 'retry-after': '-3' }), now)).toBeUndefined();
  });
});
