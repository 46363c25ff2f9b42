import 'reflect-metadata';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { TOOL_DEFINITIONS } from '@corpus-chat/contracts';
// The model double the worker's tests use, so the probes meet the servers' real side routes.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { ScriptedOpenAiServer } from '../../../agent-worker/src/agent/testing/scripted-openai-server';
import { checkModelServer, toolCallVerdict } from './model-server-check';

/** A port on 127.0.0.1 where nothing listens (bound, then closed). */
async function closedPort(): Promise<number> {
  const srv = http.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as AddressInfo;
  await new Promise((r) => srv.close(r));
  return port;
}

/** Test bound of the cases that talk to a socket: a loaded host may take seconds to connect or fail. */
const SOCKET_TEST_MS = 60_000;

describe('checkModelServer failure wording', () => {
  it(
    'names the URL and says the connection was refused when nothing listens',
    async () => {
      const baseUrl = `http://127.0.0.1:${await closedPort()}/v1`;
      // Bounds far above any refusal, so a refusal a busy host delivers late is still one.
      const r = await checkModelServer(
        { baseUrl, model: 'm', apiKey: null },
        { listTimeoutMs: 30_000, completionTimeoutMs: 30_000 },
      );
      expect(r.ok).toBe(false);
      expect(r.checks.map((c) => c.detail)).toEqual([
        `Listing the models failed: could not connect to ${baseUrl}: connection refused: nothing listens on that port (ECONNREFUSED)`,
        `A one-token completion with 'm' failed: could not connect to ${baseUrl}: connection refused: nothing listens on that port (ECONNREFUSED)`,
        'Not tried: the plain completion failed, so a request with tools would fail too.',
        expect.stringMatching(
          /^Context length unknown: the budget is AGENT_CONTEXT_TOKENS, 6,000 tokens\. None of the context probes answered \(vLLM GET \/models: no connection; /,
        ),
      ]);
      expect(r.checks.map((c) => [c.name, c.ok])).toEqual([
        ['models', false],
        ['completion', false],
        ['tools', false],
        ['context', true],
      ]);
    },
    SOCKET_TEST_MS,
  );

  it(
    'explains a port that fetch refuses to use (port 9) instead of "bad port"',
    async () => {
      const baseUrl = 'http://127.0.0.1:9/v1';
      const r = await checkModelServer(
        { baseUrl, model: 'm', apiKey: null },
        { listTimeoutMs: 3000, completionTimeoutMs: 3000 },
      );
      expect(r.checks[0]!.detail).toBe(
        `Listing the models failed: could not connect to ${baseUrl}: port 9 is blocked for HTTP requests (the fetch standard reserves it for another protocol): use another port`,
      );
      expect(r.checks[0]!.detail).not.toContain('(bad port)');
    },
    SOCKET_TEST_MS,
  );

  it(
    'says an unknown host name was not found',
    async () => {
      const baseUrl = 'http://no-such-host.invalid/v1';
      const r = await checkModelServer(
        { baseUrl, model: 'm', apiKey: null },
        { listTimeoutMs: 30_000, completionTimeoutMs: 30_000 },
      );
      expect(r.checks[0]!.detail).toMatch(
        new RegExp(
          `^Listing the models failed: could not connect to ${baseUrl.replace(/[./]/g, '\\$&')}: the host name (was not found \\(ENOTFOUND\\)|could not be looked up)`,
        ),
      );
    },
    SOCKET_TEST_MS,
  );

  it(
    'never follows a redirect to another host: the key and the prompt stay with the configured server',
    async () => {
      const outside: string[] = [];
      const other = http.createServer((req, res) => {
        outside.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"object":"list","data":[]}');
      });
      await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
      const otherUrl = `http://localhost:${(other.address() as AddressInfo).port}`;
      const redirecting = http.createServer((req, res) =>
        res.writeHead(302, { location: `${otherUrl}${req.url}` }).end(),
      );
      await new Promise<void>((r) => redirecting.listen(0, '127.0.0.1', r));
      const baseUrl = `http://127.0.0.1:${(redirecting.address() as AddressInfo).port}/v1`;
      try {
        const r = await checkModelServer(
          { baseUrl, model: 'm', apiKey: 'sk-secret' },
          { listTimeoutMs: 5000, completionTimeoutMs: 5000 },
        );
        expect(outside).toEqual([]);
        expect(r.ok).toBe(false);
        expect(r.checks[0]!.detail).toMatch(/^Listing the models failed: HTTP 302/);
      } finally {
        await new Promise((r) => redirecting.close(r));
        await new Promise((r) => other.close(r));
      }
    },
    SOCKET_TEST_MS,
  );

  it(
    'does not wait for a completion from a server that did not answer the model list in time',
    async () => {
      const sockets = new Set<import('node:net').Socket>();
      const requested: string[] = [];
      const silent = http.createServer((req) => void requested.push(`${req.method} ${req.url}`)); // accepts, never answers
      silent.on('connection', (s) => sockets.add(s));
      await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
      const baseUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/v1`;
      try {
        // A completion sent anyway would hold the check for its bound, so it would have arrived by then.
        const r = await checkModelServer(
          { baseUrl, model: 'm', apiKey: null },
          { listTimeoutMs: 300, completionTimeoutMs: 10_000 },
        );
        expect(requested.filter((q) => q !== 'GET /v1/models')).toEqual([]);
        expect(r.ok).toBe(false);
        expect(r.checks.map((c) => c.name)).toEqual(['models', 'completion', 'tools', 'context']);
        expect(r.checks[0]!.detail).toMatch(/^Listing the models failed: /);
        expect(r.checks[1]!.detail).toBe(
          `Not tried: ${baseUrl} did not answer the model list in time, so a completion would not be answered either.`,
        );
        expect(r.checks[3]).toMatchObject({
          ok: true,
          detail: expect.stringContaining('the budget is AGENT_CONTEXT_TOKENS, 6,000 tokens'),
        });
        expect(r.contextBudgetTokens).toBe(6000);
      } finally {
        for (const s of sockets) s.destroy();
        await new Promise((r) => silent.close(r));
      }
    },
    SOCKET_TEST_MS,
  );
});

type Reply = { status: number; json: unknown };
type FakeServer = {
  models: string[];
  chat: (body: any) => Reply;
  native?: Record<string, (body: any) => Reply>;
};

/** An OpenAI-compatible server shaped by `fake`, recording each request's route and body. */
async function fakeServer(fake: FakeServer) {
  const seen: { route: string; body: any }[] = [];
  const server = http.createServer(async (req, res) => {
    let raw = '';
    for await (const c of req) raw += c;
    const body = raw ? JSON.parse(raw) : undefined;
    const route = `${req.method} ${req.url}`;
    seen.push({ route, body });
    let reply: Reply = { status: 404, json: { error: '404 page not found' } };
    if (route === 'GET /v1/models')
      reply = {
        status: 200,
        json: {
          object: 'list',
          data: fake.models.map((id) => ({ id, object: 'model', created: 1, owned_by: 'library' })),
        },
      };
    else if (route === 'POST /v1/chat/completions') reply = fake.chat(body);
    else if (fake.native?.[route]) reply = fake.native[route]!(body);
    res.writeHead(reply.status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(reply.json));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return { baseUrl, seen, close: () => new Promise((r) => server.close(r)) };
}

const completion = (model: string, content = 'OK'): Reply => ({
  status: 200,
  json: {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1,
    model,
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'length' }],
    usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 },
  },
});

/** A structured tool call, as Ollama's OpenAI layer answers a request with tools (openai/openai.go toChatCompletion). */
const toolCall = (model: string, name = 'get_corpus_overview'): Reply => ({
  status: 200,
  json: {
    id: 'chatcmpl-2',
    object: 'chat.completion',
    created: 1,
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: '',
          tool_calls: [
            { id: 'call_a1b2c3d4', index: 0, type: 'function', function: { name, arguments: '{}' } },
          ],
        },
        finish_reason: 'tool_calls',
      },
    ],
  },
});

/**
 * Ollama as its source answers: `/v1/chat/completions` refuses tools for a model without the
 * capability (400, `<name> does not support tools`, in the OpenAI error shape of openai.NewError);
 * `/api/show` gives no num_ctx; `/api/ps` lists a model once a request loaded it, with the context
 * it runs with.
 */
function fakeOllama(loadedContext: number) {
  const loaded = new Set<string>();
  return {
    models: ['qwen3:8b', 'gemma3:1b'],
    chat: (body: any): Reply => {
      if (!['qwen3:8b', 'gemma3:1b'].includes(body.model))
        return {
          status: 404,
          json: {
            error: {
              message: `model "${body.model}" not found, try pulling it first`,
              type: 'not_found_error',
              param: null,
              code: null,
            },
          },
        };
      loaded.add(body.model);
      if (body.tools && body.model === 'gemma3:1b') {
        return {
          status: 400,
          json: {
            error: {
              message: `registry.ollama.ai/library/${body.model} does not support tools`,
              type: 'invalid_request_error',
              param: null,
              code: null,
            },
          },
        };
      }
      return body.tools ? toolCall(body.model) : completion(body.model);
    },
    native: {
      'POST /api/show': (): Reply => ({
        status: 200,
        json: {
          parameters: 'stop                           "<|im_end|>"',
          model_info: { 'general.architecture': 'qwen3', 'qwen3.context_length': 40960 },
        },
      }),
      'GET /api/ps': (): Reply => ({
        status: 200,
        json: {
          models: [...loaded].map((m) => ({
            name: m,
            model: m,
            size: 1,
            size_vram: 1,
            context_length: loadedContext,
          })),
        },
      }),
    },
  };
}

describe('toolCallVerdict: did the model call a tool when asked a question that needs one', () => {
  it('passes a structured call, naming the tool', () => {
    expect(
      toolCallVerdict({ content: null, tool_calls: [{ function: { name: 'get_corpus_overview' } }] }, 'm'),
    ).toEqual({ ok: true, detail: expect.stringContaining('called get_corpus_overview') });
  });

  it('passes a call written as text (the worker recovers it) with the server flag to set', () => {
    const v = toolCallVerdict(
      { content: '<tool_call>{"name": "get_corpus_overview", "arguments": {}}</tool_call>' },
      'qwen',
    );
    expect(v.ok).toBe(true);
    expect(v.detail).toContain('--tool-call-parser');
  });

  it('fails an answer without a call: turns would answer without the corpus', () => {
    const v = toolCallVerdict({ content: 'There are about 40 reports.' }, 'tiny');
    expect(v.ok).toBe(false);
    expect(v.detail).toContain('answered without calling one: its answers would not come from the corpus');
    expect(v.detail).not.toContain('40 reports');
  });
});

describe('checkModelServer: what a turn needs', () => {
  let close: (() => Promise<unknown>) | undefined;
  afterEach(async () => {
    await close?.();
    close = undefined;
  });
  const fast = {
    listTimeoutMs: 5000,
    completionTimeoutMs: 5000,
    contextTimeoutMs: 3000,
    agentContextTokens: 6000,
  };

  it("passes an Ollama model with tools, sends the agent's tool definitions, and reports the loaded context and budget", async () => {
    const s = await fakeServer(fakeOllama(4096));
    close = s.close;
    const r = await checkModelServer({ baseUrl: s.baseUrl, model: 'qwen3:8b', apiKey: null }, fast);
    expect(r.checks.map((c) => [c.name, c.ok])).toEqual([
      ['models', true],
      ['completion', true],
      ['tools', true],
      ['context', true],
    ]);
    expect(r.ok).toBe(true);
    const withTools = s.seen.find((q) => q.route === 'POST /v1/chat/completions' && q.body.tools)!;
    expect(withTools.body).toMatchObject({
      model: 'qwen3:8b',
      max_tokens: 512,
      stream: false,
      tool_choice: 'auto',
    });
    expect(withTools.body.tools.map((t: any) => t.function.name)).toEqual(
      TOOL_DEFINITIONS.map((d) => d.name),
    );
    expect(r.contextTokens).toBe(4096);
    expect(r.contextBudgetTokens).toBe(3276);
    expect(r.checks[3]!.detail).toContain("Ollama runs 'qwen3:8b' with a context of 4,096 tokens");
    expect(r.checks[3]!.detail).toContain('Effective budget: 3,276 tokens');
    expect(r.checks[3]!.detail).toContain("raise the server's context");
  });

  it('fails the tools check for an Ollama model without tool support: the status, a fixed phrase and what to do', async () => {
    const s = await fakeServer(fakeOllama(32768));
    close = s.close;
    const r = await checkModelServer({ baseUrl: s.baseUrl, model: 'gemma3:1b', apiKey: null }, fast);
    expect(r.ok).toBe(false);
    expect(r.checks.map((c) => [c.name, c.ok])).toEqual([
      ['models', true],
      ['completion', true],
      ['tools', false],
      ['context', true],
    ]);
    expect(r.checks[2]!.detail).toBe(
      "A request with the agent's tools was refused: HTTP 400 (the server refused the request). Ollama cannot give 'gemma3:1b' tools: pick a model whose page on ollama.com lists \"tools\" (e.g. qwen3, llama3.1).",
    );
    expect(r.contextBudgetTokens).toBe(6000);
  });

  it("names --jinja when llama.cpp's server refuses tools, and reads its n_ctx", async () => {
    const s = await fakeServer({
      models: ['qwen2.5-7b-instruct-q4_k_m.gguf'],
      chat: (body) =>
        body.tools
          ? {
              status: 500,
              json: {
                error: { code: 500, message: 'tools param requires --jinja flag', type: 'server_error' },
              },
            }
          : completion(body.model),
      native: {
        'GET /props': () => ({
          status: 200,
          json: { default_generation_settings: { n_ctx: 8192 }, total_slots: 1 },
        }),
      },
    });
    close = s.close;
    const r = await checkModelServer(
      { baseUrl: s.baseUrl, model: 'qwen2.5-7b-instruct-q4_k_m.gguf', apiKey: null },
      fast,
    );
    expect(r.checks[2]).toMatchObject({ name: 'tools', ok: false });
    expect(r.checks[2]!.detail).toContain('HTTP 500 (the server failed)');
    expect(r.checks[2]!.detail).not.toContain('tools param requires');
    expect(r.checks[2]!.detail).toContain("Start llama.cpp's server with --jinja");
    expect(r).toMatchObject({ contextTokens: 8192, contextBudgetTokens: 6000 });
    expect(r.checks[3]!.detail).not.toContain("raise the server's context");
  });

  it("never repeats a failing server's body, only its status and a fixed phrase", async () => {
    const body = '<html><script>steal()</script>internal token sk-live-123</html>';
    const s = await fakeServer({
      models: ['m'],
      chat: () => ({ status: 401, json: { error: { message: body } } }),
    });
    close = s.close;
    const r = await checkModelServer({ baseUrl: s.baseUrl, model: 'm', apiKey: 'k' }, fast);
    expect(r.checks[1]).toEqual({
      name: 'completion',
      ok: false,
      detail: "A one-token completion with 'm' failed: HTTP 401 (the API key was refused)",
    });
    expect(JSON.stringify(r)).not.toMatch(/steal|sk-live/);
  });

  it('fails the models check when the model is not listed: a turn with it would fail', async () => {
    const s = await fakeServer(fakeOllama(4096));
    close = s.close;
    const r = await checkModelServer({ baseUrl: s.baseUrl, model: 'mistral', apiKey: null }, fast);
    expect(r.ok).toBe(false);
    expect(r.checks[0]).toMatchObject({ name: 'models', ok: false });
    expect(r.checks[0]!.detail).toContain(
      "but not 'mistral' (available: qwen3:8b, gemma3:1b): a turn with it would fail",
    );
    expect(r.checks[1]!.detail).toBe(
      "A one-token completion with 'mistral' failed: HTTP 404 (not found: check the base URL and the model name)",
    );
    expect(r.checks[2]!.detail).toBe(
      'Not tried: the plain completion failed, so a request with tools would fail too.',
    );
  });

  it('reports an unknown context as information, not a failure, with AGENT_CONTEXT_TOKENS as the budget', async () => {
    const s = await fakeServer({
      models: ['gpt-x'],
      chat: (body) => (body.tools ? toolCall(body.model) : completion(body.model)),
    });
    close = s.close;
    const r = await checkModelServer(
      { baseUrl: s.baseUrl, model: 'gpt-x', apiKey: null },
      { ...fast, agentContextTokens: 12000 },
    );
    expect(r.ok).toBe(true);
    expect(r.contextTokens).toBeUndefined();
    expect(r.contextBudgetTokens).toBe(12000);
    expect(r.checks[3]).toMatchObject({ name: 'context', ok: true });
    expect(r.checks[3]!.detail).toMatch(
      /^Context length unknown: the budget is AGENT_CONTEXT_TOKENS, 12,000 tokens\. None of the context probes answered/,
    );
  });
});

describe('checkModelServer: the parallel slots a server tells', () => {
  let server: ScriptedOpenAiServer;
  beforeAll(async () => {
    server = await ScriptedOpenAiServer.start();
    server.responder = () => ({ kind: 'completion', text: 'ok' });
  });
  afterAll(() => server.close());
  const check = () =>
    checkModelServer(
      { baseUrl: server.baseUrl, model: 'scripted-model', apiKey: null },
      { listTimeoutMs: 5000, completionTimeoutMs: 5000, contextTimeoutMs: 3000 },
    );

  it("reports llama.cpp's total_slots from GET /props", async () => {
    server.profile = 'llamacpp';
    server.parallelSlots = 4;
    expect(await check()).toMatchObject({ contextTokens: 8192, parallelSlots: 4 });
  });

  it('reports none for vLLM, which tells its context but not max_num_seqs', async () => {
    server.profile = 'vllm';
    const r = await check();
    expect(r.contextTokens).toBe(8192);
    expect(r.parallelSlots).toBeUndefined();
  });
});
